import { resolveEmbedder } from '../embed/index.js';
import { SkillSearchError } from '../errors.js';
import { SkillCatalog, type CatalogOptions } from '../load/index.js';
import { SkillSearchEngine, type EngineKnobs, type SyncResult } from '../search/index.js';
import type { AbstainSetting, CatalogSnapshot, Diagnostic, SearchHit, SearchMode, SearchRequest, Skill } from '../types.js';
import type { SkillService } from './service.js';

export interface LiveIndexOptions {
  /** Where skills come from (cwd, `skillsDirs`, `toolsFiles`, …). A `watch` here is ignored: call `watch()`. */
  readonly catalog: CatalogOptions;
  /** Model spec for `resolveEmbedder` (`use-lite`, `hash`, a preset id, a folder under `models/`). */
  readonly model: string;
  /** Where pulled presets live (`resolveEmbedder`'s `downloadsDir`). @default `<cache root>/models` from `process.env` */
  readonly downloadsDir?: string;
  /** Folder of the persistent index; in-memory when absent. */
  readonly indexDir?: string;
  readonly k?: number;
  readonly mode?: SearchMode;
  /** Where the translation dictionary is cached (see `src/lang/`). @default the engine's default */
  readonly dictionaryDir?: string;
  /** The engine's abstention (see `EngineOptions.abstain`). */
  readonly abstain?: AbstainSetting;
  /** Any other engine knobs (`skill-search eval --config`); the fields above take precedence. */
  readonly knobs?: EngineKnobs;
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
  #closing: Promise<void> | undefined;

  private constructor(catalog: SkillCatalog, engine: SkillSearchEngine) {
    this.catalog = catalog;
    this.engine = engine;
  }

  static async open(options: LiveIndexOptions): Promise<LiveIndex> {
    const embedder = resolveEmbedder(options.model, options.downloadsDir === undefined ? {} : { downloadsDir: options.downloadsDir });
    const engine = await SkillSearchEngine.open({
      ...options.knobs,
      embedder,
      ...(options.indexDir === undefined ? {} : { indexDir: options.indexDir }),
      ...(options.k === undefined ? {} : { k: options.k }),
      ...(options.mode === undefined ? {} : { mode: options.mode }),
      ...(options.dictionaryDir === undefined ? {} : { crossLingual: { ...options.knobs?.crossLingual, dictionaryDir: options.dictionaryDir } }),
      ...(options.abstain === undefined ? {} : { abstain: options.abstain }),
    });
    const { watch: _ignored, ...catalogOptions } = options.catalog;
    return new LiveIndex(new SkillCatalog(catalogOptions), engine);
  }

  /** Syncs the engine to the current catalog when its generation moved. */
  async refresh(options: RefreshOptions = {}): Promise<RefreshResult> {
    const started = performance.now();
    const snapshot = await this.catalog.get();
    if (snapshot.generation === this.#synced) return { snapshot, sync: undefined, ms: performance.now() - started };
    const sync = await this.engine.sync(snapshot.skills, options);
    this.#synced = snapshot.generation;
    return { snapshot, sync, ms: performance.now() - started };
  }

  async search(query: string, request: SearchRequest = {}): Promise<readonly SearchHit[]> {
    await this.refresh(request.signal === undefined ? {} : { signal: request.signal });
    return this.engine.search(query, request);
  }

  async skills(): Promise<readonly Skill[]> {
    return (await this.catalog.get()).skills;
  }

  /** Idempotent: stops the watcher and waits for a running sync. */
  close(): Promise<void> {
    this.#closing ??= Promise.all([this.catalog.close(), this.engine.close()]).then(() => undefined);
    return this.#closing;
  }
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
