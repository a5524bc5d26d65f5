import { createHash } from 'node:crypto';
import path from 'node:path';
import { SkillSearchError, errorMessage, throwIfAborted } from '../errors.js';
import { CrossLingual } from '../lang/cross-lingual.js';
import { lexicalEntry, lexicalKey } from '../lexical/lexical-entry.js';
import { LexicalIndex } from '../lexical/lexical-index.js';
import { STORE_DEFAULTS, type CatalogMember, type StoredCatalog } from '../store/entry-store.js';
import { SharedStore } from '../store/shared-store.js';
import type { Diagnostic, Skill } from '../types.js';
import { CatalogVectors, meanOf } from '../vector-index/catalog-vectors.js';
import type { DenseSide } from '../vector-index/dense-side.js';
import { LabelGraph } from '../vector-index/label-graph.js';
import { applyDiff } from './apply-diff.js';
import { catalogKey, catalogModel, CATALOG_FORMAT } from './catalog-format.js';
import { normalizeName } from './exact-name.js';
import { resolveEngineOptions, type EngineOptions, type ResolvedEngineOptions } from './options.js';
import { RankedSearch, Ranker, type RankedCatalog } from './ranker.js';
import { EMBEDDING_TEXT_VERSION, glossedEmbeddingText, vectorKey } from './skill-text.js';

/** With an `onProgress`, embedding goes in calls of at most this many texts (a report after each). */
const PROGRESS_EVERY_SKILLS = 64;
/**
 * Labels of vectors the store could not name (it failed or was busy) start here, far above any
 * rowid the store hands out; a catalog holding one is not saved.
 */
const LOCAL_LABELS = 2 ** 48;

export interface SyncOptions {
  readonly signal?: AbortSignal;
  /** Called as embedding progresses: `done` of `total` skills that needed a new vector. */
  readonly onProgress?: (done: number, total: number) => void;
  /**
   * Bring the vector index up to date now (embedding new skills).
   * When false only the lexical side is synced and the vectors catch up at the first dense or
   * hybrid search, so a lexical-only process never loads them.
   * @default true unless the engine's default `mode` is `lexical`
   */
  readonly dense?: boolean;
}

export interface SyncResult {
  readonly added: number;
  readonly updated: number;
  readonly removed: number;
  readonly unchanged: number;
  /** Skills whose vector came from the embedder (the rest were stored already). */
  readonly embedded: number;
}

export interface EngineInfo {
  readonly model: string;
  readonly dimensions: number;
  readonly ann: 'hnsw' | 'exact';
  readonly skills: number;
  /** Where saved catalogs go: the store's file, or `memory` without one. */
  readonly store: string;
}

type Counts = Omit<SyncResult, 'embedded'>;

/** What {@link SkillSearchEngine.assembleCatalog} cost: skills embedded and lexical entries tokenised. */
export interface AssembledCatalog {
  readonly embedded: number;
  readonly tokenised: number;
}

/** The catalog a live engine saves in the store (`LiveIndex` passes what it last synced). */
export interface SnapshotCatalog {
  readonly sourceStamp: string;
  /** Its stamp without the working folder: the catalog is saved under it, so every folder over the same skills finds it. */
  readonly portableStamp?: string | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * The live search engine: keeps a lexical index and the vectors of a catalog in memory, in step
 * with the skills it is given (`sync`), embeds only content the store has no vector for, and
 * saves the synced catalog in the store (`saveCatalog`) for cold processes (`stored-search.ts`).
 * Ranking is the {@link Ranker}'s.
 *
 * Invariants: `#skills` and the lexical index always hold the same ids; the vectors hold them too
 * unless `#denseStale`, in which case every dense or hybrid search first brings them up to date
 * (queued like a sync). A sync awaits every embedding first and then mutates the indexes in one
 * synchronous block, so a concurrent `search` sees the old catalog or the new one.
 */
export class SkillSearchEngine extends RankedSearch {
  readonly options: ResolvedEngineOptions;
  readonly #model: string;
  readonly #dimensions: number;
  /** Query routing and skill glosses across languages (`src/lang/`). */
  readonly #language: CrossLingual;
  readonly #ranker: Ranker;
  /** The store shared across folders and processes (`options.store`, or `store.sqlite` in `indexDir`). */
  readonly #shared: SharedStore | undefined;
  #vectors: CatalogVectors | undefined;
  #denseStale = false;
  /** The first failure to save the catalog (see {@link saveProblem}). */
  #saveProblem: string | undefined;
  #lexical = new LexicalIndex();
  /** The catalog as last synced; replaced whole by each sync, never changed in place. */
  #skills: ReadonlyMap<string, Skill> = new Map();
  #names = new Map<string, string[]>();
  /**
   * The catalog the vectors were last brought to. Skill objects are immutable: one passed to
   * the previous sync again is unchanged, so a sync checks only the others (one map lookup per
   * skill instead of hashing its text); `#skills` serves the lexical side alike.
   */
  #denseSkills: ReadonlyMap<string, Skill> = new Map();
  /** The lexical glosses each glossed skill was indexed with. */
  #lexicalGlosses: ReadonlyMap<string, string> = new Map();
  /** `CrossLingual.glossesEpoch` when `#lexicalGlosses` was taken. */
  #glossesEpoch = -1;
  /** Bumped whenever `#skills` and the lexical index are brought to a new catalog. */
  #generation = 0;
  /** Local labels handed out (see {@link LOCAL_LABELS}). */
  #localLabels = 0;
  /** `#generation` when the catalog was last saved, with its key. */
  #saved: { generation: number; key: string } | undefined;
  #syncing: Promise<unknown> = Promise.resolve();
  #closing: Promise<void> | undefined;

  private constructor(options: ResolvedEngineOptions, dimensions: number) {
    super();
    this.options = options;
    this.#model = `${options.embedder.id}#${EMBEDDING_TEXT_VERSION}`;
    this.#dimensions = dimensions;
    const store = options.store ?? (options.indexDir === undefined ? undefined : path.join(options.indexDir, STORE_DEFAULTS.file));
    this.#shared = store === undefined ? undefined : new SharedStore(store);
    // CJK skills' languages and glosses are kept in the store.
    this.#language = new CrossLingual({
      ...options.crossLingual,
      multilingual: options.embedder.multilingual === true,
      ...(this.#shared === undefined ? {} : { cache: this.#shared }),
    });
    const engine = this;
    const catalog: RankedCatalog = {
      get size() {
        return engine.#skills.size;
      },
      get generation() {
        return engine.#generation;
      },
      skill: (id) => this.#skills.get(id),
      idsNamed: (name) => this.#names.get(name),
      get lexical() {
        return engine.#lexical;
      },
      dense: (signal) => this.#denseReady(signal),
    };
    this.#ranker = new Ranker({ engine: options, dimensions, language: this.#language, catalog });
  }

  static async open(options: EngineOptions): Promise<SkillSearchEngine> {
    const resolved = resolveEngineOptions(options);
    let dimensions = resolved.embedder.dimensions;
    if (!(dimensions > 0)) {
      const [probe] = await resolved.embedder.embed(['dimension probe']);
      dimensions = probe?.length ?? 0;
    }
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw new SkillSearchError('INTERNAL', `embedder ${resolved.embedder.id} reports ${String(dimensions)} dimensions`);
    }
    return new SkillSearchEngine(resolved, dimensions);
  }

  get size(): number {
    return this.#skills.size;
  }

  get info(): EngineInfo {
    return {
      model: this.options.embedder.id,
      dimensions: this.#dimensions,
      ann: this.options.ann,
      skills: this.#skills.size,
      store:
        this.#shared === undefined
          ? 'memory'
          : typeof this.options.store === 'object'
            ? 'given'
            : (this.options.store ?? path.join(this.options.indexDir!, STORE_DEFAULTS.file)),
    };
  }

  /** Why the catalog could not be saved, when a save failed (the engine answered from memory); undefined otherwise. */
  get saveProblem(): string | undefined {
    return this.#saveProblem ?? this.#shared?.problem;
  }

  /** True when {@link saveCatalog} would write `catalog` (this engine has not, and the store does not hold it). */
  needsCatalogSave(catalog: SnapshotCatalog): boolean {
    if (this.#shared === undefined || this.#denseStale || this.#vectors === undefined || this.#skills.size === 0) return false;
    const key = catalogKey(catalog.portableStamp ?? catalog.sourceStamp, this.options);
    if (this.#saved?.generation === this.#generation && this.#saved.key === JSON.stringify(key)) return false;
    return this.#shared.catalog(key) === undefined;
  }

  /**
   * Saves the synced catalog in the store for cold processes: one row, its members (each skill as
   * JSON, read only when a query returns it), its lexical index, the mean of its vectors and,
   * above the exact-search size, the graph file that serves it (derived from the last saved
   * graph). Returns whether it was written; a store that fails costs only the next cold process
   * its shortcut ({@link saveProblem}).
   */
  saveCatalog(catalog: SnapshotCatalog): boolean {
    const shared = this.#shared;
    const vectors = this.#vectors;
    if (shared === undefined || vectors === undefined || !this.needsCatalogSave(catalog)) return false;
    const key = catalogKey(catalog.portableStamp ?? catalog.sourceStamp, this.options);
    if (this.#writeCatalog(shared, catalog, [...this.#skills.values()], this.#lexicalGlosses, vectors) === undefined) return false;
    this.#saved = { generation: this.#generation, key: JSON.stringify(key) };
    return true;
  }

  /**
   * Writes the catalog of `skills` (their lexical glosses, their vectors in `vectors`) in the
   * store; returns how many lexical entries were tokenised for it (those the store lacked), or
   * undefined when it was not written (a skill without a stored vector, a store that failed).
   */
  #writeCatalog(
    shared: SharedStore,
    catalog: SnapshotCatalog,
    skills: readonly Skill[],
    glosses: ReadonlyMap<string, string>,
    vectors: CatalogVectors,
  ): number | undefined {
    for (const skill of skills) {
      const label = vectors.labelOf(skill.id);
      if (label === undefined || label >= LOCAL_LABELS) return undefined;
    }
    const members = skills.map((skill) => memberOf(skill, glosses.get(skill.id)));
    return this.#putCatalog(shared, catalog, skills, glosses, { members, mean: vectors.mean(), sum: vectors.sum(), graph: () => vectors.graph() });
  }

  /**
   * Writes the graph (when there is one) and the catalog row with its members; returns how many
   * lexical entries were tokenised, or undefined when the store failed.
   */
  #putCatalog(
    shared: SharedStore,
    catalog: SnapshotCatalog,
    skills: readonly Skill[],
    glosses: ReadonlyMap<string, string>,
    written: {
      readonly members: readonly (CatalogMember | number)[];
      readonly base?: number;
      readonly mean: Float32Array;
      readonly sum: Float64Array;
      readonly graph: () => LabelGraph | undefined;
    },
  ): number | undefined {
    const key = catalogKey(catalog.portableStamp ?? catalog.sourceStamp, this.options);
    let tokenised = 0;
    try {
      const graph = written.graph();
      let file: string | undefined;
      if (graph !== undefined) {
        file = `${createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 16)}-${Date.now().toString(36)}-${process.pid}.usearch`;
        graph.save(path.join(shared.graphDir, file));
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
          return lexicalEntry(skills[doc]!, glosses.get(skills[doc]!.id));
        },
      });
      if (id < 0) return undefined;
    } catch (error) {
      if (!isSystemError(error)) throw error;
      this.#saveProblem ??= errorMessage(error);
      return undefined;
    }
    return tokenised;
  }

  /**
   * Writes the catalog of `catalog.skills` in the store without syncing this engine: what a cold
   * process does when the disk moved since the last saved catalog (one description changed).
   * Only the skills whose content the store lacks are embedded and tokenised; the other vectors
   * are read from the store, the graph derived from the last saved one, so the catalog answers
   * as a clean build of the same skills would. For a new engine (nothing synced); returns what
   * it cost, or undefined when nothing was written (no catalog saved before for this model, a
   * lexical-only engine, a store that failed).
   */
  async assembleCatalog(catalog: SnapshotCatalog & { readonly skills: readonly Skill[] }, signal?: AbortSignal): Promise<AssembledCatalog | undefined> {
    this.assertOpen();
    const shared = this.#shared;
    if (shared === undefined || this.#generation !== 0 || this.options.mode === 'lexical') return undefined;
    const base = shared.latestCatalog(catalogModel(this.options), CATALOG_FORMAT);
    if (base === undefined) return undefined;
    if (shared.catalog(catalogKey(catalog.portableStamp ?? catalog.sourceStamp, this.options)) !== undefined) return { embedded: 0, tokenised: 0 };
    const desired = new Map<string, Skill>();
    for (const skill of catalog.skills) if (!desired.has(skill.id)) desired.set(skill.id, skill);
    if (desired.size === 0) return undefined;
    await this.#language.prepare(desired.values(), signal);
    const skills = [...desired.values()];
    const glosses = new Map<string, string>();
    for (const skill of skills) {
      const lexical = this.#language.glossesOf(skill)?.lexical;
      if (lexical !== undefined) glosses.set(skill.id, lexical);
    }
    return (await this.#assembleFrom(shared, catalog, base, skills, glosses, signal)) ?? this.#assembleWhole(shared, catalog, desired, glosses, signal);
  }

  /**
   * {@link assembleCatalog} from `base`, a saved catalog it mostly keeps: its unchanged members
   * are copied in the store, its float64 sum moved by the vectors of the members that left and
   * came, its graph by their labels; only those vectors are read. Undefined when `base` cannot
   * serve (saved without a sum, or without the graph the new catalog needs): the catalog is then
   * written whole.
   */
  async #assembleFrom(
    shared: SharedStore,
    catalog: SnapshotCatalog,
    base: StoredCatalog,
    skills: readonly Skill[],
    glosses: ReadonlyMap<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<AssembledCatalog | undefined> {
    if (base.sum === undefined || base.sum.length !== this.#dimensions) return undefined;
    const members = skills.map((skill) => memberOf(skill, glosses.get(skill.id)));
    const distinct = new Set(members.map((m) => m.vectorKey));
    const graphed = CatalogVectors.graphs({ kind: this.options.ann }, distinct.size);
    if (graphed && base.graph === undefined) return undefined;
    const before = shared.members(base.id).all();
    const docOf = new Map(before.map((m, doc) => [m.id, doc]));
    const kept = new Uint8Array(before.length);
    const docs: (CatalogMember | number)[] = [];
    const coming = new Map<string, Skill>();
    members.forEach((m, doc) => {
      const at = docOf.get(m.id);
      const old = at === undefined ? undefined : before[at]!;
      if (old !== undefined && old.record === m.record && old.lexicalKey === m.lexicalKey && old.vectorKey === m.vectorKey && old.name === m.name) {
        docs.push(at!);
        kept[at!] = 1;
      } else {
        docs.push(m);
        coming.set(m.vectorKey, skills[doc]!);
      }
    });
    const leaving = before.filter((_, doc) => kept[doc] === 0).map((m) => m.vectorKey);
    const found = await this.#storedOrEmbedded(coming, signal);
    throwIfAborted(signal);
    const left = shared.vectors(
      this.#model,
      this.#dimensions,
      [...new Set(leaving)].filter((key) => !found.vectors.has(key)),
    );
    const vectorOf = (key: string): Float32Array | undefined => found.vectors.get(key) ?? left.get(key);
    const sum = base.sum.slice();
    const move = (key: string, sign: 1 | -1): boolean => {
      const vector = vectorOf(key);
      if (vector?.length !== this.#dimensions) return false;
      for (let i = 0; i < vector.length; i += 1) sum[i]! += sign * vector[i]!;
      return true;
    };
    if (!leaving.every((key) => move(key, -1)) || !docs.every((m) => typeof m === 'number' || move(m.vectorKey, 1))) return undefined;
    const held = new Set(before.map((m) => m.vectorKey));
    const gone = [...held].filter((key) => !distinct.has(key));
    const added = [...distinct].filter((key) => !held.has(key));
    const labels = shared.labels(this.#model, [...gone, ...added]);
    if (added.some((key) => !labels.has(key) || vectorOf(key) === undefined)) return undefined;
    let graph: LabelGraph | undefined;
    if (graphed) {
      try {
        graph = LabelGraph.load(path.join(shared.graphDir, base.graph!), this.#dimensions, this.options.hnsw);
      } catch {
        return undefined;
      }
      graph.update(
        gone.flatMap((key) => labels.get(key) ?? []),
        added.map((key) => [labels.get(key)!, vectorOf(key)!] as const),
      );
    }
    const tokenised = this.#putCatalog(shared, catalog, skills, glosses, {
      members: docs,
      base: base.id,
      mean: meanOf(sum, docs.length),
      sum,
      graph: () => graph,
    });
    return tokenised === undefined ? undefined : { embedded: found.embedded, tokenised };
  }

  /** {@link assembleCatalog} with every member's vector read from the store. */
  async #assembleWhole(
    shared: SharedStore,
    catalog: SnapshotCatalog,
    desired: ReadonlyMap<string, Skill>,
    glosses: ReadonlyMap<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<AssembledCatalog | undefined> {
    const vectors = this.#newVectors(true);
    const found = await this.#embedMissing(vectors, desired.values(), signal);
    throwIfAborted(signal);
    const labels = shared.labels(this.#model, [...found.vectors.keys()]);
    for (const [id, skill] of desired) {
      const key = vectorKey(skill);
      const vector = found.vectors.get(key);
      const label = labels.get(key);
      if (vector === undefined || label === undefined) return undefined;
      vectors.set(id, key, vector, label);
    }
    const tokenised = this.#writeCatalog(shared, catalog, [...desired.values()], glosses, vectors);
    return tokenised === undefined ? undefined : { embedded: found.embedded, tokenised };
  }

  /**
   * Collects the store's entries no one used for `STORE_DEFAULTS.collectAfterDays`; returns how
   * many went. For processes off a prompt's path (`skill-search index`).
   */
  collectStore(): number {
    return this.#shared?.collect(STORE_DEFAULTS.collectAfterDays) ?? 0;
  }

  /**
   * Makes the indexes hold exactly `skills` (by id; first wins on duplicate ids). Only skills
   * whose content hash has no stored vector are embedded. Calls are serialised. With
   * `dense: false` the counts are the lexical index's and nothing is embedded yet.
   */
  async sync(skills: readonly Skill[], options: SyncOptions = {}): Promise<SyncResult> {
    this.assertOpen();
    const run = this.#syncing.then(() => this.#sync(skills, options));
    this.#syncing = run.catch(() => undefined);
    return run;
  }

  async #sync(skills: readonly Skill[], { signal, onProgress, dense }: SyncOptions): Promise<SyncResult> {
    throwIfAborted(signal);
    const desired = new Map<string, Skill>();
    for (const skill of skills) if (!desired.has(skill.id)) desired.set(skill.id, skill);
    await this.#language.prepare(desired.values(), signal);

    const withDense = dense ?? this.options.mode !== 'lexical';
    const state = withDense ? this.#loadDense() : undefined;
    const found = state === undefined ? undefined : await this.#embedMissing(state, desired.values(), signal, onProgress);
    throwIfAborted(signal);

    const first = this.#generation === 0;
    const lexical = this.#applyLexical(desired);
    // A new engine holds nothing yet: its first counts say what changed since the last saved catalog.
    const since = (counts: Counts): Counts => (first ? (this.#sinceLastSaved(desired) ?? counts) : counts);
    if (state === undefined || found === undefined) {
      this.#denseStale = true;
      return { ...since(lexical), embedded: 0 };
    }
    const { counts, embedded } = this.#applyDenseOrRebuild(state, desired, found);
    this.#denseStale = false;
    return { ...since(counts), embedded };
  }

  /** How `desired` differs from the catalog of this model saved last, by lexical key; undefined when none was. */
  #sinceLastSaved(desired: ReadonlyMap<string, Skill>): Counts | undefined {
    const latest = this.#shared?.latestCatalog(catalogModel(this.options), CATALOG_FORMAT);
    if (latest === undefined) return undefined;
    const saved = this.#shared!.members(latest.id).lexicalKeys();
    let added = 0;
    let updated = 0;
    let unchanged = 0;
    for (const [id, skill] of desired) {
      const key = saved.get(id);
      if (key === undefined) added += 1;
      else if (key === lexicalKey(skill, this.#lexicalGlosses.get(id))) unchanged += 1;
      else updated += 1;
    }
    return { added, updated, unchanged, removed: saved.size - updated - unchanged };
  }

  /**
   * {@link #applyDense}, and when the graph fails in the middle (`INDEX_CORRUPT`: the native graph
   * refused a change), the vectors are laid out anew without a base graph: a broken graph costs
   * time, never the process.
   */
  #applyDenseOrRebuild(
    state: CatalogVectors,
    desired: ReadonlyMap<string, Skill>,
    found: { readonly vectors: Map<string, Float32Array>; readonly embedded: number },
  ): { counts: Counts; embedded: number } {
    try {
      return { counts: this.#applyDense(state, desired, found.vectors), embedded: found.embedded };
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
      this.#denseSkills = new Map();
      return { counts: this.#applyDense(fresh, desired, vectors), embedded: found.embedded };
    }
  }

  #newVectors(withBase: boolean): CatalogVectors {
    const shared = this.#shared;
    const model = catalogModel(this.options);
    return new CatalogVectors({
      kind: this.options.ann,
      dimensions: this.#dimensions,
      hnsw: this.options.hnsw,
      ...(shared === undefined || !withBase
        ? {}
        : {
            base: () => {
              const latest = shared.latestGraph(model, CATALOG_FORMAT);
              if (latest === undefined || shared.graphDir === '') return undefined;
              return { file: path.join(shared.graphDir, latest.graph), labels: shared.members(latest.catalog).labels() };
            },
          }),
    });
  }

  #loadDense(): CatalogVectors {
    this.#vectors ??= this.#newVectors(true);
    return this.#vectors;
  }

  /**
   * Synchronous: the vectors hold `desired`, each from `embedded` or held already under its
   * content key, labelled by the store.
   */
  #applyDense(state: CatalogVectors, desired: ReadonlyMap<string, Skill>, embedded: ReadonlyMap<string, Float32Array>): Counts {
    const previous = this.#denseSkills;
    const incoming = new Map<string, { key: string; vector: Float32Array }>();
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
        const labels = this.#shared?.labels(this.#model, keys) ?? new Map<string, number>();
        for (const key of keys) if (!labels.has(key)) labels.set(key, this.#shared === undefined ? this.#localLabels++ : LOCAL_LABELS + this.#localLabels++);
        this.#pendingLabels = labels;
      },
      remove: (id) => state.remove(id),
      upsert: (id) => {
        const next = incoming.get(id);
        if (next === undefined) return 'unchanged';
        const had = state.has(id);
        state.set(id, next.key, next.vector, this.#pendingLabels.get(next.key) ?? -1);
        return had ? 'updated' : 'added';
      },
    });
    this.#pendingLabels = new Map();
    this.#denseSkills = desired;
    return counts;
  }

  /** Labels of the keys a running {@link #applyDense} adds. */
  #pendingLabels = new Map<string, number>();

  /** The vector side, first brought up to the current catalog when a lexical-only sync left it behind. */
  #denseReady(signal?: AbortSignal): Promise<DenseSide> {
    if (!this.#denseStale && this.#vectors !== undefined) return Promise.resolve(this.#vectors);
    const run = this.#syncing.then(async () => {
      const state = this.#loadDense();
      if (!this.#denseStale) return state;
      // Queued behind every sync and ahead of later ones, so `#skills` cannot move meanwhile.
      const skills = this.#skills;
      const found = await this.#embedMissing(state, skills.values(), signal);
      throwIfAborted(signal);
      this.#applyDenseOrRebuild(state, skills, found);
      this.#denseStale = false;
      return this.#vectors ?? state;
    });
    this.#syncing = run.catch(() => undefined);
    return run;
  }

  /**
   * The vectors of the skills whose content key no entry of the vector index holds (a renamed
   * skill, or one with the same text as another, reuses the stored vector), by key: from the
   * shared store when it has them (a folder whose skills were seen elsewhere embeds nothing),
   * else embedded and then added to it. `embedded` counts those the model made.
   */
  async #embedMissing(
    state: CatalogVectors,
    skills: Iterable<Skill>,
    signal?: AbortSignal,
    onProgress?: SyncOptions['onProgress'],
  ): Promise<{ vectors: Map<string, Float32Array>; embedded: number }> {
    const missing = new Map<string, Skill>();
    for (const skill of skills) {
      if (this.#denseSkills.get(skill.id) === skill) continue;
      const key = vectorKey(skill);
      if (state.vectorOfKey(key) === undefined) missing.set(key, skill);
    }
    return this.#storedOrEmbedded(missing, signal, onProgress);
  }

  /** The vectors of `missing` (skills by content key) from the store, the others embedded and stored. */
  async #storedOrEmbedded(
    missing: Map<string, Skill>,
    signal?: AbortSignal,
    onProgress?: SyncOptions['onProgress'],
  ): Promise<{ vectors: Map<string, Float32Array>; embedded: number }> {
    const shared = this.#shared?.vectors(this.#model, this.#dimensions, [...missing.keys()]) ?? new Map<string, Float32Array>();
    for (const key of shared.keys()) missing.delete(key);
    const made = await this.#embed(missing, signal, onProgress);
    this.#shared?.putVectors(this.#model, made);
    for (const [key, vector] of shared) made.set(key, vector);
    return { vectors: made, embedded: made.size - shared.size };
  }

  /** Embeds `missing` (skills by content key) in batches; returns the vectors by key. */
  async #embed(missing: ReadonlyMap<string, Skill>, signal?: AbortSignal, onProgress?: SyncOptions['onProgress']): Promise<Map<string, Float32Array>> {
    // Skills with the same text (forks, republished copies) share one embedding.
    const keysByText = new Map<string, string[]>();
    for (const [key, skill] of missing) {
      const text = glossedEmbeddingText(skill, this.#language.glossesOf(skill)?.dense);
      const keys = keysByText.get(text);
      if (keys === undefined) keysByText.set(text, [key]);
      else keys.push(key);
    }
    const pending = [...keysByText];
    const embedded = new Map<string, Float32Array>();
    onProgress?.(0, missing.size);
    // Someone watching gets a report at least every PROGRESS_EVERY_SKILLS texts.
    const step = onProgress === undefined ? this.options.batchSize : Math.min(this.options.batchSize, PROGRESS_EVERY_SKILLS);
    for (let start = 0; start < pending.length; start += step) {
      throwIfAborted(signal);
      const batch = pending.slice(start, start + step);
      const vectors = await this.options.embedder.embed(
        batch.map(([text]) => text),
        signal,
        'passage',
      );
      batch.forEach(([, keys], i) => {
        for (const key of keys) embedded.set(key, vectors[i]!);
      });
      onProgress?.(embedded.size, missing.size);
    }
    return embedded;
  }

  /** Synchronous: the lexical index, `#skills` and `#names` now hold `desired` (which the engine keeps). */
  #applyLexical(desired: ReadonlyMap<string, Skill>): Counts {
    this.#generation += 1;
    const lexical = this.#lexical;
    const previous = this.#skills;
    let removed = 0;
    // Glosses of a skill seen before change only when the language step says so (its epoch).
    const glossesKept = this.#glossesEpoch === this.#language.glossesEpoch;
    const glossed = glossesKept ? new Map(this.#lexicalGlosses) : new Map<string, string>();
    if (!glossesKept) {
      for (const [id, skill] of desired) {
        const glosses = this.#language.glossesOf(skill)?.lexical;
        if (glosses !== undefined) glossed.set(id, glosses);
      }
    }
    let renamed = false;
    const counts = applyDiff(desired, {
      size: lexical.size,
      ids: () => lexical.ids(),
      has: (id) => lexical.has(id),
      holds: glossesKept
        ? (id, skill) => previous.get(id) === skill
        : (id, skill) => previous.get(id) === skill && this.#lexicalGlosses.get(id) === glossed.get(id),
      remove: (id) => {
        lexical.remove(id);
        glossed.delete(id);
        removed += 1;
      },
      upsert: (id, skill) => {
        const glosses = this.#language.glossesOf(skill)?.lexical;
        if (glosses === undefined) glossed.delete(id);
        else glossed.set(id, glosses);
        if (previous.get(id)?.name !== skill.name) renamed = true;
        const had = lexical.has(id);
        if (!lexical.upsert(skill, glosses)) return 'unchanged';
        return had ? 'updated' : 'added';
      },
    });
    // Equal lexical scores are listed in catalog order, as a clean build of `desired` lists them.
    lexical.arrange(desired.keys());
    this.#skills = desired;
    this.#lexicalGlosses = glossed;
    this.#glossesEpoch = this.#language.glossesEpoch;
    if (renamed || removed > 0 || previous.size !== desired.size) {
      // Rebuilt in catalog order, so skills sharing a name keep the order they are listed in.
      this.#names = new Map();
      for (const skill of desired.values()) {
        const name = normalizeName(skill.name);
        const ids = this.#names.get(name);
        if (ids === undefined) this.#names.set(name, [skill.id]);
        else ids.push(skill.id);
      }
    }
    return counts;
  }

  /** Settles once every sync queued so far has (whether or not it succeeded). */
  idle(): Promise<void> {
    return this.#syncing.then(() => undefined);
  }

  /** Idempotent; waits for a running sync, then releases the store. Later calls return the same promise. */
  close(): Promise<void> {
    this.#closing ??= this.#syncing.then(() => {
      this.#shared?.close();
    });
    return this.#closing;
  }

  protected ranker(): Ranker {
    return this.#ranker;
  }

  protected assertOpen(): void {
    if (this.#closing !== undefined) throw new SkillSearchError('INTERNAL', 'the search engine is closed');
  }
}

/** What the store keeps of `skill` as a catalog member (`glosses`: the lexical glosses it is indexed with). */
function memberOf(skill: Skill, glosses: string | undefined): CatalogMember {
  return { id: skill.id, name: normalizeName(skill.name), lexicalKey: lexicalKey(skill, glosses), vectorKey: vectorKey(skill), record: JSON.stringify(skill) };
}

/** An error from a system call (Node's fs errors carry the errno `code` and the `syscall`). */
function isSystemError(error: unknown): boolean {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  return typeof code === 'string' && typeof syscall === 'string';
}
