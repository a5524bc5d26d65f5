import path from 'node:path';
import { QueryEmbeddingCache } from '../embed/query-cache.js';
import { SkillSearchError, errorMessage, throwIfAborted } from '../errors.js';
import { LexicalIndex, type LexicalMatch, type LexicalSearcher } from '../lexical/lexical-index.js';
import { IndexFolder } from '../index-folder/index-folder.js';
import { loadLexicalIndex, saveLexicalIndex, type LexicalSource } from '../lexical/lexical-store.js';
import { CrossLingual } from '../lang/cross-lingual.js';
import { tokenize } from '../lexical/tokenize.js';
import type { AbstainSetting, Diagnostic, HitExplanation, SearchHit, SearchMode, SearchRequest, Skill, SkillSearcher } from '../types.js';
import { STORE_DEFAULTS, type ServedCatalog } from '../store/entry-store.js';
import { SharedStore } from '../store/shared-store.js';
import { VectorStore, type VectorStoreOptions, type VectorStoreStatus } from '../vector-index/store.js';
import { assertAbstainSetting, scoringDepth, shownCount, thresholdFor } from './abstention.js';
import { applyDiff } from './apply-diff.js';
import { boundaryOf } from './boundaries.js';
import { rankDense, rankHybrid, rankLexical, type RankedList } from './candidates.js';
import { Centroid } from './centering.js';
import { DenseQuery } from './dense-query.js';
import { findNamedSkills, normalizeName } from './exact-name.js';
import { denseShareFor } from './fusion.js';
import { assertMode, assertPositiveInteger, resolveEngineOptions, type EngineOptions, type ResolvedEngineOptions } from './options.js';
import { CHUNK_SEPARATOR, chunkListEmbedder, lexicallySettled, queryChunks, splitVectors } from './query-chunks.js';
import { relevanceFactors, relevanceFrom } from './relevance.js';
import {
  hasSearchSnapshot,
  openSearchSnapshot,
  saveSearchSnapshot,
  servedCatalogKey,
  SEARCH_SNAPSHOT_ARTEFACT,
  type OpenedSnapshot,
  type SnapshotIdentity,
} from './search-snapshot.js';
import { EMBEDDING_TEXT_VERSION, glossedEmbeddingText, vectorKey } from './skill-text.js';

/** With an `onProgress`, embedding goes in calls of at most this many texts (a report after each). */
const PROGRESS_EVERY_SKILLS = 64;

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
  /** Skills whose vector came from the embedder (the rest were in the index already). */
  readonly embedded: number;
}

export interface EngineInfo {
  readonly model: string;
  readonly dimensions: number;
  readonly ann: 'hnsw' | 'exact';
  readonly skills: number;
  /** How the persistent index was found at open (`rebuilt` carries the reason). */
  readonly index: VectorStoreStatus;
}

type Counts = Omit<SyncResult, 'embedded'>;

/** The model, text version and vector index kind a search snapshot is saved under. */
function snapshotModel(options: ResolvedEngineOptions): string {
  return `${options.embedder.id}#${EMBEDDING_TEXT_VERSION}|${options.ann}`;
}

/** A read-only engine over a search snapshot, with the catalog's load problems as saved. */
export interface OpenedEngine {
  readonly engine: SkillSearchEngine;
  readonly diagnostics: readonly Diagnostic[];
}

/** The catalog a search snapshot is saved for (`LiveIndex` passes what it last synced). */
export interface SnapshotCatalog {
  readonly sourceStamp: string;
  /** Its stamp without the working folder: recorded in the shared store so other folders find the snapshot. */
  readonly portableStamp?: string | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/** What `rank` gathers beyond the ranked list when a search is explained. */
interface RankExplanation {
  /** The lexical ranker's matches by id, each with its matched terms per field. */
  readonly lexical: ReadonlyMap<string, LexicalMatch>;
  readonly translation?: HitExplanation['translation'];
}

/** The vector side, loaded on first need: reading it costs far more than a lexical search. */
interface DenseState {
  readonly store: VectorStore;
  /** Of the vectors the index holds (their mean is kept by the store); dropped whenever they change. */
  centroid: Centroid | undefined;
}

/**
 * Hybrid skill retrieval, a façade over query → candidates (`candidates.ts`) → fusion
 * (`fusion.ts`) → relevance (`relevance.ts`) → abstention (`abstention.ts`): BM25 and sentence
 * embeddings (HNSW or exact), an exact-name fast path, every hit scored by its fitted relevance.
 * The engine itself keeps the lexical and vector indexes in step with the catalog.
 *
 * Invariants: `#skills` and the lexical index always hold the same ids; the vector index holds
 * them too unless `#denseStale`, in which case every dense or hybrid search first brings it up
 * to date (queued like a sync). A sync awaits every embedding first and then mutates the
 * indexes in one synchronous block, so a concurrent `search` sees the old catalog or the new one.
 */
export class SkillSearchEngine implements SkillSearcher {
  readonly options: ResolvedEngineOptions;
  readonly #model: string;
  readonly #dimensions: number;
  readonly #queries: QueryEmbeddingCache;
  /** A message's chunk vectors, one entry (and one model call) per message. */
  readonly #chunks: QueryEmbeddingCache;
  /** Query routing and skill glosses across languages (`src/lang/`). */
  readonly #language: CrossLingual;
  #dense: DenseState | undefined;
  #denseStale = false;
  /** The first failure to save the index folder (see {@link #persist}). */
  #saveProblem: string | undefined;
  /** The store shared across folders and processes, opened on first need (`options.store`). */
  readonly #shared: SharedStore | undefined;
  #lexical = new LexicalIndex();
  /**
   * What queries search: `#lexical`, or the read-only index of a search snapshot (then the
   * engine is read-only: see {@link SkillSearchEngine.openSnapshot}).
   */
  #lexicalSearch: LexicalSearcher = this.#lexical;
  #readOnly = false;
  /** The persisted lexical index was tried (it is only read into an empty engine). */
  #lexicalTried = false;
  /** The persisted lexical index holds exactly what `#lexical` holds. */
  #lexicalSaved = false;
  /** The index folder, opened on first need. */
  #folder: IndexFolder | undefined;
  /** The catalog as last synced; replaced whole by each sync, never changed in place. */
  #skills: ReadonlyMap<string, Skill> = new Map();
  #names = new Map<string, string[]>();
  /** The ids of the skills with a normalised name: `#names`, or a search snapshot's lookup. */
  #idsNamed: (name: string) => readonly string[] | undefined = (name) => this.#names.get(name);
  /** Releases what a search snapshot holds open (its file). */
  #releaseSnapshot: (() => void) | undefined;
  /**
   * The catalog the vector index was last brought to. Skill objects are immutable: one passed
   * to the previous sync again is unchanged, so a sync checks only the others (one map lookup
   * per skill instead of hashing its text); `#skills` serves the lexical side alike.
   */
  #denseSkills: ReadonlyMap<string, Skill> = new Map();
  /** The lexical glosses each glossed skill was indexed with. */
  #lexicalGlosses: ReadonlyMap<string, string> = new Map();
  /** `CrossLingual.glossesEpoch` when `#lexicalGlosses` was taken. */
  #glossesEpoch = -1;
  /** Bumped whenever `#skills` and the lexical index are brought to a new catalog. */
  #generation = 0;
  #syncing: Promise<unknown> = Promise.resolve();
  #closing: Promise<void> | undefined;

  private constructor(options: ResolvedEngineOptions, dimensions: number) {
    this.options = options;
    this.#model = `${options.embedder.id}#${EMBEDDING_TEXT_VERSION}`;
    this.#dimensions = dimensions;
    this.#queries = new QueryEmbeddingCache(options.embedder, options.queryCacheSize);
    this.#chunks = new QueryEmbeddingCache(chunkListEmbedder(options.embedder), options.queryCacheSize);
    // CJK skills' languages and glosses are kept in the index folder.
    this.#language = new CrossLingual({ ...options.crossLingual, multilingual: options.embedder.multilingual === true, cacheDir: options.indexDir });
    this.#shared = options.store === undefined ? undefined : new SharedStore(options.store);
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

  /**
   * A read-only engine over the search snapshot saved for the catalog stamped `sourceStamp`
   * (`search-snapshot.ts`; a promise lets the caller compute it while this loads), with the
   * catalog's load problems as saved, or why there is none:
   * what a cold process opens instead of syncing a large unchanged catalog. Its vectors are
   * loaded here, so a snapshot whose vector index cannot be read is refused rather than
   * searched lexically. `sync` on it throws.
   */
  static async openSnapshot(
    options: EngineOptions,
    sourceStamp: string | Promise<string | undefined>,
    portableStamp?: Promise<string | undefined>,
  ): Promise<OpenedEngine | { readonly reason: string }> {
    const opened = await SkillSearchEngine.#openOwnSnapshot(options, sourceStamp);
    if (!('reason' in opened) || portableStamp === undefined) return opened;
    // None for this folder: another folder's snapshot of the same catalog serves (docs/store.md).
    const served = SkillSearchEngine.#servedElsewhere(options, await portableStamp);
    if (served === undefined) return opened;
    const other = await SkillSearchEngine.#openOwnSnapshot({ ...options, indexDir: served.indexDir }, served.sourceStamp);
    return 'reason' in other ? { reason: `${opened.reason}; the snapshot of ${served.indexDir}: ${other.reason}` } : other;
  }

  /**
   * The index folder the shared store records as holding a search snapshot of the catalog
   * stamped `portableStamp` under this engine's model, when it is another folder.
   */
  static #servedElsewhere(options: EngineOptions, portableStamp: string | undefined): ServedCatalog | undefined {
    const { store: source, indexDir } = options;
    if (portableStamp === undefined || source === undefined || indexDir === undefined) return undefined;
    const store = new SharedStore(source);
    try {
      const served = store.servedCatalog(servedCatalogKey(portableStamp, snapshotModel(resolveEngineOptions(options))));
      return served === undefined || path.resolve(served.indexDir) === path.resolve(indexDir) ? undefined : served;
    } finally {
      // A store given as an object is the caller's to close.
      if (typeof source === 'string') store.close();
    }
  }

  static async #openOwnSnapshot(
    options: EngineOptions,
    sourceStamp: string | Promise<string | undefined>,
  ): Promise<OpenedEngine | { readonly reason: string }> {
    const engine = await SkillSearchEngine.open(options);
    const folder = engine.#indexFolder();
    if (folder === undefined) return { reason: 'no index folder' };
    // While the catalog's stamp is computed and the snapshot decoded, the model loads (a live
    // search needs it too) and the graph is read on the thread pool (when there is a snapshot).
    const warming = engine.options.embedder.warm?.();
    const vectors = folder.entry(SEARCH_SNAPSHOT_ARTEFACT) === undefined ? undefined : VectorStore.openSaved({ ...engine.#storeOptions(), folder });
    let stamp: string | undefined;
    try {
      stamp = await sourceStamp;
    } catch (error) {
      void vectors?.then((store) => ('reason' in store ? undefined : store.close()));
      throw error;
    }
    const opened: OpenedSnapshot | { readonly reason: string } =
      stamp === undefined ? { reason: 'a tools file cannot be read' } : await openSearchSnapshot(folder, engine.#snapshotIdentity(stamp));
    const [store] = await Promise.all([vectors ?? Promise.resolve({ reason: 'no search snapshot' }), warming]);
    if ('reason' in opened) {
      if (!('reason' in store)) store.close();
      return opened;
    }
    if ('reason' in store) {
      opened.close();
      return { reason: `vector index unusable: ${store.reason}` };
    }
    engine.#dense = { store, centroid: undefined };
    engine.#readOnly = true;
    engine.#skills = opened.skills;
    engine.#idsNamed = opened.idsNamed;
    engine.#releaseSnapshot = opened.close;
    engine.#lexicalSearch = opened.lexical;
    return { engine, diagnostics: opened.diagnostics };
  }

  /**
   * Saves what the engine holds as the search snapshot of the catalog stamped `catalog.sourceStamp`
   * (with its load problems), unless the folder has it already. Only a synced engine with
   * vectors saves one (a cold search needs them). Returns whether a snapshot was written.
   */
  saveSearchSnapshot(catalog: SnapshotCatalog): boolean {
    const folder = this.#indexFolder();
    if (folder === undefined || !this.needsSearchSnapshot(catalog.sourceStamp)) {
      this.#shareSnapshot(catalog);
      return false;
    }
    const identity = this.#snapshotIdentity(catalog.sourceStamp);
    saveSearchSnapshot(folder, identity, {
      skills: this.#skills.values(),
      diagnostics: catalog.diagnostics,
      nameOf: (skill) => normalizeName(skill.name),
      lexical: this.#lexical,
    });
    this.#shareSnapshot(catalog);
    return true;
  }

  /**
   * Records in the shared store that this folder holds the search snapshot of `catalog`, under
   * its portable stamp: a new project folder over the same catalog opens it instead of building
   * its own index. Only a live engine whose folder holds that snapshot records it.
   */
  #shareSnapshot(catalog: SnapshotCatalog): void {
    const folder = this.#indexFolder();
    const { indexDir } = this.options;
    if (this.#shared === undefined || folder === undefined || indexDir === undefined || catalog.portableStamp === undefined || this.#readOnly) return;
    const identity = this.#snapshotIdentity(catalog.sourceStamp);
    if (!hasSearchSnapshot(folder, identity)) return;
    this.#shared.putServedCatalog(servedCatalogKey(catalog.portableStamp, identity.model), {
      indexDir: path.resolve(indexDir),
      sourceStamp: catalog.sourceStamp,
    });
  }

  /**
   * Folds the vector index's delta log into its base files (`VectorStore.compact`), so cold
   * processes that open this folder replay nothing. Costs a rewrite of the graph (about half a
   * second at 24k skills): for a process off a prompt's path, after its sync.
   */
  compactIndex(): void {
    if (this.#readOnly || this.#denseStale || this.#dense === undefined) return;
    const store = this.#dense.store;
    this.#persist(() => store.compact());
  }

  /**
   * Adds the vectors of the synced catalog that the shared store lacks (those of an index built
   * before the store, or by an engine without one) and collects the entries no one used for
   * `STORE_DEFAULTS.collectAfterDays`; returns how many were added and collected. For processes
   * off a prompt's path (`skill-search index`).
   */
  shareVectors(): { readonly added: number; readonly collected: number } {
    const shared = this.#shared;
    const state = this.#dense;
    if (shared === undefined || state === undefined || this.#readOnly || this.#denseStale) return { added: 0, collected: 0 };
    const keys = new Set<string>();
    for (const skill of this.#skills.values()) keys.add(vectorKey(skill));
    const vectors = new Map<string, Float32Array>();
    for (const key of shared.missing(this.#model, [...keys])) {
      const vector = state.store.vectorOfTag(key);
      if (vector !== undefined) vectors.set(key, vector.slice());
    }
    shared.putVectors(this.#model, vectors);
    return { added: vectors.size, collected: shared.collect(STORE_DEFAULTS.collectAfterDays) };
  }

  /** True when {@link saveSearchSnapshot} would write one for the catalog stamped `sourceStamp`. */
  needsSearchSnapshot(sourceStamp: string): boolean {
    const folder = this.#indexFolder();
    if (folder === undefined || this.#readOnly || this.#denseStale || this.#dense === undefined || this.#skills.size === 0) return false;
    return !hasSearchSnapshot(folder, this.#snapshotIdentity(sourceStamp));
  }

  /** The vector store this engine's options ask for (its folder aside). */
  #storeOptions(): Omit<VectorStoreOptions, 'folder'> {
    return { kind: this.options.ann, model: this.#model, dimensions: this.#dimensions, hnsw: this.options.hnsw };
  }

  /** The model, text version and vector index kind: a snapshot of another is not this engine's. */
  #snapshotIdentity(sourceStamp: string): SnapshotIdentity {
    return { sourceStamp, model: snapshotModel(this.options) };
  }

  get size(): number {
    return this.#skills.size;
  }

  /** Reads the vector store when it is not loaded yet (to report its status). */
  get info(): EngineInfo {
    return {
      model: this.options.embedder.id,
      dimensions: this.#dimensions,
      ann: this.options.ann,
      skills: this.#skills.size,
      index: this.#loadDense().store.status,
    };
  }

  /**
   * Makes the indexes hold exactly `skills` (by id; first wins on duplicate ids). Only skills
   * whose content hash has no vector yet are embedded; everything is persisted when an
   * `indexDir` is set. Calls are serialised. With `dense: false` the counts are the lexical
   * index's and nothing is embedded yet.
   */
  sync(skills: readonly Skill[], options: SyncOptions = {}): Promise<SyncResult> {
    this.#assertOpen();
    if (this.#readOnly) return Promise.reject(new SkillSearchError('INTERNAL', 'an engine opened from a search snapshot cannot sync'));
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

    const lexical = this.#applyLexical(desired);
    if (state === undefined || found === undefined) {
      this.#denseStale = true;
      return { ...lexical, embedded: 0 };
    }
    const { counts, embedded } = await this.#applyDenseOrRebuild(state, desired, found, signal, onProgress);
    this.#denseStale = false;
    return { ...counts, embedded };
  }

  /**
   * {@link #applyDense}, and when the vector index fails in the middle (`INDEX_CORRUPT`: the
   * native graph refused a change), the index is discarded and built anew from the vectors that
   * can still be read, embedding the rest: a broken index costs time, never the process.
   */
  async #applyDenseOrRebuild(
    state: DenseState,
    desired: ReadonlyMap<string, Skill>,
    found: { readonly vectors: Map<string, Float32Array>; readonly embedded: number },
    signal?: AbortSignal,
    onProgress?: SyncOptions['onProgress'],
  ): Promise<{ counts: Counts; embedded: number }> {
    try {
      return { counts: this.#applyDense(state, desired, found.vectors), embedded: found.embedded };
    } catch (error) {
      if (!(error instanceof SkillSearchError) || error.code !== 'INDEX_CORRUPT') throw error;
      const tags = [...desired.values()].map(vectorKey);
      const fresh: DenseState = { store: state.store.discard(errorMessage(error), tags, found.vectors), centroid: undefined };
      this.#dense = fresh;
      this.#denseSkills = new Map();
      const again = await this.#embedMissing(fresh, desired.values(), signal, onProgress);
      return { counts: this.#applyDense(fresh, desired, again.vectors), embedded: found.embedded + again.embedded };
    }
  }

  #indexFolder(): IndexFolder | undefined {
    if (this.options.indexDir === undefined) return undefined;
    this.#folder ??= IndexFolder.open(this.options.indexDir);
    return this.#folder;
  }

  #loadDense(): DenseState {
    const folder = this.#indexFolder();
    this.#dense ??= {
      store: VectorStore.open({ ...this.#storeOptions(), ...(folder === undefined ? {} : { folder }) }),
      centroid: undefined,
    };
    return this.#dense;
  }

  /**
   * The vectors of the skills whose content key no entry of the vector index holds (a renamed
   * skill, or one with the same text as another, reuses the stored vector), by key: from the
   * shared store when it has them (a folder whose skills were seen elsewhere embeds nothing),
   * else embedded and then added to it. `embedded` counts those the model made.
   */
  async #embedMissing(
    state: DenseState,
    skills: Iterable<Skill>,
    signal?: AbortSignal,
    onProgress?: SyncOptions['onProgress'],
  ): Promise<{ vectors: Map<string, Float32Array>; embedded: number }> {
    const missing = new Map<string, Skill>();
    for (const skill of skills) {
      if (this.#denseSkills.get(skill.id) === skill) continue;
      const key = vectorKey(skill);
      if (!state.store.hasTag(key)) missing.set(key, skill);
    }
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

  /** Synchronous: the lexical index, `#skills` and `#names` now hold `desired` (which the engine keeps); persisted when changed. */
  #applyLexical(desired: ReadonlyMap<string, Skill>): Counts {
    const folder = this.#indexFolder();
    if (!this.#lexicalTried && folder !== undefined && this.#lexical.size === 0) {
      const loaded = loadLexicalIndex(folder);
      if ('index' in loaded) {
        this.#lexical = loaded.index;
        this.#lexicalSearch = loaded.index;
        this.#lexicalSaved = true;
      }
    }
    this.#lexicalTried = true;
    this.#generation += 1;
    const lexical = this.#lexical;
    const previous = this.#skills;
    const upserted: LexicalSource[] = [];
    const removed: string[] = [];
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
        removed.push(id);
      },
      upsert: (id, skill) => {
        const glosses = this.#language.glossesOf(skill)?.lexical;
        if (glosses === undefined) glossed.delete(id);
        else glossed.set(id, glosses);
        if (previous.get(id)?.name !== skill.name) renamed = true;
        const had = lexical.has(id);
        if (!lexical.upsert(skill, glosses)) return 'unchanged';
        upserted.push({ skill, glosses });
        return had ? 'updated' : 'added';
      },
    });
    this.#skills = desired;
    this.#lexicalGlosses = glossed;
    this.#glossesEpoch = this.#language.glossesEpoch;
    if (renamed || removed.length > 0 || previous.size !== desired.size) {
      // Rebuilt in catalog order, so skills sharing a name keep the order they are listed in.
      this.#names = new Map();
      for (const skill of desired.values()) {
        const name = normalizeName(skill.name);
        const ids = this.#names.get(name);
        if (ids === undefined) this.#names.set(name, [skill.id]);
        else ids.push(skill.id);
      }
    }
    const changed = counts.added + counts.updated + counts.removed > 0;
    if (folder !== undefined && (changed || !this.#lexicalSaved)) {
      // `upserted`/`removed` are everything since the last save only when that save succeeded.
      const since = this.#lexicalSaved ? { upserted, removed } : undefined;
      this.#lexicalSaved = false;
      if (!this.#persist(() => saveLexicalIndex(folder, this.#lexical, since))) return counts;
    }
    this.#lexicalSaved = true;
    return counts;
  }

  /**
   * Synchronous: the vector index holds `desired`, each vector from `embedded` or already in the
   * index (under the skill's id or another holding the same content key); persisted when changed.
   */
  #applyDense(state: DenseState, desired: ReadonlyMap<string, Skill>, embedded: ReadonlyMap<string, Float32Array>): Counts {
    const store = state.store;
    // Vectors are taken before any removal: a renamed skill's vector is stored under its old id.
    const previous = this.#denseSkills;
    const incoming = new Map<string, { key: string; vector: Float32Array }>();
    const counts = applyDiff(desired, {
      size: store.size,
      ids: () => store.index.ids(),
      has: (id) => store.index.has(id),
      holds: (id, skill) => previous.get(id) === skill,
      beforeChanges: (pending) => {
        for (const [id, skill] of pending) {
          const key = vectorKey(skill);
          if (store.index.tagOf(id) === key) continue;
          const vector = embedded.get(key) ?? store.vectorOfTag(key)?.slice();
          if (vector === undefined) throw new SkillSearchError('INTERNAL', `no vector for skill ${id}`);
          incoming.set(id, { key, vector });
        }
      },
      remove: (id) => store.remove(id),
      upsert: (id) => {
        const next = incoming.get(id);
        if (next === undefined) return 'unchanged';
        const had = store.index.has(id);
        store.upsert(id, next.vector, next.key);
        return had ? 'updated' : 'added';
      },
    });
    this.#denseSkills = desired;
    if (counts.added + counts.updated + counts.removed > 0) state.centroid = undefined;
    // Unsaved changes stay pending in the store: the next save writes them.
    this.#persist(() => store.save());
    return counts;
  }

  /**
   * Runs a save of the index folder; a file-system failure (a full disk, a folder made
   * read-only) is kept in {@link saveProblem} and the engine goes on from memory, so a search
   * never loses its answer to a cache write. Returns whether the save went through.
   */
  #persist(save: () => void): boolean {
    try {
      save();
      return true;
    } catch (error) {
      if (!isSystemError(error)) throw error;
      this.#saveProblem ??= errorMessage(error);
      return false;
    }
  }

  /** Why the index folder could not be saved, when a save failed (the engine answered from memory); undefined otherwise. */
  get saveProblem(): string | undefined {
    return this.#saveProblem;
  }

  /** The vector side, first brought up to the current catalog when a lexical-only sync left it behind. */
  #denseReady(signal?: AbortSignal): Promise<DenseState> {
    if (!this.#denseStale && this.#dense !== undefined) return Promise.resolve(this.#dense);
    const run = this.#syncing.then(async () => {
      const state = this.#loadDense();
      if (!this.#denseStale) return state;
      // Queued behind every sync and ahead of later ones, so `#skills` cannot move meanwhile.
      const skills = this.#skills;
      const found = await this.#embedMissing(state, skills.values(), signal);
      throwIfAborted(signal);
      await this.#applyDenseOrRebuild(state, skills, found, signal);
      this.#denseStale = false;
      return this.#dense ?? state;
    });
    this.#syncing = run.catch(() => undefined);
    return run;
  }

  /**
   * The hits for `query`, best first, each scored by its relevance (the calibrated probability
   * that it fits, see `relevance.ts`); hits below the abstention threshold are dropped, so an
   * empty answer means nothing fits. A skill the query names exactly comes first, scored 1.
   */
  async search(query: string, request: SearchRequest = {}): Promise<readonly SearchHit[]> {
    const { k, threshold, model, ranked, exact, explanation } = await this.#rankForScoring(query, request);
    if (ranked.ranked.length === 0 && exact.length === 0) return [];
    const factors = relevanceFactors(model, ranked.ranked, ranked.query);
    const scores = relevanceFrom(factors);
    // Named hits have no scoring evidence: they are shown first with score 1.
    const why = (id: string, score: number, scoring?: Scoring): HitExplanation | undefined =>
      explanation === undefined ? undefined : explainHit(id, score, threshold, explanation, scoring);
    const hits = exact.slice(0, k).map((id) => this.#hit(id, 1, ['exact'], why(id, 1)));
    const shown = shownCount(scores, threshold, this.options.shownCut, k - hits.length);
    for (const [i, hit] of ranked.ranked.entries()) {
      if (i === shown) break;
      const scoring = explanation && {
        ...(hit.cosine === undefined ? {} : { dense: { cosine: hit.cosine, centered: hit.centered ?? 0 } }),
        order: hit.order,
        answerable: factors.answerable,
        fits: factors.fits[i]!,
      };
      hits.push(
        this.#hit(
          hit.id,
          scores[i]!,
          hit.cosine === undefined ? ['lexical'] : (hit.lexical ?? 0) > 0 ? ['dense', 'lexical'] : ['dense'],
          why(hit.id, scores[i]!, scoring),
        ),
      );
    }
    return hits;
  }

  /**
   * What `search` and `explain` share: the request checked, the ranked list as deep as the
   * relevance model was fitted on (whatever `k`, so a hit's score does not depend on `k`), the
   * model for the mode and the threshold of the abstention setting.
   */
  async #rankForScoring(query: string, request: SearchRequest) {
    const mode: SearchMode = request.mode === undefined ? this.options.mode : assertMode('mode', request.mode);
    const setting =
      request.abstain === undefined || request.abstain === true
        ? this.options.abstain
        : request.abstain === false
          ? 'off'
          : assertAbstainSetting('abstain', request.abstain);
    const k = request.k === undefined ? this.options.k : assertPositiveInteger('k', request.k);
    const { ranked, exact, explanation } = await this.rank(query, { ...request, k: Math.max(k, scoringDepth(this.options.relevance)) });
    return { k, threshold: thresholdFor(this.options.relevance, mode, setting), model: this.options.relevance.models[mode], ranked, exact, explanation };
  }

  /**
   * Why a search shows what it shows: the query's P(answerable), each ranked hit's P(fits) and
   * score, and the threshold, e.g. to explain an empty answer (`eval --per-query`).
   */
  async explain(
    query: string,
    request: SearchRequest = {},
  ): Promise<{ answerable: number; threshold: number; named: readonly string[]; hits: { id: string; name: string; fits: number; score: number }[] }> {
    const { threshold, model, ranked, exact } = await this.#rankForScoring(query, request);
    const { answerable, fits } = relevanceFactors(model, ranked.ranked, ranked.query);
    const scores = relevanceFrom({ answerable, fits });
    return {
      answerable,
      threshold,
      named: exact,
      hits: ranked.ranked.map((hit, i) => ({ id: hit.id, name: hit.name, fits: fits[i]!, score: scores[i]! })),
    };
  }

  /** The relevance a hit needs to be shown in `mode` under `setting` (default: the engine's). */
  threshold(mode: SearchMode = this.options.mode, setting: AbstainSetting = this.options.abstain): number {
    return thresholdFor(this.options.relevance, mode, setting);
  }

  /**
   * The ranked candidates before scoring and abstention, with the evidence each was ranked on
   * (what `scripts/fit-abstention.ts` fits the relevance model on), and the ids the query names
   * exactly (left out of `ranked`). With `explain`, also the lexical matches with their terms per
   * field and the query's routing (`search` turns them into each hit's `why`).
   */
  async rank(
    query: string,
    request: Omit<SearchRequest, 'abstain'> = {},
  ): Promise<{ ranked: RankedList; exact: readonly string[]; explanation?: RankExplanation }> {
    this.#assertOpen();
    throwIfAborted(request.signal);
    const k = request.k === undefined ? this.options.k : assertPositiveInteger('k', request.k);
    const mode: SearchMode = request.mode === undefined ? this.options.mode : assertMode('mode', request.mode);
    const empty = { ranked: { ranked: [], query: { terms: new Set(tokenize(query)) } }, exact: [] };
    if (query.trim() === '' || this.#skills.size === 0) return empty;
    // A query in another language than the catalog's, as each ranker should read it (src/lang/).
    const routed = await this.#language.route(query, request.signal);
    // Coverage and length count the words of the request as written (one per translated word).
    const terms = new Set(tokenize(routed.measure));
    const nameOf = (id: string): string => this.#skills.get(id)?.name ?? id;
    const explain = request.explain === true;
    const lexicalSearch = {
      boost: this.options.fieldBoosts,
      fuzzy: this.options.fuzzy,
      prefixMinLength: this.options.prefixMinLength,
      explain,
      ...(routed.terms === undefined ? {} : { terms: routed.terms }),
    };
    const explained = (lexical: readonly LexicalMatch[]): { explanation?: RankExplanation } =>
      explain
        ? {
            explanation: {
              lexical: new Map(lexical.map((match) => [match.id, match])),
              ...(routed.lexical === query ? {} : { translation: { language: routed.language, english: routed.lexical } }),
            },
          }
        : {};
    if (mode === 'lexical') {
      const lexical = this.#lexicalSearch.search(routed.lexical, Math.max(k, this.options.candidates), lexicalSearch);
      return { ranked: rankLexical(lexical, terms, k, nameOf), exact: [], ...explained(lexical) };
    }
    const share = mode === 'dense' ? 1 : denseShareFor(terms.size, this.options);
    // The lexical side first (synchronous and cheap), so its evidence can spare the chunk embedding.
    const generation = this.#generation;
    let lexical = mode === 'hybrid' ? this.#lexicalSearch.search(routed.lexical, this.options.candidates, lexicalSearch) : [];
    // The whole message's vector, then one per chunk. Chunk vectors only order candidates: a
    // query whose dense share is 0 needs the whole one alone (for its relevance features), and
    // so does one where BM25 has already singled a skill out.
    const { minTerms, max } = this.options.queryChunks;
    const settled = lexicallySettled(lexical, this.options.queryChunks);
    const chunks = share > 0 && terms.size >= minTerms && !settled ? queryChunks(routed.dense, max) : [];
    const [state, whole, parts] = await Promise.all([
      this.#denseReady(request.signal),
      this.#queries.embed(routed.dense, request.signal),
      chunks.length === 0 ? undefined : this.#chunks.embed(chunks.join(CHUNK_SEPARATOR), request.signal),
    ]);
    const vectors = parts === undefined ? [whole] : [whole, ...splitVectors(parts, this.#dimensions)];
    throwIfAborted(request.signal);
    if (this.#skills.size === 0) return empty;
    const dense = new DenseQuery(vectors, this.#centroid(state));
    // `#stored` skips ids a lexical-only sync removed from the catalog while this search awaited its vectors.
    const stored = (id: string): { key: string; vector: Float32Array } | undefined => this.#stored(state, id);
    const denseMatches = dense.matches(state.store.index, Math.max(k, this.options.candidates), stored);
    if (mode === 'dense') return { ranked: rankDense(denseMatches, dense.catalogCosine, terms, k, nameOf), exact: [], ...explained([]) };
    const exact = findNamedSkills(query, this.#idsNamed);
    // A sync that landed while the vectors were computed changed the catalog: search it as it is now.
    if (this.#generation !== generation) lexical = this.#lexicalSearch.search(routed.lexical, this.options.candidates, lexicalSearch);
    const denseOf = (id: string) => {
      const found = stored(id);
      return found === undefined ? { cosine: 0, centered: 0 } : dense.score(found.key, found.vector);
    };
    return {
      ranked: rankHybrid(denseMatches, dense.catalogCosine, lexical, denseOf, { ...this.options, denseShare: share }, terms, k, nameOf, exact, {
        of: (id) => {
          const skill = this.#skills.get(id);
          return skill === undefined ? undefined : boundaryOf(skill);
        },
        named: this.#idsNamed,
      }),
      exact,
      ...explained(lexical),
    };
  }

  /** Settles once every sync queued so far has (whether or not it succeeded). */
  idle(): Promise<void> {
    return this.#syncing.then(() => undefined);
  }

  /** Idempotent; waits for a running sync, then releases the index files. Later calls return the same promise. */
  close(): Promise<void> {
    this.#closing ??= this.#syncing.then(() => {
      this.#dense?.store.close();
      this.#shared?.close();
      this.#releaseSnapshot?.();
    });
    return this.#closing;
  }

  /** The mean of the stored vectors, kept by the store as they change (and persisted with them). */
  #centroid(state: DenseState): Centroid {
    state.centroid ??= Centroid.ofMean(state.store.mean(), { centre: this.options.centring });
    return state.centroid;
  }

  /** The content key and stored vector of a skill still in the catalog (a view, used before the next change). */
  #stored(state: DenseState, id: string): { key: string; vector: Float32Array } | undefined {
    const skill = this.#skills.get(id);
    if (skill === undefined) return undefined;
    const key = vectorKey(skill);
    const vector = state.store.index.tagOf(id) === key ? state.store.index.vectorOf(id) : state.store.vectorOfTag(key);
    return vector === undefined ? undefined : { key, vector };
  }

  #hit(id: string, score: number, via: SearchHit['via'], why?: HitExplanation): SearchHit {
    return { skill: this.#skills.get(id)!, score, via, ...(why === undefined ? {} : { why }) };
  }

  #assertOpen(): void {
    if (this.#closing !== undefined) throw new SkillSearchError('INTERNAL', 'the search engine is closed');
  }
}

/** An error from a system call (Node's fs errors carry the errno `code` and the `syscall`). */
function isSystemError(error: unknown): boolean {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  return typeof code === 'string' && typeof syscall === 'string';
}

/** The scoring evidence of one ranked hit, as {@link explainHit} reports it. */
type Scoring = Pick<HitExplanation, 'dense' | 'order' | 'answerable' | 'fits'>;

/** A hit's explanation: what the lexical ranker matched, its scoring evidence, the threshold, how the query was routed. */
function explainHit(id: string, score: number, threshold: number, explanation: RankExplanation, scoring: Scoring | undefined): HitExplanation {
  const match = explanation.lexical.get(id);
  return {
    matched: match?.fields ?? {},
    ...(match === undefined ? {} : { lexical: { bm25: match.score, coverage: match.coverage } }),
    ...scoring,
    threshold,
    passed: score >= threshold,
    ...(scoring === undefined ? { named: true as const } : {}),
    ...(explanation.translation === undefined ? {} : { translation: explanation.translation }),
  };
}
