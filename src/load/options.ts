import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { badOption, SkillSearchError } from '../errors.js';
import { definedOnly } from '../util/defined.js';
import { assertKnownKeys, positiveInteger } from '../util/option-checks.js';
import { DEFAULT_SKILL_LIMITS, type SkillLimits } from './skill.js';
import type { ToolsCache } from './tools-cache.js';
import { defaultCodexAdminDir, defaultCodexHome, defaultManagedDir, demoSkillsDir } from './default-dirs.js';

export interface CatalogWatchOptions {
  /** Poll instead of native events (network drives, some containers and VMs). @default false */
  readonly usePolling?: boolean;
  /** Poll interval in ms when polling. @default 2000 */
  readonly pollInterval?: number;
  /** A file must be unchanged this long (ms) before its change counts. @default 1000 */
  readonly stabilityThreshold?: number;
  /** Changes this close together (ms) are reported as one `change` event. @default 300 */
  readonly coalesceMs?: number;
}

export interface CatalogOptions {
  /** Working directory: the project `.claude/skills` search starts here and walks up; a missing one is a diagnostic. @default process.cwd() */
  readonly cwd?: string;
  /** Home directory (user skills, and where the upward project walk stops). @default os.homedir() */
  readonly home?: string;
  /** The host's bundled skills (rank 1); `null` leaves them out. @default null (this package ships no host skills: see `demo`) */
  readonly bundledDir?: string | null;
  /**
   * This package's example catalogue: `never`; `auto`, only when no other source has a skill (so
   * it never shadows or crowds a user's skills); `always`. @default 'never'
   */
  readonly demo?: DemoMode;
  /** Where the example catalogue lives. @default the package's `examples/skills` folder */
  readonly demoDir?: string | null;
  /**
   * Scan the skills and commands of the Claude Code plugins installed and enabled for `cwd`
   * (`~/.claude/plugins/installed_plugins.json`, `enabledPlugins`), named `plugin:skill` (rank 7). @default true
   */
  readonly claudePlugins?: boolean;
  /** Codex's home (its `skills/` folder is scanned, rank 9); `null` leaves out every Codex folder. @default env `CODEX_HOME`, else `~/.codex` */
  readonly codexHome?: string | null;
  /** Codex's admin skills folder; `null` leaves it out. @default '/etc/codex/skills' (none on Windows) */
  readonly codexAdminDir?: string | null;
  /** Skill library folders (rank 10): skills no host lists, reached only through search (hook, prefetch, MCP); a missing one is a diagnostic. @default [] */
  readonly libraryDirs?: readonly string[];
  /**
   * The library folder `skill-search library add` fills (read as a `libraryDirs` one, before them): watched for while it does
   * not exist, and silent then, since nobody named it. @default null (the CLI passes its default library)
   */
  readonly defaultLibraryDir?: string | null;
  /**
   * Managed (policy) skills directory; `null` leaves it out. @default env `SKILL_SEARCH_MANAGED_DIR`, else
   * `/etc/claude-code/.claude/skills` (Linux), `/Library/Application Support/ClaudeCode/.claude/skills` (macOS),
   * `C:\Program Files\ClaudeCode\.claude\skills` (Windows).
   */
  readonly managedDir?: string | null;
  /** Built-in plugin roots (rank 2); each may hold `skills/` and `commands/`. @default [] */
  readonly builtinPluginDirs?: readonly string[];
  /** Installed plugin roots (rank 7, after legacy commands); each may hold `commands/` and `skills/`. @default [] */
  readonly pluginDirs?: readonly string[];
  /** `--add-dir` directories; each one's `.claude/skills` is scanned (rank 6). @default [] */
  readonly addDirs?: readonly string[];
  /** `--skills-dir`: when non-empty, scan only these (`DIR/<skill>/SKILL.md` or `DIR/<name>.md`) instead of the default sources. @default [] */
  readonly skillsDirs?: readonly string[];
  /** `--tools FILE.jsonl`: each line `{id,name,description,whenToUse?}` is a skill; non-empty replaces the default sources. @default [] */
  readonly toolsFiles?: readonly string[];
  /**
   * Keep each parsed tools file and its line table here, so the next process skips parsing an
   * unchanged one and parses only the changed lines of a changed one; `null` keeps none.
   * @default null (the CLI, hook and MCP server keep them in the store)
   */
  readonly toolsCache?: ToolsCache | null;
  /** Use only skills matching one of these patterns (`*`, `?` on the name; with a `/`, on the file path, `**` across folders). @default [] */
  readonly include?: readonly string[];
  /** Ignore skills matching any of these patterns (as `include`), before shadowing. @default [] */
  readonly exclude?: readonly string[];
  /** @default 1048576 (1 MiB) */
  readonly maxBodyBytes?: number;
  /** @default 4096 */
  readonly maxDescriptionChars?: number;
  /** @default 128 */
  readonly maxNameLength?: number;
  /** Longest frontmatter `hooks` kept, as JSON characters (see `SkillLimits`). @default 65536 */
  readonly maxHooksJsonChars?: number;
  /** Start a file watcher right away (`true`, or watcher options). @default false */
  readonly watch?: boolean | CatalogWatchOptions;
}

export const DEMO_MODES = ['never', 'auto', 'always'] as const;
export type DemoMode = (typeof DEMO_MODES)[number];

export type ResolvedWatchOptions = Required<CatalogWatchOptions>;

export type ResolvedCatalogOptions = Required<Omit<CatalogOptions, keyof SkillLimits | 'watch'>> & {
  readonly limits: SkillLimits;
  /** `false` when no watcher should start at construction. */
  readonly watch: ResolvedWatchOptions | false;
};

export const DEFAULT_WATCH_OPTIONS: ResolvedWatchOptions = Object.freeze({
  usePolling: false,
  pollInterval: 2000,
  stabilityThreshold: 1000,
  coalesceMs: 300,
});

/** A list of paths (resolved against `base`) or, without a base, of patterns. */
function stringList(key: string, value: unknown, base?: string): readonly string[] {
  if (value === undefined) return Object.freeze([]);
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === '')) {
    throw badOption(key, `be an array of ${base === undefined ? 'patterns' : 'paths'}`, JSON.stringify(value));
  }
  return Object.freeze(value.map((item: string) => (base === undefined ? item : resolve(base, item))));
}

function optionalDir(key: string, value: unknown, fallback: () => string | null, base: string): string | null {
  if (value === undefined) return fallback();
  if (value === null) return null;
  if (typeof value !== 'string' || value === '') throw badOption(key, 'be a path or null', value);
  return resolve(base, value);
}

const TOOLS_CACHE_METHODS = ['readSkills', 'writeSkills', 'readLines', 'writeLines'] as const;

function toolsCache(value: unknown): ToolsCache | null {
  if (value === undefined || value === null) return null;
  const cache = value as Record<string, unknown>;
  if (typeof value !== 'object' || TOOLS_CACHE_METHODS.some((method) => typeof cache[method] !== 'function')) {
    throw badOption('toolsCache', `be an object with ${TOOLS_CACHE_METHODS.join(', ')}, or null`, value);
  }
  return value as ToolsCache;
}

function demoMode(value: unknown): DemoMode {
  if (value === undefined) return 'never';
  if (typeof value !== 'string' || !(DEMO_MODES as readonly string[]).includes(value)) {
    throw badOption('demo', `be one of ${DEMO_MODES.join(', ')}`, value);
  }
  return value as DemoMode;
}

function boolean(key: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw badOption(key, 'be a boolean', value);
  return value;
}

/** `path`: the option it was given as (`watch` of `SkillCatalog`); without one, the argument of `catalog.watch()`. */
export function resolveWatchOptions(options: CatalogWatchOptions = {}, path?: string): ResolvedWatchOptions {
  assertKnownKeys(path === undefined ? 'SkillCatalog.watch()' : 'SkillCatalog', options, Object.keys(DEFAULT_WATCH_OPTIONS), path);
  const merged = { ...DEFAULT_WATCH_OPTIONS, ...definedOnly(options) };
  const at = (key: keyof CatalogWatchOptions): string => (path === undefined ? key : `${path}.${key}`);
  return Object.freeze({
    usePolling: boolean(at('usePolling'), merged.usePolling, false),
    pollInterval: positiveInteger(at('pollInterval'), merged.pollInterval),
    stabilityThreshold: positiveInteger(at('stabilityThreshold'), merged.stabilityThreshold),
    coalesceMs: positiveInteger(at('coalesceMs'), merged.coalesceMs),
  });
}

/**
 * Merges `options` over the defaults once, validates every field, and freezes the result. `within`: the options are
 * another's option (`LiveIndex`'s `catalog`), and an unknown key is named as such (`catalog.skilsDirs`).
 */
export function resolveCatalogOptions(options: CatalogOptions = {}, within?: { readonly owner: string; readonly path: string }): ResolvedCatalogOptions {
  if (typeof options !== 'object' || options === null) {
    throw new SkillSearchError('BAD_OPTION', `Expected options to be an object, got \`${String(options)}\``);
  }
  const cwdValue = options.cwd ?? process.cwd();
  if (typeof cwdValue !== 'string' || cwdValue === '') throw badOption('cwd', 'be a path', cwdValue);
  const cwd = resolve(cwdValue);
  const home = optionalDir('home', options.home, () => homedir(), cwd) ?? homedir();
  const limits: SkillLimits = Object.freeze({
    maxBodyBytes: positiveInteger('maxBodyBytes', options.maxBodyBytes ?? DEFAULT_SKILL_LIMITS.maxBodyBytes),
    maxDescriptionChars: positiveInteger('maxDescriptionChars', options.maxDescriptionChars ?? DEFAULT_SKILL_LIMITS.maxDescriptionChars),
    maxNameLength: positiveInteger('maxNameLength', options.maxNameLength ?? DEFAULT_SKILL_LIMITS.maxNameLength),
    maxHooksJsonChars: positiveInteger('maxHooksJsonChars', options.maxHooksJsonChars ?? DEFAULT_SKILL_LIMITS.maxHooksJsonChars),
  });
  let watch: ResolvedWatchOptions | false = false;
  if (options.watch === true) watch = DEFAULT_WATCH_OPTIONS;
  else if (typeof options.watch === 'object' && options.watch !== null) watch = resolveWatchOptions(options.watch, 'watch');
  else if (options.watch !== undefined && options.watch !== false) throw badOption('watch', 'be a boolean or an object', options.watch);
  const resolved = Object.freeze({
    cwd,
    home,
    bundledDir: optionalDir('bundledDir', options.bundledDir, () => null, cwd),
    demo: demoMode(options.demo),
    demoDir: optionalDir('demoDir', options.demoDir, demoSkillsDir, cwd),
    claudePlugins: boolean('claudePlugins', options.claudePlugins, true),
    codexHome: optionalDir('codexHome', options.codexHome, () => defaultCodexHome(home), cwd),
    codexAdminDir: optionalDir('codexAdminDir', options.codexAdminDir, defaultCodexAdminDir, cwd),
    libraryDirs: stringList('libraryDirs', options.libraryDirs, cwd),
    defaultLibraryDir: optionalDir('defaultLibraryDir', options.defaultLibraryDir, () => null, cwd),
    include: stringList('include', options.include),
    exclude: stringList('exclude', options.exclude),
    managedDir: optionalDir('managedDir', options.managedDir, defaultManagedDir, cwd),
    builtinPluginDirs: stringList('builtinPluginDirs', options.builtinPluginDirs, cwd),
    pluginDirs: stringList('pluginDirs', options.pluginDirs, cwd),
    addDirs: stringList('addDirs', options.addDirs, cwd),
    skillsDirs: stringList('skillsDirs', options.skillsDirs, cwd),
    toolsFiles: stringList('toolsFiles', options.toolsFiles, cwd),
    toolsCache: toolsCache(options.toolsCache),
    limits,
    watch,
  });
  // Each option resolves to one field (the limits to `limits`): any other key is a misspelling.
  const known = [...Object.keys(resolved).filter((key) => key !== 'limits'), ...Object.keys(limits)];
  assertKnownKeys(within?.owner ?? 'SkillCatalog', options, known, within?.path);
  return resolved;
}
