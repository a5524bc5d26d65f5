import { createHash } from 'node:crypto';
import { errorMessage, throwIfAborted } from '../errors.js';
import { lexicalEntry, type LexicalEntry } from '../lexical/lexical-entry.js';
import type { ReadStamps } from '../load/source-stamp.js';
import type { CatalogDelta } from '../load/tools-delta.js';
import type { CatalogMember, StoredCatalog } from '../store/entry-store.js';
import type { Diagnostic, Skill } from '../types.js';
import { type CatalogVectors, meanOf } from '../vector-index/catalog-vectors.js';
import { LabelGraph } from '../vector-index/label-graph.js';
import { changeOfDelta, memberOf, type BaseChange } from './catalog-change.js';
import { catalogKeyOf, catalogModel, CATALOG_FORMAT } from './catalog-format.js';
import { LOCAL_LABELS, type LiveVectors } from './live-vectors.js';
import { changeOfDeltaAlone, changeVectors, holdDelta, holdMoved, type ChangeSources, type HeldCatalog } from './catalog-holder.js';
import type { MovedCatalog } from './moved-catalog.js';

/** The catalog a live engine saves in the store (`LiveIndex` passes what it last synced). */
export interface SnapshotCatalog {
  readonly sourceStamp: string;
  /** Its stamp without the working folder: the catalog is saved under it, so every folder over the same skills finds it. */
  readonly portableStamp?: string | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/** What {@link CatalogWriter.assemble} cost: skills embedded and lexical entries tokenised. */
export interface AssembledCatalog {
  readonly embedded: number;
  readonly tokenised: number;
}

interface CatalogWriterOptions extends ChangeSources {
  /** A new live vector side (seeded from the graph saved last for the model). */
  readonly liveVectors: () => LiveVectors;
}

/**
 * Writes catalogs in the store: a live engine's synced catalog ({@link write}), or one assembled
 * from the catalog saved last without syncing an engine ({@link assemble}; docs/store.md,
 * "Assembling a changed catalog").
 */
export class CatalogWriter {
  readonly #options: CatalogWriterOptions;
  #problem: string | undefined;

  constructor(options: CatalogWriterOptions) {
    this.#options = options;
  }

  /** Why a catalog could not be written, when a write failed; undefined otherwise. */
  get problem(): string | undefined {
    return this.#problem;
  }

  /**
   * Writes the catalog of `skills` (their lexical glosses, their vectors in `vectors`) in the
   * store; returns how many lexical entries were tokenised for it, or undefined when it was not
   * written (a skill without a stored vector, a store that failed).
   */
  write(catalog: SnapshotCatalog, skills: readonly Skill[], glosses: ReadonlyMap<string, string>, vectors: CatalogVectors): number | undefined {
    for (const skill of skills) {
      const label = vectors.labelOf(skill.id);
      if (label === undefined || label >= LOCAL_LABELS) return undefined;
    }
    const members = skills.map((skill) => memberOf(skill, glosses.get(skill.id)));
    return this.#putCatalog(catalog, {
      members,
      mean: vectors.mean(),
      sum: vectors.sum(),
      graph: () => vectors.graph(),
      entryOf: (doc) => lexicalEntry(skills[doc]!, glosses.get(skills[doc]!.id)),
    });
  }

  /**
   * Writes the catalog of `catalog.skills` in the store, answering as a clean build would: only
   * the skills whose content the store lacks are embedded and tokenised, the graph derived from
   * the last saved one. Returns what it cost, or undefined when nothing was written (no catalog
   * saved before for this model, a lexical-only engine, a store that failed).
   */
  async assemble(catalog: SnapshotCatalog & { readonly skills: readonly Skill[] }, signal?: AbortSignal): Promise<AssembledCatalog | undefined> {
    const { shared, engine, language } = this.#options;
    if (engine.mode === 'lexical') return undefined;
    const base = shared.latestCatalog(catalogModel(engine), CATALOG_FORMAT);
    if (base === undefined) return undefined;
    if (shared.catalog(catalogKeyOf(catalog, engine)) !== undefined) return { embedded: 0, tokenised: 0 };
    const desired = new Map<string, Skill>();
    for (const skill of catalog.skills) if (!desired.has(skill.id)) desired.set(skill.id, skill);
    if (desired.size === 0) return undefined;
    await language.prepare(desired.values(), signal);
    const skills = [...desired.values()];
    const glosses = new Map<string, string>();
    for (const skill of skills) {
      const lexical = language.glossesOf(skill)?.lexical;
      if (lexical !== undefined) glosses.set(skill.id, lexical);
    }
    const change = base.sum === undefined ? undefined : this.#changeFrom(base, skills, glosses);
    return (
      (change === undefined ? undefined : await this.#assembleFrom(catalog, base, change, signal)) ?? this.#assembleWhole(catalog, desired, glosses, signal)
    );
  }

  /** Writes the catalog `delta` describes (`SkillCatalog.delta`) from the saved catalog it changes; undefined when it cannot be written so. */
  async assembleDelta(delta: CatalogDelta, signal?: AbortSignal): Promise<AssembledCatalog | undefined> {
    const { shared, engine } = this.#options;
    if (engine.mode === 'lexical') return undefined;
    if (shared.catalog(catalogKeyOf(delta, engine)) !== undefined) return { embedded: 0, tokenised: 0 };
    const base = shared.catalog(catalogKeyOf(delta.base, engine));
    if (base === undefined) return undefined;
    const change = await changeOfDeltaAlone(this.#options, delta, base, signal);
    return change === undefined ? undefined : this.#assembleFrom(delta, base, change, signal);
  }

  /** {@link assemble}'s change of `base`: each skill whose member is the base's of the same id kept by its document there. */
  #changeFrom(base: StoredCatalog, skills: readonly Skill[], glosses: ReadonlyMap<string, string>): BaseChange | undefined {
    const stored = this.#options.shared.members(base.id);
    const before = stored.all();
    const docOf = new Map(before.map((m, doc) => [m.id, doc]));
    const members = skills.map((skill) => {
      const at = docOf.get(skill.id);
      const m = memberOf(skill, glosses.get(skill.id));
      const old = at === undefined ? undefined : before[at];
      return old?.record === m.record && old.lexicalKey === m.lexicalKey && old.vectorKey === m.vectorKey && old.name === m.name ? at! : skill;
    });
    return changeOfDelta({ members, baseIds: before.map((m) => m.id) }, base, stored, (skill) => glosses.get(skill.id));
  }

  /**
   * Writes the catalog `change` makes of `base`: its sum moved by the vectors of the members that
   * left and came, its graph by their labels (or, every member in place, an overlay naming the
   * base's graph). Undefined when `base` cannot serve: the catalog is then written whole.
   */
  async #assembleFrom(
    catalog: SnapshotCatalog,
    base: StoredCatalog,
    change: BaseChange,
    signal: AbortSignal | undefined,
  ): Promise<AssembledCatalog | undefined> {
    const { shared, engine, model, dimensions } = this.#options;
    const { docs, gone, added } = change;
    const moved = await changeVectors(this.#options, base, change, signal);
    if (moved === undefined) return undefined;
    const { sum, vectorOf, graphed } = moved;
    const labels = shared.labels(model, [...gone, ...added]);
    if (added.some((key) => !labels.has(key) || vectorOf(key) === undefined)) return undefined;
    let graph: LabelGraph | string | undefined;
    if (graphed && change.inPlace) {
      graph = base.graph!;
    } else if (graphed) {
      // Not when the base's graph holds another catalog's members.
      if (base.graphHolder !== undefined && base.graphHolder !== base.id) return undefined;
      const file = shared.graphFile(base.graph!);
      if (file === undefined) return undefined;
      try {
        graph = LabelGraph.load(file, dimensions, engine.hnsw);
      } catch {
        return undefined;
      }
      graph.update(
        gone.flatMap((key) => labels.get(key) ?? []),
        added.map((key) => [labels.get(key)!, vectorOf(key)!] as const),
      );
      if (graph.tooStale(change.distinct)) return undefined;
    }
    const tokenised = this.#putCatalog(catalog, {
      members: docs,
      base: base.id,
      mean: meanOf(sum, docs.length),
      sum,
      graph: () => graph,
      entryOf: change.entryOf,
    });
    return tokenised === undefined ? undefined : { embedded: moved.embedded, tokenised };
  }

  /** Whether the store holds the catalog of these stamps (a copy's base, `SkillCatalog.editedCopyOf`). */
  holds(stamps: ReadStamps): boolean {
    const { shared, engine } = this.#options;
    return shared.catalog(catalogKeyOf(stamps, engine)) !== undefined;
  }

  /** A changed catalog held in memory over the saved one, not written ({@link holdDelta}). */
  holdDelta(delta: CatalogDelta, signal?: AbortSignal): Promise<HeldCatalog | undefined> {
    return holdDelta(this.#options, delta, signal);
  }

  /** A catalog at another path held in memory over the saved one, not written ({@link holdMoved}); `moved` as `movedBase` told it. */
  holdMoved(moved: MovedCatalog, signal?: AbortSignal): Promise<HeldCatalog | undefined> {
    return holdMoved(this.#options, moved, signal);
  }

  /** {@link assemble} with every member's vector read from the store. */
  async #assembleWhole(
    catalog: SnapshotCatalog,
    desired: ReadonlyMap<string, Skill>,
    glosses: ReadonlyMap<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<AssembledCatalog | undefined> {
    const vectors = this.#options.liveVectors();
    const found = await vectors.missing(desired.values(), signal);
    throwIfAborted(signal);
    // A vector the store could not label is labelled locally: `write` then refuses the catalog.
    vectors.apply(desired, found);
    const tokenised = this.write(catalog, [...desired.values()], glosses, vectors.load());
    return tokenised === undefined ? undefined : { embedded: found.embedded, tokenised };
  }

  /** Writes the graph (when there is one) and the catalog row; returns how many lexical entries were tokenised, or undefined when the store failed. */
  #putCatalog(
    catalog: SnapshotCatalog,
    written: {
      readonly members: readonly (CatalogMember | number)[];
      readonly base?: number;
      readonly mean: Float32Array;
      readonly sum: Float64Array;
      /** A graph to save, or the file of a saved one the catalog names as it is. */
      readonly graph: () => LabelGraph | string | undefined;
      /** The lexical entry of a written member (called only for those the store lacks). */
      readonly entryOf: (doc: number) => LexicalEntry;
    },
  ): number | undefined {
    const { shared, engine } = this.#options;
    const key = catalogKeyOf(catalog, engine);
    let tokenised = 0;
    try {
      const graph = written.graph();
      let file = typeof graph === 'string' ? graph : undefined;
      if (graph !== undefined && typeof graph !== 'string') {
        file = `${createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 16)}-${Date.now().toString(36)}-${process.pid}.usearch`;
        const target = shared.graphFile(file);
        if (target === undefined) return undefined;
        graph.save(target);
      }
      const id = shared.putCatalog({
        ...key,
        sourceStamp: catalog.sourceStamp,
        diagnostics: JSON.stringify(catalog.diagnostics),
        members: written.members,
        base: written.base,
        mean: written.mean,
        sum: written.sum,
        graph: file,
        lexicalEntry: (doc) => {
          tokenised += 1;
          return written.entryOf(doc);
        },
      });
      if (id < 0) return undefined;
    } catch (error) {
      if (!isSystemError(error)) throw error;
      this.#problem ??= errorMessage(error);
      return undefined;
    }
    return tokenised;
  }
}

/** An error from a system call (Node's fs errors carry the errno `code` and the `syscall`). */
function isSystemError(error: unknown): boolean {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  return typeof code === 'string' && typeof syscall === 'string';
}
