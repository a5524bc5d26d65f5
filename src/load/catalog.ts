import { EventEmitter } from 'node:events';
import { resolve } from 'node:path';
import type { CatalogSnapshot, Diagnostic } from '../types.js';
import { closedError } from '../errors.js';
import { mergeSkills, patchMerge, sameContent, type MergeEntry, type MergeResult, type ScanContent } from './merge.js';
import {
  DEFAULT_WATCH_OPTIONS,
  resolveCatalogOptions,
  resolveWatchOptions,
  type CatalogOptions,
  type CatalogWatchOptions,
  type ResolvedCatalogOptions,
} from './options.js';
import { PluginStateWatcher } from './plugin-watch.js';
import { ScanMemo, movedFiles, scanSkillsDir, settledBy, statSkillsDir } from './scan.js';
import { catalogStamps, type ReadStamps, type StampInputs, type StatStamps } from './source-stamp.js';
import { skillSelector } from './skill-globs.js';
import { buildMcpSkills, type McpSkillInput } from './mcp-skills.js';
import { SOURCE_RANKS, demoSource, isOverride, resolveSources, type SourceDir } from './sources.js';
import { loadToolsJsonl, ToolsMemo, type ToolsResult } from './tools-jsonl.js';
import { toolsDelta, type CatalogDelta } from './tools-delta.js';
import { folderDelta, folderEdits, type FolderEdits, type ScannedDir } from './folder-delta.js';
import { editedCopy, toolsCopy, type CatalogCopy, type CopyInputs, type EditedCopy } from './tools-copy.js';
import { sameStat, toolsFileStat, type ToolsKey } from './tools-cache.js';
import { getOrAdd } from '../util/get-or-add.js';
import type { SkillWatcher } from './watcher.js';

export const CATALOG_EVENTS = Object.freeze({
  /** The catalog was invalidated; the next `get()` rescans. */
  change: 'change',
  /** A watcher problem. Never thrown; without a listener it becomes a process warning. */
  error: 'error',
} as const);
export type CatalogEventName = (typeof CATALOG_EVENTS)[keyof typeof CATALOG_EVENTS];

export interface CatalogChange {
  /** `files`: the watcher saw skill files change; `plugins` / `mcp` / `config`: the API was called. */
  readonly reason: 'files' | 'plugins' | 'mcp' | 'config';
  /** Changed files or folders (`files`), or the MCP server / plugin roots concerned. */
  readonly paths: readonly string[];
}

export interface CatalogEventMap {
  change: [change: CatalogChange];
  error: [error: Error];
}

/** The sources a user's config decides (`skill-search.json`: library folders, include and exclude, the source switches). */
export type ConfiguredSources = Pick<CatalogOptions, 'libraryDirs' | 'defaultLibraryDir' | 'include' | 'exclude' | 'demo' | 'codexHome' | 'claudePlugins'>;

export interface PluginUpdate {
  readonly pluginDirs?: readonly string[];
  readonly builtinPluginDirs?: readonly string[];
}

/** One folder's merged skill catalog, served from memory until a watched file, plugin or MCP change or `clear()`; concurrent `get()`s share a scan. */
export class SkillCatalog extends EventEmitter<CatalogEventMap> {
  /** As given, so a plugin update can be re-resolved with the same defaults. */
  #input: CatalogOptions;
  #options: ResolvedCatalogOptions;
  #pending: Promise<CatalogSnapshot> | undefined;
  /** Scans run one after another, so generations are monotonic and never name two different contents. */
  #lastScan: Promise<unknown> = Promise.resolve();
  #generation = 0;
  /** What the last scan found ({@link sameContent}). */
  #content: ScanContent | undefined;
  /** The last merge, which a rescan that only changed some skills' text patches ({@link patchMerge}). */
  #merged: { readonly entries: readonly MergeEntry[]; readonly result: MergeResult } | undefined;
  readonly #mcp = new Map<string, ReturnType<typeof buildMcpSkills>>();
  /** Loaded on the first `watch()`: a process that never watches never loads chokidar. */
  #watcher: Promise<SkillWatcher> | undefined;
  /** Started with the watcher when the catalog scans Claude Code's plugins. */
  #plugins: PluginStateWatcher | undefined;
  #closing: Promise<void> | undefined;
  /** The folders' stats {@link stamps} took last, which the next scan reads by (taken before it, as its own would be); dropped by `clear()`. */
  #stamped: StampInputs['dirs'] | undefined;
  /** The last snapshot scanned and its folders as the scan left them ({@link folderDelta}). */
  #scanned: { readonly snapshot: CatalogSnapshot; readonly dirs: readonly ScannedDir[] } | undefined;
  /** Each skill folder's last scan, so a rescan reads only the files whose stat moved. */
  readonly #scanMemos = new Map<string, ScanMemo>();
  /** Each tools file's last load, so a rescan skips a file whose stat did not move and a reload after a one-line edit parses that line. */
  readonly #toolsMemos = new Map<string, ToolsMemo>();

  constructor(options: CatalogOptions = {}) {
    super();
    // Checked before anything reads them, so a wrong `cwd` type is a BAD_OPTION line, not Node's TypeError.
    this.#options = resolveCatalogOptions(options);
    this.#input = { ...options, cwd: this.#options.cwd };
    if (this.#options.watch !== false) void this.watch(this.#options.watch).catch((error: unknown) => this.#reportError(error));
  }

  get options(): ResolvedCatalogOptions {
    return this.#options;
  }

  get cwd(): string {
    return this.#options.cwd;
  }

  /** The current snapshot; scans only when nothing valid is cached. */
  get(): Promise<CatalogSnapshot> {
    if (this.#pending === undefined) {
      const scan = this.#lastScan.then(() => this.#scan());
      this.#lastScan = scan.catch(() => undefined);
      this.#pending = scan;
      // A failed scan (e.g. a missing --tools file) is not cached: the next call retries.
      scan.catch(() => {
        if (this.#pending === scan) this.#pending = undefined;
      });
    }
    return this.#pending;
  }

  /** Drops the cached snapshot; the next `get()` rescans. */
  clear(): void {
    this.#pending = undefined;
    this.#stamped = undefined;
  }

  /**
   * Scans again when the last scan kept files as modified too recently to reuse (`RACY_MS`) that no longer are, so that the memo a
   * writer keeps reuses them: a folder copied in and indexed at once would otherwise have every later process read its newest files.
   */
  async settle(): Promise<void> {
    const now = Date.now();
    const settles = (memo: ScanMemo) => [...memo.files.values()].some((entry) => entry.racy && settledBy(entry, now));
    if (![...this.#scanMemos.values()].some(settles)) return;
    this.clear();
    await this.get();
  }

  /** Adds or replaces the skills an MCP server provides (rank 8). */
  registerMcpSkills(server: string, skills: readonly McpSkillInput[]): void {
    this.#mcp.set(server, buildMcpSkills(server, skills, this.#options.limits));
    this.#invalidate({ reason: 'mcp', paths: [`mcp:${server}`] });
  }

  /** Removes an MCP server's skills; false when it had none registered. */
  unregisterMcpServer(server: string): boolean {
    if (!this.#mcp.delete(server)) return false;
    this.#invalidate({ reason: 'mcp', paths: [`mcp:${server}`] });
    return true;
  }

  /** Plugins were installed or removed: optionally replace the plugin roots, then rescan. */
  notifyPluginsChanged(update: PluginUpdate = {}): void {
    if (update.pluginDirs !== undefined || update.builtinPluginDirs !== undefined) {
      this.#input = {
        ...this.#input,
        pluginDirs: update.pluginDirs ?? this.#options.pluginDirs,
        builtinPluginDirs: update.builtinPluginDirs ?? this.#options.builtinPluginDirs,
      };
      this.#options = resolveCatalogOptions(this.#input);
    }
    // Enabled Claude Code plugins are read from the host's files on each scan: their folders move too.
    void this.#watcher?.then((watcher) => watcher.setRoots(this.#watchRoots()));
    this.#invalidate({ reason: 'plugins', paths: [...this.#options.builtinPluginDirs, ...this.#options.pluginDirs] });
  }

  /** The user's config changed (a `watch` re-read it): replaces the sources it decides, follows their folders and rescans. */
  reconfigure(update: ConfiguredSources): void {
    // Only these: `update` may be a command's whole catalog options.
    const { libraryDirs, defaultLibraryDir, include, exclude, demo, codexHome, claudePlugins } = update;
    this.#input = { ...this.#input, libraryDirs, defaultLibraryDir, include, exclude, demo, codexHome, claudePlugins };
    this.#options = resolveCatalogOptions(this.#input);
    void this.#watcher?.then((watcher) => watcher.setRoots(this.#watchRoots()));
    const { defaultLibraryDir: defaultDir, libraryDirs: named } = this.#options;
    this.#invalidate({ reason: 'config', paths: defaultDir === null ? [...named] : [defaultDir, ...named] });
  }

  /** Starts watching every source (idempotent); resolves when ready. Each coalesced batch of changes then invalidates the catalog and emits `change`. */
  watch(options?: CatalogWatchOptions): Promise<void> {
    if (this.#closing !== undefined) return Promise.reject(closedError('the catalog'));
    if (this.#watcher === undefined) {
      const resolved = options === undefined ? this.#options.watch || DEFAULT_WATCH_OPTIONS : resolveWatchOptions(options);
      const { claudePlugins, home, cwd } = this.#options;
      if (claudePlugins && !isOverride(this.#options)) {
        this.#plugins = new PluginStateWatcher({ home, cwd }, { intervalMs: resolved.pollInterval, onChange: () => this.notifyPluginsChanged() });
      }
      this.#watcher = import('./watcher.js').then(
        ({ SkillWatcher }) =>
          new SkillWatcher(this.#watchRoots(), resolved, {
            onChange: (paths) => this.#invalidate({ reason: 'files', paths }),
            onError: (error) => this.#reportError(error),
          }),
      );
    }
    return this.#watcher.then((watcher) => watcher.ready);
  }

  /** Stops the watcher. Idempotent: every call returns the same promise. */
  close(): Promise<void> {
    this.#plugins?.close();
    this.#closing ??= this.#watcher?.then((watcher) => watcher.close()) ?? Promise.resolve();
    return this.#closing;
  }

  #watchRoots(): string[] {
    return [...resolveSources(this.#options).map((source) => source.dir), ...this.#options.toolsFiles];
  }

  #invalidate(change: CatalogChange): void {
    this.clear();
    this.emit(CATALOG_EVENTS.change, Object.freeze(change));
  }

  #reportError(error: unknown): void {
    const wrapped = error instanceof Error ? error : new Error(String(error));
    if (this.listenerCount(CATALOG_EVENTS.error) > 0) this.emit(CATALOG_EVENTS.error, wrapped);
    else process.emitWarning(`skill-search: watcher error: ${wrapped.message}`);
  }

  /** The `sourceStamp` the snapshot `get()` would return now, cheaply: the files a scan would read are only stat'ed (`withDemo` aside, see {@link stamps}). */
  async sourceStamp(): Promise<string | undefined> {
    return (await this.stamps()).sourceStamp;
  }

  /**
   * {@link sourceStamp} and its `portableStamp` (the same without the working folder), from one listing (`catalogStamps`);
   * with the `auto` demo rule, `withDemo` too: what `get()` returns when no skill of the user's loads.
   */
  async stamps(): Promise<StatStamps> {
    const options = this.#options;
    const demo = demoSource(options);
    const [dirs, demoStamp] = await Promise.all([this.#statDirs(), demo === null ? undefined : statSkillsDir(demo.dir, demo)]);
    const tools = options.toolsFiles.map((file) => ({ path: resolve(file), stat: toolsFileStat(resolve(file)) }));
    const inputs: StampInputs = { options, dirs, tools, mcp: [...this.#mcp.values()] };
    const stamps = catalogStamps(inputs);
    return demo === null || demoStamp === undefined ? stamps : { ...stamps, withDemo: catalogStamps(inputs, { source: demo, stamp: demoStamp }) };
  }

  /** The catalog as a change of the one its tools files were last loaded into (`toolsDelta`), when it is made of tools files only and one changed. */
  delta(): Promise<CatalogDelta | undefined> {
    return this.#toolsOnly(toolsDelta);
  }

  /**
   * The catalog as a change of the one its skill folders' memos were kept with (`folderDelta`), when it is made of skill folders only
   * and their scan read a few files in place; scans (`get()`) to tell it.
   */
  async folderDelta(): Promise<CatalogDelta | undefined> {
    const { options } = this;
    if (options.toolsFiles.length > 0 || options.toolsCache === null || this.#mcp.size > 0 || options.include.length > 0 || options.exclude.length > 0) {
      return undefined;
    }
    const snapshot = await this.get();
    const scanned = this.#scanned;
    return scanned?.snapshot === snapshot ? folderDelta(snapshot, scanned.dirs, { options, tools: [], mcp: [] }) : undefined;
  }

  /**
   * {@link folderDelta} without a scan, when only files in place were edited: the files whose stat moved since the folders' kept
   * memos, read again, from the stats `stamps()` took (taken now without them); of the memos only the pieces whose digest moved.
   */
  async folderEdits(): Promise<FolderEdits | undefined> {
    const { options } = this;
    if (options.toolsFiles.length > 0 || options.toolsCache === null || this.#mcp.size > 0 || options.include.length > 0 || options.exclude.length > 0) {
      return undefined;
    }
    // With the `auto` demo rule only a scan tells whether the demo catalogue is in.
    if (demoSource(options) !== null) return undefined;
    const sources = JSON.stringify(resolveSources(options));
    const stamped = this.#stamped !== undefined && JSON.stringify(this.#stamped.map(({ source }) => source)) === sources ? this.#stamped : undefined;
    const dirs = stamped ?? (await this.#statDirs());
    const moved = await Promise.all(dirs.map(({ source, stamp }) => movedFiles(stamp, this.#scanMemo(source), { ...source, limits: options.limits })));
    if (moved.some((files) => files === undefined)) return undefined;
    return folderEdits(
      dirs.map((dir, i) => ({ ...dir, moved: moved[i]! })),
      { options, tools: [], mcp: [] },
    );
  }

  /** The catalog this one is a byte-for-byte copy of at other paths (`toolsCopy`), whose stamps `held` says the store holds. */
  copyOf(held: (base: ReadStamps) => boolean): Promise<CatalogCopy | undefined> {
    return this.#toolsOnly((inputs) => toolsCopy(inputs, held));
  }

  /** The catalog this one is an edited copy of, as a change of it (`editedCopy`), whose stamps `held` says the store holds. */
  editedCopyOf(held: (base: ReadStamps) => boolean): Promise<EditedCopy | undefined> {
    return this.#toolsOnly((inputs) => editedCopy(inputs, held));
  }

  /** `tell` of what tools deltas and copies are told from, for a catalog of tools files only (no skill folder's file, MCP skill, include or exclude) with a cache. */
  async #toolsOnly<T>(tell: (inputs: CopyInputs) => T | undefined | Promise<T | undefined>): Promise<T | undefined> {
    const { options } = this;
    const cache = options.toolsCache;
    if (options.toolsFiles.length === 0 || cache === null || this.#mcp.size > 0 || options.include.length > 0 || options.exclude.length > 0) return undefined;
    const dirs = await this.#statDirs();
    if (dirs.some(({ stamp }) => stamp.files.length > 0 || stamp.diagnostics.length > 0)) return undefined;
    return tell({ stamp: { options, dirs, mcp: [] }, cache, files: options.toolsFiles.map((file) => this.#toolsContext(file)) });
  }

  /** Each source folder with the {@link statSkillsDir} of the files a scan would read there. */
  async #statDirs(): Promise<StampInputs['dirs']> {
    this.#stamped = await Promise.all(resolveSources(this.#options).map(async (source) => ({ source, stamp: await statSkillsDir(source.dir, source) })));
    return this.#stamped;
  }

  /** What a tools file's lines are built with (`#loadTools` and `delta` alike). */
  #toolsContext(file: string): ToolsKey {
    return { path: resolve(file), source: 'skills', rank: SOURCE_RANKS.project, limits: this.#options.limits };
  }

  async #scan(): Promise<CatalogSnapshot> {
    const options = this.#options;
    const sources = resolveSources(options);
    const stamped =
      this.#stamped !== undefined && JSON.stringify(this.#stamped.map(({ source }) => source)) === JSON.stringify(sources) ? this.#stamped : undefined;
    this.#stamped = undefined;
    const scanOf = (source: SourceDir, i: number) =>
      scanSkillsDir(source.dir, { ...source, limits: options.limits, memo: this.#scanMemo(source), stamped: stamped?.[i]?.stamp });
    const [scans, tools] = await Promise.all([Promise.all(sources.map(scanOf)), Promise.all(options.toolsFiles.map((file) => this.#loadTools(file)))]);
    const mcp = [...this.#mcp.values()];
    const entries: MergeEntry[] = [];
    const diagnostics: Diagnostic[] = [];
    for (const scan of scans) {
      for (const skill of scan.skills) entries.push({ skill, realPath: scan.realPaths.get(skill.path) ?? skill.path });
      diagnostics.push(...scan.diagnostics);
    }
    for (const result of tools) {
      for (const entry of toolsEntries(result)) entries.push(entry);
      diagnostics.push(...result.diagnostics);
    }
    for (const server of mcp) {
      for (const skill of server.skills) entries.push({ skill, realPath: skill.path });
      diagnostics.push(...server.diagnostics);
    }
    const selected = skillSelector(options.include, options.exclude);
    const chosen = (entry: MergeEntry) => selected(entry.skill);
    const everySkill = options.include.length === 0 && options.exclude.length === 0;
    const kept = everySkill ? entries : entries.filter(chosen);
    let excluded = entries.length - kept.length;
    let merged = this.#merge(kept);
    // The example catalogue fills an otherwise empty catalog only: it never shadows or crowds a user's skills.
    const demo = merged.skills.length === 0 ? demoSource(options) : null;
    let demoDir: StampInputs['dirs'][number] | undefined;
    if (demo !== null) {
      const scan = await scanSkillsDir(demo.dir, { ...demo, limits: options.limits });
      for (const skill of scan.skills) entries.push({ skill, realPath: scan.realPaths.get(skill.path) ?? skill.path });
      diagnostics.push(...scan.diagnostics);
      const keptWithDemo = entries.filter(chosen);
      excluded = entries.length - keptWithDemo.length;
      merged = mergeSkills(keptWithDemo);
      demoDir = { source: demo, stamp: scan.stamp };
    }
    // The folders `stamps()` took when the scan read by them: their digests, hashed for that lookup, are not taken again.
    const dirs = scans.map((scan, i) => (stamped?.[i]?.stamp === scan.stamp ? stamped[i]! : { source: sources[i]!, stamp: scan.stamp }));
    const tooled = tools.map((result, i) => ({ path: resolve(options.toolsFiles[i]!), stat: result.stat }));
    const { sourceStamp: stamp, portableStamp: portable } = catalogStamps({ options, dirs, tools: tooled, mcp }, demoDir);

    const content: ScanContent = { skills: merged.skills, rest: JSON.stringify([merged.shadowed, diagnostics, excluded]) };
    if (!sameContent(this.#content, content)) this.#generation += 1;
    this.#content = content;
    const generation = this.#generation;
    const snapshot: CatalogSnapshot = Object.freeze({
      cwd: options.cwd,
      skills: Object.freeze(merged.skills),
      shadowed: Object.freeze(merged.shadowed),
      excluded,
      diagnostics: Object.freeze(diagnostics),
      generation,
      ...(stamp === undefined ? {} : { sourceStamp: stamp }),
      ...(portable === undefined ? {} : { portableStamp: portable }),
    });
    this.#scanned = demoDir === undefined ? { snapshot, dirs: dirs.map((dir) => ({ ...dir, memo: this.#scanMemo(dir.source) })) } : undefined;
    return snapshot;
  }

  /** {@link mergeSkills}, or the last merge patched when only the text of some skills changed. */
  #merge(entries: readonly MergeEntry[]): MergeResult {
    const last = this.#merged;
    const result = (last === undefined ? undefined : patchMerge(last.entries, last.result, entries)) ?? mergeSkills(entries);
    this.#merged = { entries, result };
    return result;
  }

  /** The memo of one skill folder scanned with one set of options (a plugin update may change them), kept in the tools cache. */
  #scanMemo(source: SourceDir): ScanMemo {
    const key = JSON.stringify([source, this.#options.limits]);
    const { toolsCache: cache } = this.#options;
    return getOrAdd(this.#scanMemos, key, () => new ScanMemo(cache === null ? undefined : { cache, key }));
  }

  /** A tools file's last load while its stat has not moved (taken before reading), else loaded again. */
  async #loadTools(file: string): Promise<ToolsResult> {
    const { limits, toolsCache } = this.#options;
    const memo = getOrAdd(this.#toolsMemos, `${resolve(file)}\0${JSON.stringify(limits)}`, () => new ToolsMemo());
    const { last } = memo;
    const stat = toolsFileStat(resolve(file));
    if (last?.stat !== undefined && stat !== undefined && sameStat(stat, last.stat)) return last;
    const { source, rank } = this.#toolsContext(file);
    memo.last = await loadToolsJsonl(file, { source, rank, limits, memo, ...(toolsCache === null ? {} : { cache: toolsCache }) });
    return memo.last;
  }
}

/** Each tools file load's merge entries, made once: a rescan that kept the load (its stat did not move) makes none. */
const loadEntries = new WeakMap<ToolsResult, readonly MergeEntry[]>();

/** Two lines of one file with one id share a path: their place tells them apart, so the later is reported as shadowed (one file named twice stays one). */
function toolsEntries(result: ToolsResult): readonly MergeEntry[] {
  return getOrAdd(loadEntries, result, () => result.skills.map((skill, place) => ({ skill, realPath: `${skill.path}\0${place}` })));
}

const catalogs = new Map<string, SkillCatalog>();

/** One SkillCatalog per working directory and options (memoized for the process): one scan and one watcher each. */
export function getCatalog(cwd: string, options: Omit<CatalogOptions, 'cwd'> = {}): SkillCatalog {
  return getOrAdd(catalogs, `${resolve(cwd)}\0${JSON.stringify(options)}`, () => new SkillCatalog({ ...options, cwd }));
}

/** Forgets every memoized catalog (closing their watchers). */
export async function clearCatalogCache(): Promise<void> {
  const open = [...catalogs.values()];
  catalogs.clear();
  await Promise.all(open.map((catalog) => catalog.close()));
}
