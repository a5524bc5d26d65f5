import { statSync } from 'node:fs';
import path from 'node:path';
import { SkillSearchError } from '../errors.js';
import { loadUserConfig } from '../config/user-config.js';
import type { DemoMode } from '../load/options.js';
import { ABSTAIN_LEVELS, SEARCH_MODES, type AbstainSetting } from '../types.js';
import { ENGINE_DEFAULTS } from '../search/options.js';
import { flagError, parseChoice, parsePositiveInt, type ParsedValues } from './args.js';
import { DEFAULT_MODEL } from './flags.js';
import { codexHomeDir, homeDir, type CliIo } from './io.js';
import { cacheRoot } from '../model-store/paths.js';
import { labelledName } from '../util/hash.js';
import { makeDirs } from '../util/make-dirs.js';
import { isFolder } from '../util/paths.js';
import { PRIVATE_DIR_MODE } from '../vector-index/atomic-file.js';

/** Where skills are read from, resolved to absolute, existing paths. */
export type SourceOptions = ReturnType<typeof resolveSources>;

/** Where `library add` puts skills: `$SKILL_SEARCH_LIBRARY`, else `$XDG_CONFIG_HOME/skill-search/library` or `~/.config/skill-search/library`. */
export function defaultLibraryDir(env: CliIo['env']): string {
  if (env.SKILL_SEARCH_LIBRARY) return path.resolve(env.SKILL_SEARCH_LIBRARY);
  return path.join(env.XDG_CONFIG_HOME ? path.resolve(env.XDG_CONFIG_HOME) : path.join(homeDir(env), '.config'), 'skill-search', 'library');
}

export type RetrievalOptions = ReturnType<typeof resolveRetrieval>;

function asList(value: ParsedValues[string]): string[] {
  if (Array.isArray(value)) return value;
  return typeof value === 'string' ? [value] : [];
}

function asString(value: ParsedValues[string]): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

type Kind = 'directory' | 'file';

/** A path the user gave with `--flag` must exist with the right kind; the error names the flag and the path. */
export function requirePath(flag: string, raw: string, kind: Kind, base: string): string {
  return checkedPath(`--${flag} '${raw}'`, raw, kind, base);
}

/** `raw` resolved against `base`, or a `BAD_FILE` error starting with `label` (`library add 'x'`) when it is missing or not a `kind`. */
export function checkedPath(label: string, raw: string, kind: Kind, base: string): string {
  const absolute = path.resolve(base, raw);
  let stats;
  try {
    stats = statSync(absolute);
  } catch {
    throw new SkillSearchError('BAD_FILE', `${label}: no such ${kind}`);
  }
  if (kind === 'directory' ? !stats.isDirectory() : !stats.isFile()) throw new SkillSearchError('BAD_FILE', `${label}: not a ${kind}`);
  return absolute;
}

/** `--cwd` anchors project skills; the paths of other flags are relative to the shell's directory, not to `--cwd`. */
export function resolveSources(values: ParsedValues, io: CliIo, cwdOverride?: string, demoDefault: DemoMode = 'auto') {
  const cwdRaw = asString(values.cwd) ?? cwdOverride;
  const cwd = cwdRaw === undefined ? path.resolve(io.cwd) : requirePath('cwd', cwdRaw, 'directory', io.cwd);
  const home = homeDir(io.env);
  const config = loadUserConfig(cwd, home);
  const libraryFlags = asList(values.library).map((dir) => requirePath('library', dir, 'directory', io.cwd));
  const useConfig = libraryFlags.length === 0 && config.sources.library.value;
  // Named ones (flags, config) must exist (a missing one is a diagnostic); the default one is read once `library add` makes it,
  // and a `watch` started before then sees it appear, its socket (resolveIndexDir) staying put.
  const libraryDirs = useConfig ? [...new Set(config.library.map((entry) => entry.value))] : libraryFlags;
  if (values.demo === true && values['no-demo'] === true) throw flagError('--demo and --no-demo contradict each other; give one');
  return Object.freeze({
    cwd,
    home,
    /** Non-empty: scan only these folders (plus `toolsFiles`), not the default sources. */
    skillsDirs: Object.freeze(asList(values['skills-dir']).map((dir) => requirePath('skills-dir', dir, 'directory', io.cwd))),
    toolsFiles: Object.freeze(asList(values.tools).map((file) => requirePath('tools', file, 'file', io.cwd))),
    addDirs: Object.freeze(asList(values['add-dir']).map((dir) => requirePath('add-dir', dir, 'directory', io.cwd))),
    /** `--library` folders (existing), or the configured ones (default sources only). */
    libraryDirs: Object.freeze(libraryDirs),
    /** The folder `library add` fills, unless `--library` or the config say otherwise; it may not exist yet. */
    defaultLibraryDir: useConfig ? defaultLibraryDir(io.env) : null,
    demo: values.demo === true ? 'always' : values['no-demo'] === true ? 'never' : (config.sources.demo.value ?? demoDefault),
    /** Null when the config switches Codex's folders off. */
    codexHome: config.sources.codex.value ? codexHomeDir(io.env, home) : null,
    claudePlugins: config.sources.claudePlugins.value,
    config,
  });
}

export function resolveRetrieval(values: ParsedValues, io: CliIo, defaultK: number = ENGINE_DEFAULTS.k) {
  const kRaw = asString(values.k);
  const modeRaw = asString(values.mode);
  const abstainRaw = asString(values.abstain);
  const model = asString(values.model) ?? DEFAULT_MODEL;
  if (model.trim() === '') throw flagError(`--model expects a model name, got '${model}'`);
  const indexDirRaw = asString(values['index-dir']);
  return Object.freeze({
    k: kRaw === undefined ? defaultK : parsePositiveInt('k', kRaw),
    mode: modeRaw === undefined ? ENGINE_DEFAULTS.mode : parseChoice('mode', modeRaw, SEARCH_MODES),
    /** Undefined: the engine's default. */
    abstain: abstainRaw === undefined ? undefined : parseAbstain(abstainRaw),
    model,
    /** Undefined: one per catalog (`resolveIndexDir`). */
    indexDir: indexDirRaw === undefined ? undefined : indexDirPath(indexDirRaw, io.cwd),
  });
}

/** `--abstain strict|balanced|off|<number in [0, 1]>`. */
function parseAbstain(raw: string): AbstainSetting {
  if (ABSTAIN_LEVELS.includes(raw as (typeof ABSTAIN_LEVELS)[number])) return raw as AbstainSetting;
  const value = Number(raw);
  if (raw.trim() !== '' && Number.isFinite(value) && value >= 0 && value <= 1) return value;
  throw flagError(`--abstain expects ${ABSTAIN_LEVELS.join(', ')} or a number from 0 to 1, got '${raw}'`);
}

/** `--index-dir`, created (0700) when missing: a path that cannot be a folder is one line naming the flag, before any work. */
function indexDirPath(raw: string, base: string): string {
  const absolute = path.resolve(base, raw);
  makeDirs(absolute, { mode: PRIVATE_DIR_MODE, subject: `--index-dir '${raw}'` });
  return absolute;
}

/** Every library folder of `sources`, the default one first (as the catalog reads them). */
function allLibraryDirs({ defaultLibraryDir, libraryDirs }: SourceOptions): string[] {
  return defaultLibraryDir === null ? [...libraryDirs] : [...new Set([defaultLibraryDir, ...libraryDirs])];
}

/** The library folders of `sources` that are folders now (the others are watched for, see {@link resolveSources}); a file is none, as `--library` says. */
export function existingLibraryDirs(sources: SourceOptions): string[] {
  return allLibraryDirs(sources).filter(isFolder);
}

/** `--skills-dir` / `--tools` replace the default sources (and `--cwd` then plays no part). */
export function isOverride(sources: SourceOptions): boolean {
  return sources.skillsDirs.length > 0 || sources.toolsFiles.length > 0;
}

/** Where a catalog looked, for "nothing found" messages. */
export function describeSources(sources: SourceOptions): string {
  if (!isOverride(sources)) {
    return `for ${sources.cwd} (looked in ~/.claude/skills and .claude/skills up from there; pass --skills-dir DIR to choose)`;
  }
  const parts = [...sources.skillsDirs.map((dir) => `--skills-dir '${dir}'`), ...sources.toolsFiles.map((file) => `--tools '${file}'`)];
  return `in ${parts.join(', ')}`;
}

/** One folder per (catalog sources, model) for the `watch` socket, builder lease and hook markers: two projects or models never share them. */
export function resolveIndexDir(sources: SourceOptions, retrieval: RetrievalOptions, env: CliIo['env']): string {
  if (retrieval.indexDir) return retrieval.indexDir;
  const override = isOverride(sources);
  const key = JSON.stringify({
    skillsDirs: sources.skillsDirs,
    toolsFiles: sources.toolsFiles,
    cwd: override ? undefined : sources.cwd,
    home: override ? undefined : sources.home,
    addDirs: override ? undefined : sources.addDirs,
    // Not for the default library alone, so an index folder keeps its name whether or not that folder exists yet.
    ...(override || (sources.defaultLibraryDir !== null && sources.libraryDirs.length === 0) ? {} : { libraryDirs: allLibraryDirs(sources) }),
    ...(sources.demo === 'always' ? { demo: true } : {}),
    ...(sources.config.include.length === 0 && sources.config.exclude.length === 0
      ? {}
      : { include: sources.config.include.map((entry) => entry.value), exclude: sources.config.exclude.map((entry) => entry.value) }),
    // A model given as a path is keyed by where it is, not by how it was spelled.
    model: /[\\/]/.test(retrieval.model) || retrieval.model.startsWith('.') ? path.resolve(retrieval.model) : retrieval.model,
  });
  return path.join(cacheRoot(env), labelledName(sources.skillsDirs[0] ?? sources.toolsFiles[0] ?? sources.cwd, key));
}
