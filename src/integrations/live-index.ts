import { SkillSearchError } from '../errors.js';
import type { SkillCatalog } from '../load/index.js';
import { SkillSearchEngine, type SnapshotCatalog, type SyncOptions, type SyncResult } from '../search/index.js';
import type { AssembledCatalog } from '../search/engine.js';
import { storeSource } from '../search/stored-search.js';
import type { CatalogSnapshot, Diagnostic, SearchHit, SearchRequest, Skill } from '../types.js';
import type { SkillService } from './service.js';
import { SharedStore } from '../store/shared-store.js';
import type { StoreToolsCache } from '../store/store-tools-cache.js';
import { CrossLingual } from '../lang/cross-lingual.js';
import { catalogKeyOf, catalogModel } from '../search/catalog-format.js';
import { memberOf, movedBase, putMovedCatalog } from '../search/catalog-change.js';
import { keepCopyTable, renameDiagnostic, renameSkill } from '../load/tools-copy.js';
import { writeToolsLines } from '../load/tools-lines.js';
import { assertLiveIndexOptions, engineOptions, openCatalog, snapshotFacts, type CatalogWithCache, type LiveIndexOptions } from './live-index-options.js';
import { openSnapshot, type SnapshotOptions, type SnapshotSearch } from './snapshot-search.js';

export type { LiveIndexOptions } from './live-index-options.js';
export type { SnapshotOptions, SnapshotSearch } from './snapshot-search.js';

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

  /**
   * Saves the catalog in the store when only a tools file's lines changed since a saved one
   * (`CatalogWriter.assembleDelta`), without loading it whole: what `index` tries first. Undefined
   * when it cannot be saved so.
   */
  static async saveDelta(options: LiveIndexOptions, signal?: AbortSignal): Promise<DeltaSaved | undefined> {
    assertLiveIndexOptions(options);
    const { catalog, toolsCache } = openCatalog(options);
    try {
      const delta = await catalog.delta();
      if (delta === undefined) return undefined;
      const engine = await SkillSearchEngine.open(engineOptions(options, { writer: true }));
      let assembled: AssembledCatalog | undefined;
      const { model } = engine.info;
      try {
        assembled = await engine.catalogWriter?.assembleDelta(delta, signal);
        // Off a prompt's path, as a whole `index` does (docs/store.md, "The writers measured").
        if (assembled !== undefined) engine.collectStore();
      } finally {
        await engine.close();
      }
      if (assembled === undefined) return undefined;
      // The catalog of the new text is saved: the line tables move to that text (after it, so a table
      // never names a base the store lacks), and the next edit parses its own lines only.
      const cache = catalog.options.toolsCache;
      if (cache !== undefined && cache !== null) for (const { key, table } of delta.tables()) writeToolsLines(cache, key, table);
      const before = new Set(delta.baseIds);
      const changed = delta.members.filter((m): m is Skill => typeof m !== 'number');
      const updated = changed.filter((skill) => before.has(skill.id)).length;
      const now = new Set(delta.members.map((m) => (typeof m === 'number' ? delta.baseIds[m]! : m.id)));
      return {
        skills: delta.members.length,
        added: changed.length - updated,
        updated,
        removed: delta.baseIds.filter((id) => !now.has(id)).length,
        unchanged: delta.members.length - changed.length,
        embedded: assembled.embedded,
        model,
        diagnostics: delta.diagnostics,
      };
    } finally {
      await catalog.close();
      toolsCache?.close();
    }
  }

  /**
   * Saves the catalog when the store holds its skills at another path (docs/store.md, "A catalog at
   * a new path"), from that catalog's entries with their records moved, nothing embedded: what
   * `index` tries after {@link saveDelta}. A tools file's copy is found by its bytes, else the
   * catalog is loaded and compared with the one saved last. Undefined when neither finds one.
   */
  async saveMoved(): Promise<MovedSaved | undefined> {
    const { catalog, engine } = this;
    const options = engine.options;
    const store = storeSource(options);
    if (typeof store !== 'string') return undefined;
    const shared = new SharedStore(store, { writer: true });
    try {
      const copy = await catalog.copyOf((base) => shared.catalog(catalogKeyOf(base, options)) !== undefined);
      if (copy !== undefined) {
        const base = shared.catalog(catalogKeyOf(copy.base, options));
        if (base === undefined) return undefined;
        const diagnostics = (JSON.parse(base.diagnostics) as Diagnostic[]).map((d) => renameDiagnostic(d, copy));
        const members = shared.members(base.id).all();
        const moved = members.map((m) => ({ ...m, record: JSON.stringify(renameSkill(JSON.parse(m.record) as Skill, copy)) }));
        const key = catalogKeyOf(copy, options);
        if (shared.catalog(key) === undefined && !putMovedCatalog(shared, key, base, { sourceStamp: copy.sourceStamp, diagnostics, members: moved }))
          return undefined;
        const cache = catalog.options.toolsCache;
        if (cache !== undefined && cache !== null) keepCopyTable(copy, cache);
        return { skills: members.length, model: engine.info.model, diagnostics };
      }
      const snapshot = await catalog.get();
      const facts = snapshotFacts(snapshot);
      if (facts === undefined || snapshot.skills.length === 0) return undefined;
      const key = catalogKeyOf(facts, options);
      if (shared.catalog(key) !== undefined) return undefined;
      const language = new CrossLingual({ ...options.crossLingual, multilingual: options.embedder.multilingual === true, cache: shared });
      const moved = await movedBase(shared, catalogModel(options), snapshot.skills, language);
      // Only when every member is the base's but for its record: a changed one's vector and entry are not the base's.
      if (moved === undefined || moved.members.some((m) => typeof m !== 'number')) return undefined;
      const members = [...moved.skills.values()].map((skill) => memberOf(skill, language.glossesOf(skill)?.lexical));
      if (!putMovedCatalog(shared, key, moved.base, { sourceStamp: facts.sourceStamp, diagnostics: facts.diagnostics, members })) return undefined;
      return { skills: members.length, model: engine.info.model, diagnostics: facts.diagnostics };
    } finally {
      shared.close();
    }
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
      // Before its memo is kept (below): files it found just written are kept for reuse once they no longer are.
      await this.catalog.settle().catch(() => undefined);
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

/** What {@link saveMoved} saved: the catalog's size, the engine's model id and the load problems (nothing embedded or changed). */
export interface MovedSaved {
  readonly skills: number;
  readonly model: string;
  readonly diagnostics: readonly Diagnostic[];
}

/** What {@link saveDelta} saved: also how the skills moved against the saved catalog, and how many were embedded. */
export interface DeltaSaved extends MovedSaved, SyncResult {}
