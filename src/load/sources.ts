import { dirname, join, parse } from 'node:path';
import { within } from '../util/paths.js';
import type { LoadedFrom } from '../types.js';
import { enabledClaudePlugins } from './claude-plugins.js';
import type { ResolvedCatalogOptions } from './options.js';
import type { DirLayout } from './scan.js';

/** Shadowing ranks from SPEC §2 (1–8), then this package's own kinds: lower wins; within a rank, load order wins. */
export const SOURCE_RANKS = Object.freeze({
  bundled: 1,
  builtinPlugin: 2,
  managed: 3,
  user: 4,
  project: 5,
  addDir: 6,
  /** Legacy `.claude/commands` (user, then project), then plugin commands, then plugin skills. */
  commands: 7,
  mcp: 8,
  /** Codex: project `.agents/skills` (and legacy `.codex/skills`) up from cwd, then the user and admin folders. */
  codex: 9,
  /** `libraryDirs`: skills no host scans, announced only by search. */
  library: 10,
  /** This package's example catalogue (`demo` option). */
  demo: 11,
} as const);

/** One directory to scan, in load order. */
export interface SourceDir {
  readonly dir: string;
  readonly source: LoadedFrom;
  readonly rank: number;
  readonly layout: DirLayout;
  /** Prefix for every skill name from this folder (`plugin:skill`), as the host names plugin skills. */
  readonly namespace?: string;
  /** Claude Code's own skill folders: a skill is named by its folder, as Claude Code lists it. */
  readonly folderNames?: boolean;
  /** A folder the user named (`skillsDirs`, `libraryDirs`): missing, it is a diagnostic; a host's usual folders are often absent. */
  readonly required?: true;
  /** The `cwd` option, on its own project folder: when `cwd` itself is missing, a diagnostic names it (else a mistyped one reads no project skill, silently). */
  readonly cwd?: string;
}

/** `cwd` and each parent, nearest first, up to (not including) `home` when `cwd` is inside it, else up to the root. */
export function projectDirs(cwd: string, home: string): string[] {
  const dirs: string[] = [];
  const stopAtHome = within(cwd, home);
  const root = parse(cwd).root;
  for (let dir = cwd; !(stopAtHome && dir === home); dir = dirname(dir)) {
    dirs.push(dir);
    if (dir === root) break;
  }
  return dirs;
}

/** Every directory the default (non-override) catalog scans, in shadowing order; the demo catalogue only with `demo: 'always'`. */
export function defaultSources(options: ResolvedCatalogOptions): SourceDir[] {
  const dirs: SourceDir[] = [];
  const add = (dir: string, source: LoadedFrom, rank: number, layout: DirLayout = 'skills', namespace?: string): void => {
    dirs.push({ dir, source, rank, layout, ...(namespace === undefined ? {} : { namespace }) });
  };
  if (options.bundledDir !== null) add(options.bundledDir, 'bundled', SOURCE_RANKS.bundled);
  for (const plugin of options.builtinPluginDirs) {
    add(join(plugin, 'skills'), 'plugin', SOURCE_RANKS.builtinPlugin);
    add(join(plugin, 'commands'), 'plugin', SOURCE_RANKS.builtinPlugin, 'commands');
  }
  const claudeFolder = (dir: string, source: LoadedFrom, rank: number, cwd?: string): void => {
    dirs.push({ dir, source, rank, layout: 'skills', folderNames: true, ...(cwd === undefined ? {} : { cwd }) });
  };
  if (options.managedDir !== null) claudeFolder(options.managedDir, 'managed', SOURCE_RANKS.managed);
  claudeFolder(join(options.home, '.claude', 'skills'), 'skills', SOURCE_RANKS.user);
  const projects = projectDirs(options.cwd, options.home);
  for (const dir of projects) claudeFolder(join(dir, '.claude', 'skills'), 'skills', SOURCE_RANKS.project, dir === options.cwd ? dir : undefined);
  for (const dir of options.addDirs) claudeFolder(join(dir, '.claude', 'skills'), 'skills', SOURCE_RANKS.addDir);
  add(join(options.home, '.claude', 'commands'), 'commands_DEPRECATED', SOURCE_RANKS.commands, 'commands');
  for (const dir of projects) add(join(dir, '.claude', 'commands'), 'commands_DEPRECATED', SOURCE_RANKS.commands, 'commands');
  for (const plugin of options.pluginDirs) add(join(plugin, 'commands'), 'plugin', SOURCE_RANKS.commands, 'commands');
  for (const plugin of options.pluginDirs) add(join(plugin, 'skills'), 'plugin', SOURCE_RANKS.commands);
  if (options.claudePlugins) {
    for (const plugin of enabledClaudePlugins({ home: options.home, cwd: options.cwd })) {
      for (const dir of plugin.commandDirs) add(dir, 'plugin', SOURCE_RANKS.commands, 'commands', plugin.name);
      for (const dir of plugin.skillDirs) add(dir, 'plugin', SOURCE_RANKS.commands, 'skills', plugin.name);
    }
  }
  if (options.codexHome !== null) {
    for (const dir of projects) {
      add(join(dir, '.agents', 'skills'), 'codex', SOURCE_RANKS.codex);
      add(join(dir, '.codex', 'skills'), 'codex', SOURCE_RANKS.codex);
    }
    add(join(options.home, '.agents', 'skills'), 'codex', SOURCE_RANKS.codex);
    add(join(options.codexHome, 'skills'), 'codex', SOURCE_RANKS.codex);
    if (options.codexAdminDir !== null) add(options.codexAdminDir, 'codex', SOURCE_RANKS.codex);
  }
  const { defaultLibraryDir, libraryDirs } = options;
  if (defaultLibraryDir !== null && !libraryDirs.includes(defaultLibraryDir)) add(defaultLibraryDir, 'library', SOURCE_RANKS.library);
  for (const dir of libraryDirs) dirs.push({ dir, source: 'library', rank: SOURCE_RANKS.library, layout: 'skills', required: true });
  if (options.demo === 'always' && options.demoDir !== null) add(options.demoDir, 'demo', SOURCE_RANKS.demo);
  return dirs;
}

/** The demo catalogue as a source, for the `auto` rule (used when nothing else loaded). */
export function demoSource(options: ResolvedCatalogOptions): SourceDir | null {
  if (options.demo !== 'auto' || options.demoDir === null || isOverride(options)) return null;
  return { dir: options.demoDir, source: 'demo', rank: SOURCE_RANKS.demo, layout: 'skills' };
}

/** True when `--skills-dir` / `--tools` replace the default sources. */
export function isOverride(options: ResolvedCatalogOptions): boolean {
  return options.skillsDirs.length > 0 || options.toolsFiles.length > 0;
}

/** The directories a catalog scans: the override list when given, else the default sources. */
export function resolveSources(options: ResolvedCatalogOptions): SourceDir[] {
  if (!isOverride(options)) return defaultSources(options);
  return options.skillsDirs.map((dir) => ({ dir, source: 'skills' as const, rank: SOURCE_RANKS.project, layout: 'skills' as const, required: true as const }));
}
