/** What a live index or a cold search is opened with, and the engine options and catalog made of it. */
import { resolveEmbedder } from '../embed/resolve.js';
import { SkillCatalog, resolveCatalogOptions, type CatalogOptions } from '../load/index.js';
import { ENGINE_DEFAULTS } from '../search/options.js';
import { assertKnownKeys } from '../util/option-checks.js';
import type { EngineKnobs, EngineOptions, SnapshotCatalog } from '../search/index.js';
import { storeSource } from '../search/stored-search.js';
import type { AbstainSetting, CatalogSnapshot, SearchMode } from '../types.js';
import { StoreToolsCache } from '../store/store-tools-cache.js';
import { definedOnly } from '../util/defined.js';

export interface LiveIndexOptions {
  /** Where skills come from (cwd, `skillsDirs`, `toolsFiles`, …). A `watch` here is ignored: call `watch()`. */
  readonly catalog: CatalogOptions;
  /** Model spec for `resolveEmbedder` (`use-lite`, `hash`, a preset id, a folder under `models/`). */
  readonly model: string;
  /** Where pulled presets live (`resolveEmbedder`'s `downloadsDir`). @default `<cache root>/models` from `process.env` */
  readonly downloadsDir?: string;
  /** Folder of this catalog's server socket and builder lease; without `store`, its `store.sqlite` is the store. */
  readonly indexDir?: string;
  /** The store shared by every folder and process (`EngineOptions.store`); in-memory when neither this nor `indexDir` is given. */
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
   * Called with the catalog's stamp instead of saving it in the store when that is due (by
   * `close`, and `openSnapshot`), so a caller that must end quickly (the hook) has another process write it.
   */
  readonly onSnapshotDue?: (sourceStamp: string) => void;
}

const LIVE_INDEX_KEYS = [
  'catalog',
  'model',
  'downloadsDir',
  'indexDir',
  'store',
  'k',
  'mode',
  'dictionaryDir',
  'abstain',
  'knobs',
  'onSnapshotDue',
] as const satisfies readonly (keyof LiveIndexOptions)[];

/** Refuses an unknown key of `options`, of its `catalog` and of its `knobs`, by its full name (`catalog.skilsDirs`), before anything opens. */
export function assertLiveIndexOptions(options: LiveIndexOptions): void {
  assertKnownKeys('LiveIndex', options, LIVE_INDEX_KEYS);
  const { watch: _ignored, ...catalog } = options.catalog;
  resolveCatalogOptions(catalog, { owner: 'LiveIndex', path: 'catalog' });
  if (options.knobs !== undefined) {
    assertKnownKeys('LiveIndex', options.knobs, Object.keys(ENGINE_DEFAULTS), 'knobs');
  }
}

export function snapshotFacts(snapshot: CatalogSnapshot): SnapshotCatalog | undefined {
  const { sourceStamp, portableStamp, diagnostics } = snapshot;
  return sourceStamp === undefined ? undefined : { sourceStamp, portableStamp, diagnostics };
}

/** `writer`: the engine writes the catalog as its writer (`EngineOptions.storeWriter`), not as a reader's cache. */
export function engineOptions(
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

export interface CatalogWithCache {
  readonly catalog: SkillCatalog;
  /** Made here, so closed by its opener; with `deferWrites`, its writes held until it closes or drops them. */
  readonly toolsCache: StoreToolsCache | undefined;
}

/** The catalog (without `watch`: a `LiveIndex` watches only when asked) and, unless the options name one, the store's tools cache. */
export function openCatalog(options: LiveIndexOptions, { deferWrites = false } = {}): CatalogWithCache {
  const { watch: _ignored, ...rest } = options.catalog;
  const store = storeSource(options);
  // The tools tables are SQLite's: a store passed in as an object keeps no tools cache.
  const toolsCache = rest.toolsCache !== undefined || typeof store !== 'string' ? undefined : new StoreToolsCache(store, { deferred: deferWrites });
  return { catalog: new SkillCatalog(toolsCache === undefined ? rest : { ...rest, toolsCache }), toolsCache };
}
