import { SkillSearchError } from '../errors.js';
import type { Skill } from '../types.js';
import { CatalogVectors } from '../vector-index/catalog-vectors.js';
import { applyDiff, type DiffCounts } from './apply-diff.js';
import { catalogModel, CATALOG_FORMAT } from './catalog-format.js';
import { vectorKey } from './skill-text.js';
import { supplyVectors, type EmbedProgress, type VectorSources } from './vector-supply.js';

/** Labels of vectors the store could not name start here, far above any rowid it hands out; a catalog holding one is not saved. */
export const LOCAL_LABELS = 2 ** 48;

/** Vectors by content key, for {@link LiveVectors.apply}; `embedded` counts those the model made. */
export interface FoundVectors {
  readonly vectors: Map<string, Float32Array>;
  readonly embedded: number;
}

/**
 * The live engine's vector side: a {@link CatalogVectors} brought to each synced catalog by
 * {@link missing} (asynchronous) then {@link apply} (synchronous), so a concurrent search sees
 * the old catalog or the new one.
 */
export class LiveVectors {
  readonly #options: VectorSources;
  #vectors: CatalogVectors | undefined;
  /** The catalog the vectors were last brought to: a skill object passed again is unchanged (skills are immutable). */
  #skills: ReadonlyMap<string, Skill> = new Map();
  /** Local labels handed out (see `LOCAL_LABELS`). */
  #localLabels = 0;

  constructor(options: VectorSources) {
    this.#options = options;
  }

  /** The vectors as last applied, or undefined before the first {@link missing}. */
  get current(): CatalogVectors | undefined {
    return this.#vectors;
  }

  /** The vectors, made (seeded from the graph saved last) when there are none yet. */
  load(): CatalogVectors {
    this.#vectors ??= this.#newVectors(true);
    return this.#vectors;
  }

  /** A new vector side, seeded (`withBase`) from the graph saved last for the model. */
  #newVectors(withBase: boolean): CatalogVectors {
    const { engine, dimensions, shared } = this.#options;
    const model = catalogModel(engine);
    return new CatalogVectors({
      kind: engine.ann,
      dimensions,
      hnsw: engine.hnsw,
      ...(shared === undefined || !withBase
        ? {}
        : {
            base: () => {
              const latest = shared.latestGraph(model, CATALOG_FORMAT);
              const file = latest === undefined ? undefined : shared.graphFile(latest.graph);
              return file === undefined ? undefined : { file, labels: shared.members(latest!.catalog).labels() };
            },
          }),
    });
  }

  /** The vectors, by content key, of the skills whose key the vectors lack: from the store when it has them, else embedded. */
  missing(skills: Iterable<Skill>, signal?: AbortSignal, onProgress?: EmbedProgress): Promise<FoundVectors> {
    const state = this.load();
    const missing = new Map<string, Skill>();
    for (const skill of skills) {
      if (this.#skills.get(skill.id) === skill) continue;
      const key = vectorKey(skill);
      if (state.vectorOfKey(key) === undefined) missing.set(key, skill);
    }
    return supplyVectors(this.#options, missing, signal, onProgress);
  }

  /**
   * Synchronous: the vectors hold `desired`, each from `found` or held already; when the native
   * graph refuses a change (`INDEX_CORRUPT`) they are laid out anew without a base graph.
   */
  apply(desired: ReadonlyMap<string, Skill>, found: FoundVectors): DiffCounts {
    const state = this.load();
    try {
      return this.#apply(state, desired, found.vectors);
    } catch (error) {
      if (!(error instanceof SkillSearchError) || error.code !== 'INDEX_CORRUPT') throw error;
      // Every vector is still at hand (held or just found): laid out again, nothing embedded.
      const vectors = new Map(found.vectors);
      for (const skill of desired.values()) {
        const key = vectorKey(skill);
        const held = state.vectorOfKey(key);
        if (held !== undefined && !vectors.has(key)) vectors.set(key, held.slice());
      }
      const fresh = this.#newVectors(false);
      this.#vectors = fresh;
      this.#skills = new Map();
      return this.#apply(fresh, desired, vectors);
    }
  }

  #apply(state: CatalogVectors, desired: ReadonlyMap<string, Skill>, embedded: ReadonlyMap<string, Float32Array>): DiffCounts {
    const { shared, model } = this.#options;
    const previous = this.#skills;
    const incoming = new Map<string, { key: string; vector: Float32Array }>();
    /** The labels of the keys this apply adds. */
    let labels = new Map<string, number>();
    const counts = applyDiff(desired, {
      size: state.size,
      ids: () => state.ids(),
      has: (id) => state.has(id),
      holds: (id, skill) => previous.get(id) === skill,
      // Vectors are taken before any removal: a renamed skill's vector is held under its old id.
      beforeChanges: (pending) => {
        const keys: string[] = [];
        for (const [id, skill] of pending) {
          const key = vectorKey(skill);
          if (state.keyOf(id) === key) continue;
          const vector = embedded.get(key) ?? state.vectorOfKey(key)?.slice();
          if (vector === undefined) throw new SkillSearchError('INTERNAL', `no vector for skill ${id}`);
          incoming.set(id, { key, vector });
          if (!state.holdsKey(key)) keys.push(key);
        }
        labels = shared?.labels(model, keys) ?? labels;
        for (const key of keys) if (!labels.has(key)) labels.set(key, shared === undefined ? this.#localLabels++ : LOCAL_LABELS + this.#localLabels++);
      },
      remove: (id) => state.remove(id),
      upsert: (id) => {
        const next = incoming.get(id);
        if (next === undefined) return 'unchanged';
        const had = state.has(id);
        state.set(id, next.key, next.vector, labels.get(next.key) ?? -1);
        return had ? 'updated' : 'added';
      },
    });
    this.#skills = desired;
    return counts;
  }
}
