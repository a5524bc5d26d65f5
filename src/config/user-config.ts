/**
 * The user's choices about skills: `~/.claude/skill-search.json`, then the nearest project
 * `.claude/skill-search.json` up from cwd. The project wins for switches; lists add up. Each
 * value remembers its file, so `skill-search config` can say why a setting is what it is.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SkillSearchError } from '../errors.js';
import { keyPath, readJsonFile } from '../util/json-file.js';
import { array, boolean, type Infer, object, oneOf, optional, shapeIssue, string } from '../util/shape.js';
import { suggestNames } from '../util/suggest.js';
import { DEMO_MODES, type DemoMode } from '../load/options.js';
import { projectDirs } from '../load/sources.js';
import { MAX_GLOB_LENGTH } from '../load/skill-globs.js';

const CONFIG_FILE_NAME = 'skill-search.json';

const globList = optional(array(string({ nonEmpty: 'expected a non-empty pattern', maxLength: MAX_GLOB_LENGTH })));

const SOURCE_FIELDS = { claudePlugins: optional(boolean), codex: optional(boolean), library: optional(boolean), demo: optional(oneOf(DEMO_MODES)) };

const CONFIG_FIELDS = {
  $schema: optional(string()),
  /** Only skills matching one of these are used (name, or path when the pattern has a `/`). */
  include: globList,
  /** Skills matching any of these are ignored everywhere. */
  exclude: globList,
  /** Always listed: counted in the host's listing (`tokens`) and kept in narrowed listings. */
  pin: globList,
  /** Never suggested by the hook or the MCP server (a host may still list them). */
  never: globList,
  /** More library folders (relative to the file's folder). */
  library: optional(array(string({ nonEmpty: true }))),
  sources: optional(object(SOURCE_FIELDS)),
};

const configShape = object(CONFIG_FIELDS);
type UserConfigFile = Infer<typeof configShape>;

/** ` (did you mean "exclude"?)` for an unknown key close to a known one at its level, else ''. */
function closeKey(keys: readonly PropertyKey[]): string {
  const known = Object.keys(keys.length === 1 ? CONFIG_FIELDS : SOURCE_FIELDS);
  const [close] = suggestNames(String(keys.at(-1)), known);
  return close === undefined ? '' : ` (did you mean "${close}"?)`;
}

/** A value and where it came from: a file, or `DEFAULT_ORIGIN`. */
export interface Sourced<T> {
  readonly value: T;
  readonly from: string;
}

export const DEFAULT_ORIGIN = 'default';

/** Reads and validates one file; undefined when it does not exist. Errors name the file and the key. */
export function readConfigFile(file: string): UserConfigFile | undefined {
  const data = readJsonFile(file, { missingOk: true });
  if (data === undefined) return undefined;
  const issue = shapeIssue(configShape, data);
  if (issue !== undefined) {
    const hint = issue.message === 'unknown key' ? closeKey(issue.path) : '';
    throw new SkillSearchError('BAD_FILE', `${file}: "${keyPath(issue.path)}": ${issue.message}${hint}`);
  }
  return data as UserConfigFile;
}

/** Every path a config is read from: `~/.claude/skill-search.json`, then `.claude/skill-search.json` in each project folder up from cwd, below home (what `watch` follows). */
export function configPaths(cwd: string, home: string): string[] {
  const user = path.join(home, '.claude', CONFIG_FILE_NAME);
  const paths = [user];
  for (const dir of projectDirs(cwd, home)) {
    const candidate = path.join(dir, '.claude', CONFIG_FILE_NAME);
    if (candidate === user) break;
    paths.push(candidate);
  }
  return paths;
}

/** `~/.claude/skill-search.json`, then the nearest project `.claude/skill-search.json` below home. */
function configFiles(cwd: string, home: string): string[] {
  const [user, ...project] = configPaths(cwd, home);
  const nearest = project.find((candidate) => {
    try {
      readFileSync(candidate);
      return true;
    } catch {
      // None here; look one folder up.
      return false;
    }
  });
  return nearest === undefined ? [user!] : [user!, nearest];
}

/** A folder named in a config: `~` or `~/…` from home, as a shell reads it; else relative to the config file's folder. */
function configDir(dir: string, file: string, home: string): string {
  if (dir === '~' || dir.startsWith('~/') || dir.startsWith(`~${path.sep}`)) return path.join(home, dir.slice(1));
  return path.resolve(path.dirname(file), dir);
}

export function loadUserConfig(cwd: string, home: string) {
  const read: { file: string; config: UserConfigFile }[] = [];
  for (const file of configFiles(cwd, home)) {
    const config = readConfigFile(file);
    if (config !== undefined) read.push({ file, config });
  }
  const list = (key: 'include' | 'exclude' | 'pin' | 'never') =>
    Object.freeze(read.flatMap(({ file, config }) => (config[key] ?? []).map((value) => ({ value, from: file }))));
  const switchOf = <T>(pick: (config: UserConfigFile) => T | undefined, fallback: T): Sourced<T> => {
    let result: Sourced<T> = { value: fallback, from: DEFAULT_ORIGIN };
    for (const { file, config } of read) {
      const value = pick(config);
      if (value !== undefined) result = { value, from: file };
    }
    return result;
  };
  return Object.freeze({
    /** The files read, user first. */
    files: read.map(({ file }) => file),
    include: list('include'),
    exclude: list('exclude'),
    pin: list('pin'),
    never: list('never'),
    /** Absolute folders. */
    library: Object.freeze(read.flatMap(({ file, config }) => (config.library ?? []).map((dir) => ({ value: configDir(dir, file, home), from: file })))),
    sources: Object.freeze({
      claudePlugins: switchOf((config) => config.sources?.claudePlugins, true),
      codex: switchOf((config) => config.sources?.codex, true),
      library: switchOf((config) => config.sources?.library, true),
      /** Undefined: the command's own default. */
      demo: switchOf<DemoMode | undefined>((config) => config.sources?.demo, undefined),
    }),
  });
}
