import { resolveEmbedder } from '../embed/index.js';
import { SkillSearchError } from '../errors.js';
import { SkillCatalog, type CatalogOptions } from '../load/index.js';
import { SkillSearchEngine, type EngineKnobs, type EngineOptions, type SnapshotCatalog, type SyncResult } from '../search/index.js';
import type { AssembledCatalog } from '../search/engine.js';
import type { HeldCatalog } from '../search/catalog-writer.js';
import type { CatalogDelta } from '../load/tools-delta.js';
import { NO_SAVED_CATALOG, StoredSearch, storeSource, type OpenedCatalog } from '../search/stored-search.js';
import type { AbstainSetting, CatalogSnapshot, Diagnostic, SearchHit, SearchMode, SearchRequest, Skill } from '../types.js';
import type { ClosableSearcher, SkillService } from './service.js';
import { StoreToolsCache } from '../store/store-tools-cache.js';
import { DeferredToolsCache } from '../load/deferred-tools-cache.js';
import { definedOnly } from '../util/defined.js';
import { SharedStore } from '../store/shared-store.js';
import { CrossLingual } from '../lang/cross-lingual.js';
import { catalogKey, catalogModel } from '../search/catalog-format.js';
import { memberOf } from '../search/catalog-change.js';
import { movedBase, putMovedCatalog } from '../search/moved-catalog.js';
import { keepCopyTable, renameDiagnostic, renameSkill } from '../load/tools-copy.js';
import { writeToolsLines } from '../load/tools-lines.js';

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
   * Unset: `close` saves it. `openSnapshot` calls it too for a catalog it searches at a new path
   * (docs/store.md), whose search otherwise writes it when closed.
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
    // The catalog's writer unless it hands its save on (the hook): its writes wait out another
    // process's, without holding the thread (a server answers meanwhile).
    const engine = await SkillSearchEngine.open(engineOptions(options, { writer: options.onSnapshotDue === undefined ? 'async' : false }));
    return new LiveIndex(openCatalog(options), engine, options.onSnapshotDue);
  }

  /**
   * A read-only search of the catalog as it is now, from the catalog saved in the store by any
   * folder over the same skills (`src/search/stored-search.ts`), or why there is none (no store,
   * a catalog changed since, another model…). Opening it only stats the skill files and tools
   * files a scan would read, and parses none: what a cold hook or `query` tries before {@link open}.
   */
  static async openSnapshot(options: LiveIndexOptions, { assemble = false }: SnapshotOptions = {}): Promise<SnapshotSearch | { readonly reason: string }> {
    const { catalog, toolsCache, deferred: tools } = openCatalog(options, { deferWrites: true });
    // One embedder for the stored search and the assembly: the model loads once.
    const engineOpts = engineOptions(options);
    let opened = await StoredSearch.open(engineOpts, catalog.stamps());
    let assembled: AssembledCatalog | undefined;
    let held: { readonly embedded: number } | undefined;
    let written: (() => Promise<void>) | undefined;
    if ('reason' in opened && assemble && opened.reason === NO_SAVED_CATALOG) {
      let made: Assembly;
      try {
        // With a writer to hand the write to (the hook's detached indexer), an edit is searched held in memory.
        made = await LiveIndex.#assembleHoldOrMove(engineOpts, catalog, options.onSnapshotDue !== undefined);
      } catch (error) {
        tools?.flush();
        toolsCache?.close();
        throw error;
      } finally {
        await catalog.close();
      }
      if ('moved' in made) {
        opened = made.moved;
        // Written off the prompt's path: by a detached indexer (the hook), which loads the tools file again, else once the search closes.
        if (options.onSnapshotDue !== undefined) {
          tools?.drop();
          options.onSnapshotDue(made.sourceStamp);
        } else
          written = async () => {
            await made.write();
            tools?.flush();
          };
      } else if ('held' in made) {
        const { delta } = made;
        opened = StoredSearch.openHeld(engineOpts, made.held, delta.base.portableStamp ?? delta.base.sourceStamp, delta.diagnostics);
        if ('reason' in opened) tools?.flush();
        else {
          held = { embedded: made.held.embedded };
          // The indexer saves the edit against the line table this delta was told from.
          tools?.drop();
          options.onSnapshotDue?.(delta.sourceStamp);
        }
      } else {
        tools?.flush();
        if (made.assembled !== undefined) {
          assembled = made.assembled;
          opened = await StoredSearch.open(engineOpts, catalog.stamps());
        }
      }
    } else tools?.flush();
    // Closed once what it holds is written: at once, or after the search (a moved catalog written at close).
    if (written === undefined) toolsCache?.close();
    if ('reason' in opened) return opened;
    const { engine, diagnostics } = opened;
    return {
      engine,
      diagnostics,
      ...(assembled === undefined ? {} : { assembled }),
      ...(held === undefined ? {} : { held }),
      search: (query, request) => engine.search(query, request),
      close: async () => {
        await engine.close();
        await written?.();
        toolsCache?.close();
      },
    };
  }

  /**
   * The catalog as it is on disk, written in the store from the catalog saved last
   * (`CatalogWriter.assemble`); with `hold`, when a tools file's lines were only
   * edited, held in memory over it (`CatalogWriter.holdDelta`) and not written; or, when a
   * saved catalog holds its skills at another path, that catalog's search with the skills moved
   * there, nothing written (docs/store.md, "A catalog at a new path"): a tools file's copy found
   * byte for byte (`StoredSearch.openCopy`, the file not parsed), else the skills loaded and found
   * with the same keys at the same documents (`StoredSearch.openMoved`), or with a few changed,
   * those held over it (`CatalogWriter.holdMoved`).
   */
  static async #assembleHoldOrMove(options: EngineOptions, catalog: SkillCatalog, hold: boolean): Promise<Assembly> {
    // A tools file's changed lines, when that is all that changed, else the catalog loaded whole.
    const delta = await catalog.delta();
    const engine = await SkillSearchEngine.open(options);
    try {
      const held = delta !== undefined && hold ? await engine.catalogWriter?.holdDelta(delta) : undefined;
      if (held !== undefined) return { held, delta: delta! };
      const assembled = delta === undefined ? undefined : await engine.catalogWriter?.assembleDelta(delta);
      if (assembled !== undefined) return { assembled };
      const copied = await StoredSearch.openCopy(options, (saved) => catalog.copyOf(saved));
      if (copied !== undefined)
        return {
          moved: copied.opened,
          sourceStamp: copied.copy.sourceStamp,
          write: async () => {
            const snapshot = await catalog.get();
            const facts = snapshotFacts(snapshot);
            if (facts !== undefined) await LiveIndex.#write(options, { ...facts, skills: snapshot.skills });
          },
        };
      const snapshot = await catalog.get();
      const facts = snapshotFacts(snapshot);
      if (facts === undefined || snapshot.skills.length === 0) return { assembled: undefined };
      const whole = { ...facts, skills: snapshot.skills };
      const moved = await StoredSearch.openMoved(options, snapshot.skills, snapshot.diagnostics);
      if (moved !== undefined) return { moved, sourceStamp: facts.sourceStamp, write: () => LiveIndex.#write(options, whole) };
      // A copy with a few skills edited: those held over the saved catalog, the records from memory.
      const heldCopy = await engine.catalogWriter?.holdMoved(snapshot.skills);
      const edited = heldCopy === undefined ? undefined : await StoredSearch.openMoved(options, snapshot.skills, snapshot.diagnostics, heldCopy);
      if (edited !== undefined) return { moved: edited, sourceStamp: facts.sourceStamp, write: () => LiveIndex.#write(options, whole) };
      return { assembled: await engine.catalogWriter?.assemble(whole) };
    } finally {
      await engine.close();
    }
  }

  /** Writes `catalog` in the store (`CatalogWriter.assemble`); undefined when it was not written. */
  static async #write(options: EngineOptions, catalog: SnapshotCatalog & { readonly skills: readonly Skill[] }): Promise<AssembledCatalog | undefined> {
    const engine = await SkillSearchEngine.open(options);
    try {
      return await engine.catalogWriter?.assemble(catalog);
    } finally {
      await engine.close();
    }
  }

  /**
   * Saves the catalog on disk in the store when only a tools file's lines changed since a saved
   * catalog (`CatalogWriter.assembleDelta`: the changed lines parsed, embedded and tokenised,
   * the catalog written from the saved one), without loading it whole: what `index` tries first,
   * so the indexer a hook hands an edit to writes it in a fraction of a second and leaves the
   * line table as it was (the hooks meanwhile hold the same change against it). Undefined when
   * it cannot be saved so; counts nothing when it was saved already.
   */
  static async saveDelta(options: LiveIndexOptions, signal?: AbortSignal): Promise<DeltaSaved | undefined> {
    const { catalog, toolsCache } = openCatalog(options);
    try {
      const delta = await catalog.delta();
      if (delta === undefined) return undefined;
      const engine = await SkillSearchEngine.open(engineOptions(options, { writer: true }));
      let assembled: AssembledCatalog | undefined;
      const { model } = engine.info;
      try {
        assembled = await engine.catalogWriter?.assembleDelta(delta, signal);
        // Off a prompt's path, as a whole `index` does: 0.2-0.3 s at 24k skills (docs/store.md, "The writers measured").
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
   * Saves the catalog on disk when the store holds its skills at another path (a tools file
   * copied or moved, a skill library copied: docs/store.md, "A catalog at a new path") from that
   * catalog's entries: its members with their records moved, nothing embedded, tokenised or
   * synced. What `index` tries after {@link saveDelta}, so the indexer a hook hands a copy to
   * does not sync the whole catalog. A tools file's copy is found by its bytes (the file not
   * parsed; the base's line table kept for the copy), else the catalog is loaded (this index's,
   * so a sync after reads it again from memory) and compared with the catalog saved last.
   * Undefined when neither finds one (or it could not be written so); counts nothing when it
   * was saved already.
   */
  async saveMoved(): Promise<MovedSaved | undefined> {
    const options = this.engine.options;
    const store = storeSource(options);
    if (typeof store !== 'string') return undefined;
    const shared = new SharedStore(store, { writer: true });
    try {
      const keyOf = (stamp: string) => catalogKey(stamp, options);
      const copy = await this.catalog.copyOf((base) => shared.catalog(keyOf(base.portableStamp ?? base.sourceStamp)) !== undefined);
      if (copy !== undefined) {
        const base = shared.catalog(keyOf(copy.base.portableStamp ?? copy.base.sourceStamp));
        if (base === undefined) return undefined;
        const diagnostics = (JSON.parse(base.diagnostics) as Diagnostic[]).map((d) => renameDiagnostic(d, copy));
        const members = shared.members(base.id).all();
        const moved = members.map((m) => ({ ...m, record: JSON.stringify(renameSkill(JSON.parse(m.record) as Skill, copy)) }));
        const key = keyOf(copy.portableStamp ?? copy.sourceStamp);
        if (shared.catalog(key) === undefined && !putMovedCatalog(shared, key, base, { sourceStamp: copy.sourceStamp, diagnostics, members: moved }))
          return undefined;
        const cache = this.catalog.options.toolsCache;
        if (cache !== undefined && cache !== null) keepCopyTable(copy, cache);
        return { skills: members.length, model: this.engine.info.model, diagnostics };
      }
      const snapshot = await this.catalog.get();
      const facts = snapshotFacts(snapshot);
      if (facts === undefined || snapshot.skills.length === 0) return undefined;
      const key = keyOf(facts.portableStamp ?? facts.sourceStamp);
      if (shared.catalog(key) !== undefined) return undefined;
      const language = new CrossLingual({ ...options.crossLingual, multilingual: options.embedder.multilingual === true, cache: shared });
      const moved = await movedBase(shared, catalogModel(options), snapshot.skills, language);
      if (moved === undefined) return undefined;
      const members = [...moved.skills.values()].map((skill) => memberOf(skill, language.glossesOf(skill)?.lexical));
      if (!putMovedCatalog(shared, key, moved.base, { sourceStamp: facts.sourceStamp, diagnostics: facts.diagnostics, members })) return undefined;
      return { skills: members.length, model: this.engine.info.model, diagnostics: facts.diagnostics };
    } finally {
      shared.close();
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
   * it yet (`close` does this), once another process's write is done: waited for without holding
   * the thread (`SkillSearchEngine.whenStoreFree`). Resolves to whether it was written; a failure
   * only costs the next cold process its shortcut, so it is returned, never thrown.
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

export interface SnapshotOptions {
  /**
   * When no catalog saved matches the disk, write it in the store from the catalog saved last
   * (embedding and tokenising only what changed) and open that: what a cold `query` or hook
   * does before falling back to a live index. Off: only a saved catalog is opened.
   */
  readonly assemble?: boolean;
}

/** A catalog searched as the saved one holding its skills at another path, and how to write it (still to do). */
interface MovedSearch {
  readonly moved: OpenedCatalog;
  readonly sourceStamp: string;
  readonly write: () => Promise<unknown>;
}

/** What {@link LiveIndex.saveDelta} saved: the catalog's skills, how they moved against the saved one, and its load problems. */
export interface DeltaSaved {
  readonly skills: number;
  readonly added: number;
  readonly updated: number;
  readonly removed: number;
  readonly unchanged: number;
  readonly embedded: number;
  /** The engine's model id. */
  readonly model: string;
  readonly diagnostics: readonly Diagnostic[];
}

/** What {@link LiveIndex.saveMoved} saved: the catalog's size and load problems (nothing embedded or changed). */
export interface MovedSaved {
  readonly skills: number;
  /** The engine's model id. */
  readonly model: string;
  readonly diagnostics: readonly Diagnostic[];
}

/** A changed catalog written in the store (what it cost; undefined: not written), held in memory over the one its delta changes, or searched as a saved one at another path. */
type Assembly = { readonly assembled: AssembledCatalog | undefined } | { readonly held: HeldCatalog; readonly delta: CatalogDelta } | MovedSearch;

/** The read-only search {@link LiveIndex.openSnapshot} opens. */
export interface SnapshotSearch extends ClosableSearcher {
  /** What writing the catalog cost, when it was assembled for this search ({@link SnapshotOptions.assemble}). */
  readonly assembled?: AssembledCatalog;
  /**
   * Set when the changed catalog is searched held in memory, not written: its write was handed
   * to `onSnapshotDue` ({@link LiveIndexOptions.onSnapshotDue}); `embedded`: skills embedded for it.
   */
  readonly held?: { readonly embedded: number };
  /** For `size` and `explain`. */
  readonly engine: StoredSearch;
  /** The catalog's load problems when it was saved. */
  readonly diagnostics: readonly Diagnostic[];
}

function snapshotFacts(snapshot: CatalogSnapshot): SnapshotCatalog | undefined {
  const { sourceStamp, portableStamp, diagnostics } = snapshot;
  return sourceStamp === undefined ? undefined : { sourceStamp, portableStamp, diagnostics };
}

/** `writer`: the engine writes the catalog as its writer (`EngineOptions.storeWriter`), not as a reader's cache. */
function engineOptions(
  { model, downloadsDir, indexDir, store, k, mode, dictionaryDir, abstain, knobs }: LiveIndexOptions,
  { writer = false }: { readonly writer?: boolean | 'async' } = {},
): EngineOptions {
  return {
    ...knobs,
    ...(writer === false ? {} : { storeWriter: writer }),
    embedder: resolveEmbedder(model, { downloadsDir }),
    ...definedOnly({ indexDir, store, k, mode, abstain }),
    ...(dictionaryDir === undefined ? {} : { crossLingual: { ...knobs?.crossLingual, dictionaryDir } }),
  };
}

interface CatalogWithCache {
  readonly catalog: SkillCatalog;
  /** Made here, so closed by its opener. */
  readonly toolsCache: StoreToolsCache | undefined;
  /** With `deferWrites`: the catalog's tools cache, its writes held until flushed or dropped. */
  readonly deferred?: DeferredToolsCache;
}

/**
 * The catalog, its options without `watch` (a `LiveIndex` watches only when asked, `watch()`),
 * and unless they name one, the store's tools cache: a tools file's parsed skills and line table
 * are kept beside the catalogs saved from them.
 */
function openCatalog(options: LiveIndexOptions, { deferWrites = false } = {}): CatalogWithCache {
  const { watch: _ignored, ...rest } = options.catalog;
  const store = storeSource(options);
  // The tools tables are SQLite's: a store passed in as an object keeps no tools cache.
  const toolsCache = rest.toolsCache !== undefined || typeof store !== 'string' ? undefined : new StoreToolsCache(store);
  const given = rest.toolsCache ?? toolsCache;
  // A cold search writes a tools file's snapshot and line table once it knows who writes the catalog.
  const deferred = deferWrites && given !== undefined && given !== null ? new DeferredToolsCache(given) : undefined;
  const used = deferred ?? given;
  return { catalog: new SkillCatalog(used === undefined ? rest : { ...rest, toolsCache: used }), toolsCache, ...(deferred === undefined ? {} : { deferred }) };
}

/**
 * The error for a catalog with no skills (SPEC §7: a user error), saying where we looked; when files were skipped it says how many and why
 * the first one was (the usual reason nothing was found).
 */
export function nothingToIndex(where: string, diagnostics: readonly Diagnostic[] = []): SkillSearchError {
  const skipped = diagnostics.filter((d) => d.severity === 'error');
  const first = skipped[0];
  if (first === undefined) return new SkillSearchError('NOTHING_TO_INDEX', `no skills found ${where}`);
  const why = `${skipped.length} ${skipped.length === 1 ? 'entry' : 'entries'} could not be loaded, the first: ${first.path}: ${first.message}`;
  return new SkillSearchError('NOTHING_TO_INDEX', `no skills found ${where}; ${why} (run \`skill-search validate\` for all)`);
}
