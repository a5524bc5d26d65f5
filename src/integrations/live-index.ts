import { SkillSearchError } from '../errors.js';
import type { SkillCatalog } from '../load/index.js';
import { SkillSearchEngine, type SnapshotCatalog, type SyncOptions, type SyncResult } from '../search/index.js';
import type { CatalogSnapshot, Diagnostic, SearchHit, SearchRequest, Skill } from '../types.js';
import type { SkillService } from './service.js';
import type { StoreToolsCache } from '../store/store-tools-cache.js';
import { assertLiveIndexOptions, engineOptions, openCatalog, snapshotFacts, type CatalogWithCache, type LiveIndexOptions } from './live-index-options.js';
import { openSnapshot, type SnapshotOptions, type SnapshotSearch } from './snapshot-search.js';
import { saveDelta, saveMoved, type DeltaSaved, type MovedSaved } from './indexer-saves.js';

export type { LiveIndexOptions } from './live-index-options.js';
export type { SnapshotOptions, SnapshotSearch } from './snapshot-search.js';
export type { DeltaSaved, MovedSaved } from './indexer-saves.js';

export interface RefreshResult {
  readonly snapshot: CatalogSnapshot;
  /** Undefined when the catalog had not changed since the last sync. */
  readonly sync: SyncResult | undefined;
  readonly ms: number;
}

export type RefreshOptions = Pick<SyncOptions, 'signal' | 'onProgress'>;

/** A catalog and a persistent engine kept in step: every search first syncs the engine to the catalog's generation (re-embedding only what changed). */
export class LiveIndex implements SkillService {
  readonly catalog: SkillCatalog;
  readonly engine: SkillSearchEngine;
  /** Generation of the catalog the engine last synced to; -1 before the first sync. */
  #synced = -1;
  /** That catalog's `sourceStamp` and load problems. */
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
    assertLiveIndexOptions(options);
    // The catalog's writer unless it hands its save on (the hook); its writes wait without holding the thread.
    const engine = await SkillSearchEngine.open(engineOptions(options, { writer: options.onSnapshotDue === undefined ? 'async' : false }));
    return new LiveIndex(openCatalog(options), engine, options.onSnapshotDue);
  }

  /** A read-only search of the catalog as it is now, from a catalog saved in the store, or why there is none ({@link openSnapshot}). */
  static async openSnapshot(options: LiveIndexOptions, snapshotOptions: SnapshotOptions = {}): Promise<SnapshotSearch | { readonly reason: string }> {
    assertLiveIndexOptions(options);
    return openSnapshot(options, snapshotOptions);
  }

  /** Saves the catalog on disk when only a tools file's lines changed since a saved catalog ({@link saveDelta}). */
  static async saveDelta(options: LiveIndexOptions, signal?: AbortSignal): Promise<DeltaSaved | undefined> {
    assertLiveIndexOptions(options);
    return saveDelta(options, signal);
  }

  /** Saves the catalog on disk when the store holds its skills at another path ({@link saveMoved}). */
  saveMoved(): Promise<MovedSaved | undefined> {
    return saveMoved(this.catalog, this.engine);
  }

  /** Syncs the engine to the current catalog when its generation moved. */
  async refresh(options: RefreshOptions = {}): Promise<RefreshResult> {
    const started = performance.now();
    const snapshot = await this.catalog.get();
    const facts = snapshotFacts(snapshot);
    let sync: SyncResult | undefined;
    // The same content under a new stamp (a tools file touched) still describes what the engine holds.
    if (snapshot.generation !== this.#synced) {
      sync = await this.engine.sync(snapshot.skills, facts === undefined ? options : { ...options, savedAs: facts });
      this.#synced = snapshot.generation;
    }
    this.#saved = facts;
    return { snapshot, sync, ms: performance.now() - started };
  }

  /**
   * Saves the catalog last synced in the store for cold processes, when it is not there yet, once
   * the store is free (`close` does this). Resolves to whether it was written, or the failure.
   */
  async saveCatalog(): Promise<boolean | Error> {
    const saved = this.#saved;
    if (saved === undefined || !this.engine.needsCatalogSave(saved)) return false;
    try {
      return await this.engine.whenStoreFree(() => this.engine.saveCatalog(saved), false);
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  async search(query: string, request: SearchRequest = {}): Promise<readonly SearchHit[]> {
    const refreshed = this.refresh(request.signal === undefined ? {} : { signal: request.signal });
    if (this.#synced < 0) await refreshed;
    else {
      // While the sync waits for another process's write to the store, the catalog synced last answers.
      refreshed.catch(() => undefined);
      const aside = new AbortController();
      try {
        await Promise.race([refreshed, this.engine.storeWaiting(aside.signal)]);
      } finally {
        aside.abort();
      }
    }
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
      if (this.#onSnapshotDue === undefined) await this.saveCatalog();
      else if (saved !== undefined && this.engine.needsCatalogSave(saved)) this.#onSnapshotDue(saved.sourceStamp);
      await this.engine.close();
    })();
    return this.#closing;
  }
}

/** The error for a catalog with no skills (SPEC §7), saying where we looked and, when files were skipped, how many and why the first was. */
export function nothingToIndex(where: string, diagnostics: readonly Diagnostic[] = []): SkillSearchError {
  const skipped = diagnostics.filter((d) => d.severity === 'error');
  const first = skipped[0];
  if (first === undefined) return new SkillSearchError('NOTHING_TO_INDEX', `no skills found ${where}`);
  const why = `${skipped.length} ${skipped.length === 1 ? 'entry' : 'entries'} could not be loaded, the first: ${first.path}: ${first.message}`;
  return new SkillSearchError('NOTHING_TO_INDEX', `no skills found ${where}; ${why} (run \`skill-search validate\` for all)`);
}
