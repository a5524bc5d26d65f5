import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, parse, relative, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadedFrom } from '../types.js';
import type { ResolvedCatalogOptions } from './options.js';
import type { DirLayout } from './scan.js';

/** Shadowing ranks from SPEC §2: lower wins; within a rank, load order wins. */
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
} as const);

/** Rank given to `--skills-dir` directories and `--tools` files (which replace the defaults). */
export const OVERRIDE_RANK = SOURCE_RANKS.project;

/** One directory to scan, in load order. */
export interface SourceDir {
  readonly dir: string;
  readonly source: LoadedFrom;
  readonly rank: number;
  readonly layout: DirLayout;
}

const PACKAGE_NAME = 'skill-search';

let bundledDirMemo: string | null | undefined;

/**
 * The package's own `skills/` folder. Found by walking up from this module to the folder
 * holding our package.json, so it is the same from `src/` (tsx) and from `dist/`.
 */
export function bundledSkillsDir(): string | null {
  if (bundledDirMemo !== undefined) return bundledDirMemo;
  let dir = dirname(fileURLToPath(import.meta.url));
  bundledDirMemo = null;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME) {
          bundledDirMemo = join(dir, 'skills');
          break;
        }
      } catch {
        // An unreadable or foreign package.json on the way up is not ours; keep walking.
      }
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return bundledDirMemo;
}

/** Managed (policy) skills: `SKILL_SEARCH_MANAGED_DIR`, else the platform's policy folder. */
export function defaultManagedDir(): string | null {
  const fromEnv = process.env['SKILL_SEARCH_MANAGED_DIR'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  switch (process.platform) {
    case 'darwin':
      return '/Library/Application Support/ClaudeCode/.claude/skills';
    case 'win32':
      return 'C:\\Program Files\\ClaudeCode\\.claude\\skills';
    default:
      return '/etc/claude-code/.claude/skills';
  }
}

function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * `cwd` and each parent, nearest first, up to (not including) `home` when `cwd` is inside
 * it — home's `.claude` is the user source — otherwise up to the filesystem root.
 */
export function projectDirs(cwd: string, home: string): string[] {
  const dirs: string[] = [];
  const stopAtHome = isInside(cwd, home);
  const root = parse(cwd).root;
  let dir = cwd;
  for (;;) {
    if (stopAtHome && dir === home) break;
    dirs.push(dir);
    if (dir === root) break;
    dir = dirname(dir);
  }
  return dirs;
}

/** Every directory the default (non-override) catalog scans, in shadowing order. */
export function defaultSources(options: ResolvedCatalogOptions): SourceDir[] {
  const dirs: SourceDir[] = [];
  const add = (dir: string, source: LoadedFrom, rank: number, layout: DirLayout = 'skills'): void => {
    dirs.push({ dir, source, rank, layout });
  };
  if (options.bundledDir !== null) add(options.bundledDir, 'bundled', SOURCE_RANKS.bundled);
  for (const plugin of options.builtinPluginDirs) {
    add(join(plugin, 'skills'), 'plugin', SOURCE_RANKS.builtinPlugin);
    add(join(plugin, 'commands'), 'plugin', SOURCE_RANKS.builtinPlugin, 'commands');
  }
  if (options.managedDir !== null) add(options.managedDir, 'managed', SOURCE_RANKS.managed);
  add(join(options.home, '.claude', 'skills'), 'skills', SOURCE_RANKS.user);
  const projects = projectDirs(options.cwd, options.home);
  for (const dir of projects) add(join(dir, '.claude', 'skills'), 'skills', SOURCE_RANKS.project);
  for (const dir of options.addDirs) add(join(dir, '.claude', 'skills'), 'skills', SOURCE_RANKS.addDir);
  add(join(options.home, '.claude', 'commands'), 'commands_DEPRECATED', SOURCE_RANKS.commands, 'commands');
  for (const dir of projects) {
    add(join(dir, '.claude', 'commands'), 'commands_DEPRECATED', SOURCE_RANKS.commands, 'commands');
  }
  for (const plugin of options.pluginDirs) add(join(plugin, 'commands'), 'plugin', SOURCE_RANKS.commands, 'commands');
  for (const plugin of options.pluginDirs) add(join(plugin, 'skills'), 'plugin', SOURCE_RANKS.commands);
  return dirs;
}

/** True when `--skills-dir` / `--tools` replace the default sources. */
export function isOverride(options: ResolvedCatalogOptions): boolean {
  return options.skillsDirs.length > 0 || options.toolsFiles.length > 0;
}

/** The directories a catalog scans: the override list when given, else the default sources. */
export function resolveSources(options: ResolvedCatalogOptions): SourceDir[] {
  if (!isOverride(options)) return defaultSources(options);
  return options.skillsDirs.map((dir) => ({ dir, source: 'skills' as const, rank: OVERRIDE_RANK, layout: 'skills' as const }));
}
