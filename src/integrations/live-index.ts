import path from 'node:path';
import { resolveEmbedder } from '../embed/index.js';
import { SkillSearchError } from '../errors.js';
import { SkillCatalog, type CatalogOptions } from '../load/index.js';
import { SkillSearchEngine, type EngineKnobs, type EngineOptions, type SnapshotCatalog, type SyncResult } from '../search/index.js';
import type { AssembledCatalog } from '../search/engine.js';
import { NO_SAVED_CATALOG, StoredSearch } from '../search/stored-search.js';
import type { AbstainSetting, CatalogSnapshot, Diagnostic, SearchHit, SearchMode, SearchRequest, Skill } from '../types.js';
import type { ClosableSearcher, SkillService } from './service.js';
import { STORE_DEFAULTS } from '../store/entry-store.js';
import { StoreToolsCache } from '../store/store-tools-cache.js';

export interface LiveIndexOptions {
  /** Where skills come from (cwd, `skillsDirs`, `toolsFiles`, …). A `watch` here is ignored: call `watch()`. */
  readonly catalog: CatalogOptions;
  /** Model spec for `resolveEmbedder` (`use-lite`, `hash`, a preset id, a folder under `models/`). */
  readonly model: string;
  /** Where pulled presets live (`resolveEmbedder`'s `downloadsDir`). @default `<cache root>/models` from `process.env` */
  readonly downloadsDir?: string;
  /** Folder of this catalog's server socket and builder lease; without `store`, its `store.sqlite` is the store. */
  readonly indexDir?: string;
  /** The store shared by every folder and process (`EngineOptions.store`): `store.sqlite` under the cache root for the CLI; in-memory when neither this nor `indexDir` is given. */
  readonly store?: string;
  readonly k?: number;
  readonly mode?: SearchMode;
  /** Where the translation dictionary is cached (see `src/lang/`). @default the engine's default */
  readonly dictionaryDir?: string;
  /** The engine's abstention (see `EngineOptions.abstain`). */
  readonly abstain?: AbstainSetting;
  /** Any other engine knobs (`skill-search eval --config`); the fields above take precedence. */
  readonly knobs?: EngineKnobs;
  /**
   * Called by `close`, instead of saving the catalog in the store, when that is due, with the
   * catalog's stamp: a caller that must end quickly (the hook) has another process write it.
   * Unset: `close` saves it.
   */
  readonly onSnapshotDue?: (sourceStamp: string) => void;
}

export interface RefreshResult {
  readonly snapshot: CatalogSnapshot;
  /** Undefined when the catalog had not changed since the last sync (nothing to do). */
  readonly sync: SyncResult | undefined;
  readonly ms: number;
}

export interface RefreshOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (done: number, total: number) => void;
}

/**
 * A catalog and a persistent search engine kept in step: every search first brings the
 * engine up to the catalog's current generation (re-embedding only skills whose text
 * changed), so a watcher, a hook call or an MCP request always searches what is on disk.
 */
export class LiveIndex implements SkillService {
  readonly catalog: SkillCatalog;
  readonly engine: SkillSearchEngine;
  /** Generation of the catalog the engine last synced to; -1 before the first sync. */
  #synced = -1;
  /** That catalog's `sourceStamp` (which its search snapshot is saved under) and load problems. */
  #saved: SnapshotCatalog | undefined;
  #closing: Promise<void> | undefined;

  readonly #onSnapshotDue: ((sourceStamp: string) => void) | undefined;
  /** The store's tools cache this index made for its catalog (none when the options named one). */
  readonly #toolsCache: StoreToolsCache | undefined;

  private constructor(catalog: CatalogWithCache, engine: SkillSearchEngine, onSnapshotDue: ((sourceStamp: string) => void) | undefined) {
    this.catalog = catalog.catalog;
    this.#toolsCache = catalog.toolsCache;
    this.engine = engine;
    this.#onSnapshotDue = onSnapshotDue;
  }

  static async open(options: LiveIndexOptions): Promise<LiveIndex> {
    const engine = await SkillSearchEngine.open(engineOptions(options));
    return new LiveIndex(openCatalog(options), engine, options.onSnapshotDue);
  }

  /**
   * A read-only search of the catalog as it is now, from the catalog saved in the store by any
   * folder over the same skills (`src/search/stored-search.ts`), or why there is none (no store,
   * a catalog changed since, another model…). Opening it only stats the skill files and tools
   * files a scan would read, and parses none: what a cold hook or `query` tries before {@link open}.
   */
  static async openSnapshot(options: LiveIndexOptions, { assemble = false }: SnapshotOptions = {}): Promise<SnapshotSearch | { readonly reason: string }> {
    const { catalog, toolsCache } = openCatalog(options);
    // One embedder for the stored search and the assembly: the model loads once.
    const engineOpts = engineOptions(options);
    let opened = await StoredSearch.open(engineOpts, catalog.stamps());
    let assembled: AssembledCatalog | undefined;
    if ('reason' in opened && assemble && opened.reason === NO_SAVED_CATALOG) {
      try {
        assembled = await LiveIndex.#assemble(engineOpts, catalog);
      } finally {
        await catalog.close();
        toolsCache?.close();
      }
      if (assembled !== undefined) opened = await StoredSearch.open(engineOpts, catalog.stamps());
    }
    if ('reason' in opened) return opened;
    const { engine, diagnostics } = opened;
    return {
      engine,
      diagnostics,
      ...(assembled === undefined ? {} : { assembled }),
      search: (query, request) => engine.search(query, request),
      close: () => engine.close(),
    };
  }

  /** The catalog as it is on disk written in the store from the catalog saved last (`SkillSearchEngine.assembleCatalog`). */
  static async #assemble(options: EngineOptions, catalog: SkillCatalog): Promise<AssembledCatalog | undefined> {
    // A tools file's changed lines, when that is all that changed, else the catalog loaded whole.
    const delta = await catalog.delta();
    const engine = await SkillSearchEngine.open(options);
    try {
      const assembled = delta === undefined ? undefined : await engine.assembleDelta(delta);
      if (assembled !== undefined) return assembled;
      const snapshot = await catalog.get();
      const facts = snapshotFacts(snapshot);
      if (facts === undefined || snapshot.skills.length === 0) return undefined;
      return await engine.assembleCatalog({ ...facts, skills: snapshot.skills });
    } finally {
      await engine.close();
    }
  }

  /** Syncs the engine to the current catalog when its generation moved. */
  async refresh(options: RefreshOptions = {}): Promise<RefreshResult> {
    const started = performance.now();
    const snapshot = await this.catalog.get();
    // The same content under a new stamp (a tools file touched) still describes what the engine holds.
    if (snapshot.generation === this.#synced) {
      this.#saved = snapshotFacts(snapshot);
      return { snapshot, sync: undefined, ms: performance.now() - started };
    }
    const sync = await this.engine.sync(snapshot.skills, options);
    this.#synced = snapshot.generation;
    this.#saved = snapshotFacts(snapshot);
    return { snapshot, sync, ms: performance.now() - started };
  }

  /**
   * Saves the catalog last synced in the store, for cold processes, when the store does not hold
   * it yet (`close` does this). Returns whether it was written; a failure only costs the next
   * cold process its shortcut, so it is returned, never thrown.
   */
  saveCatalog(): boolean | Error {
    if (this.#saved === undefined) return false;
    try {
      return this.engine.saveCatalog(this.#saved);
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  async search(query: string, request: SearchRequest = {}): Promise<readonly SearchHit[]> {
    await this.refresh(request.signal === undefined ? {} : { signal: request.signal });
    return this.engine.search(query, request);
  }

  async skills(): Promise<readonly Skill[]> {
    return (await this.catalog.get()).skills;
  }

  /** Idempotent: stops the watcher, waits for a running sync and saves the catalog (or reports it due, see {@link LiveIndexOptions.onSnapshotDue}). */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.catalog.close();
      // What a watcher's reloads left to write, written now.
      this.#toolsCache?.close();
      await this.engine.idle();
      const saved = this.#saved;
      if (this.#onSnapshotDue === undefined) this.saveCatalog();
      else if (saved !== undefined && this.engine.needsCatalogSave(saved)) this.#onSnapshotDue(saved.sourceStamp);
      await this.engine.close();
    })();
    return this.#closing;
  }
}

export interface SnapshotOptions {
  /**
   * When no catalog saved matches the disk, write it in the store from the catalog saved last
   * (embedding and tokenising only what changed) and open that: what a cold `query` or hook
   * does before falling back to a live index. Off: only a saved catalog is opened.
   */
  readonly assemble?: boolean;
}

/** The read-only search {@link LiveIndex.openSnapshot} opens. */
export interface SnapshotSearch extends ClosableSearcher {
  /** What writing the catalog cost, when it was assembled for this search ({@link SnapshotOptions.assemble}). */
  readonly assembled?: AssembledCatalog;
  /** For `size` and `explain`. */
  readonly engine: StoredSearch;
  /** The catalog's load problems when it was saved. */
  readonly diagnostics: readonly Diagnostic[];
}

function snapshotFacts(snapshot: CatalogSnapshot): SnapshotCatalog | undefined {
  const { sourceStamp, portableStamp, diagnostics } = snapshot;
  return sourceStamp === undefined ? undefined : { sourceStamp, portableStamp, diagnostics };
}

function engineOptions(options: LiveIndexOptions): EngineOptions {
  return {
    ...options.knobs,
    embedder: resolveEmbedder(options.model, options.downloadsDir === undefined ? {} : { downloadsDir: options.downloadsDir }),
    ...(options.indexDir === undefined ? {} : { indexDir: options.indexDir }),
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.k === undefined ? {} : { k: options.k }),
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    ...(options.dictionaryDir === undefined ? {} : { crossLingual: { ...options.knobs?.crossLingual, dictionaryDir: options.dictionaryDir } }),
    ...(options.abstain === undefined ? {} : { abstain: options.abstain }),
  };
}

interface CatalogWithCache {
  readonly catalog: SkillCatalog;
  /** Made here, so closed by its opener. */
  readonly toolsCache: StoreToolsCache | undefined;
}

/**
 * The catalog, its options without `watch` (a `LiveIndex` watches only when asked, `watch()`),
 * and unless they name one, the store's tools cache: a tools file's parsed skills and line table
 * are kept beside the catalogs saved from them.
 */
function openCatalog(options: LiveIndexOptions): CatalogWithCache {
  const { watch: _ignored, ...rest } = options.catalog;
  const store = options.store ?? (options.indexDir === undefined ? undefined : path.join(options.indexDir, STORE_DEFAULTS.file));
  if (rest.toolsCache !== undefined || store === undefined) return { catalog: new SkillCatalog(rest), toolsCache: undefined };
  const toolsCache = new StoreToolsCache(store);
  return { catalog: new SkillCatalog({ ...rest, toolsCache }), toolsCache };
}

/** `nothing found to index` (SPEC §7: a user error) with where we looked. */
/**
 * The error for a catalog with no skills; when files were skipped it says how many and why
 * the first one was (the usual reason nothing was found).
 */
export function nothingToIndex(where: string, diagnostics: readonly Diagnostic[] = []): SkillSearchError {
  const skipped = diagnostics.filter((d) => d.severity === 'error');
  const first = skipped[0];
  if (first === undefined) return new SkillSearchError('NOTHING_TO_INDEX', `no skills found ${where}`);
  const why = `${skipped.length} ${skipped.length === 1 ? 'entry' : 'entries'} could not be loaded, the first: ${first.path}: ${first.message}`;
  return new SkillSearchError('NOTHING_TO_INDEX', `no skills found ${where}; ${why} (run \`skill-search validate\` for all)`);
}
