import { createHash, type Hash } from 'node:crypto';
import type { Diagnostic, Skill } from '../types.js';
import { packageVersion } from '../util/package-version.js';
import type { ResolvedCatalogOptions } from './options.js';
import { stampPieces, withStats, type DirStamp, type StatTexts } from './dir-stamp.js';
import type { SourceDir } from './sources.js';
import type { ToolsFileStat } from './tools-cache.js';

/**
 * The identity of what a catalog is built from, without reading a skill file (options, each folder's files with their stat and listing
 * problems, tools files' stats, MCP skills, this package's version): equal stamps mean equal catalogs (docs/store.md). Stats are taken
 * before a scan reads, so a file written meanwhile misses.
 */
const STAMP_FORMAT = 5;

export interface StampInputs {
  readonly options: ResolvedCatalogOptions;
  /** Each skill folder as `resolveSources` lists it, with `statSkillsDir`'s findings. */
  readonly dirs: readonly { readonly source: SourceDir; readonly stamp: DirStamp }[];
  /** Each tools file's stat, taken before it was read; undefined when it could not be stat'ed (no stamp then). */
  readonly tools: readonly { readonly path: string; readonly stat: ToolsFileStat | undefined }[];
  readonly mcp: readonly { readonly skills: readonly Skill[]; readonly diagnostics: readonly Diagnostic[] }[];
}

/** The stamp of `inputs`, or undefined when a tools file has no stat. */
export function sourceStamp(inputs: StampInputs): string | undefined {
  if (inputs.tools.some((file) => file.stat === undefined)) return undefined;
  // The demo mode is not hashed: whether the demo catalogue is in is told by its folder among `dirs` ({@link catalogStamps}).
  const { watch: _watch, toolsCache: _cache, demo: _demo, demoDir: _demoDir, ...options } = inputs.options;
  const hash = createHash('sha256');
  hash.update(JSON.stringify([STAMP_FORMAT, packageVersion(), options]));
  hash.update(JSON.stringify(inputs.dirs.map(dirDigest)));
  hash.update(JSON.stringify(inputs.tools));
  for (const server of inputs.mcp) {
    hashSkills(hash, server.skills);
    hash.update(JSON.stringify(server.diagnostics));
  }
  return hash.digest('hex');
}

const dirDigests = new WeakMap<StampInputs['dirs'][number], string>();

/**
 * The sha256 of `dir`'s source, listing problems and {@link pieceDigests}, kept while `dir` lives: both stamps of a catalog
 * ({@link catalogStamps}) hash the digest, not the folder's files again (megabytes of JSON at 24k skill folders).
 */
function dirDigest(dir: StampInputs['dirs'][number]): string {
  let digest = dirDigests.get(dir);
  if (digest === undefined) {
    digest = sha256(JSON.stringify([dir.source, dir.stamp.diagnostics, stampPieces(dir.stamp)]));
    dirDigests.set(dir, digest);
  }
  return digest;
}

/** `dir` with the stats of some of its files replaced (`stats`, by file): its digest hashes only their pieces again. */
export function restamped(dir: StampInputs['dirs'][number], stats: ReadonlyMap<string, StatTexts>): StampInputs['dirs'][number] {
  return { source: dir.source, stamp: withStats(dir.stamp, stats) };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** A catalog's two stamps; undefined when a tools file has no stat. */
export interface CatalogStamps {
  readonly sourceStamp: string | undefined;
  readonly portableStamp: string | undefined;
}

/**
 * The stamps of the catalog read from `inputs`, with the demo catalogue `demo` (its folder and
 * stamp) when the `auto` rule added it because nothing else loaded. The one place a catalog's key
 * is told from its sources: the same skills give the same stamps whatever demo mode read them
 * (`index`, `query` and `watch` read with `auto`, the hook and the MCP server with `never`;
 * docs/store.md, "One key whoever saved it").
 */
export function catalogStamps(inputs: StampInputs, demo?: StampInputs['dirs'][number]): CatalogStamps {
  const keyed = demo === undefined ? inputs : { ...inputs, dirs: [...inputs.dirs, demo] };
  return { sourceStamp: sourceStamp(keyed), portableStamp: portableStamp(keyed) };
}

/** A catalog's stamps told before it is read (`SkillCatalog.stamps`). */
export interface StatStamps extends CatalogStamps {
  /** With the `auto` demo mode: its stamps should the demo catalogue be added, which only reading tells (nothing else loads). */
  readonly withDemo?: CatalogStamps;
}

/** {@link sourceStamp} without `cwd` and the skill folders where a scan found nothing: equal for two folders that load the same catalog. */
export function portableStamp(inputs: StampInputs): string | undefined {
  const dirs = inputs.dirs.filter(({ stamp }) => stamp.files.length > 0 || stamp.diagnostics.length > 0);
  return sourceStamp({ ...inputs, options: { ...inputs.options, cwd: '' }, dirs });
}

/** A catalog's two stamps, when its tools files can be read. */
export interface ReadStamps {
  readonly sourceStamp: string;
  readonly portableStamp: string | undefined;
}

/** Feeds each skill's path, rank, content hash, effort, body, hooks, keywords and invocation rule to `hash`, in chunks of about 64 KiB. */
export function hashSkills(hash: Hash, skills: readonly Skill[]): Hash {
  let chunk = '';
  for (const skill of skills) {
    // Length-prefixed body, so bodies and the fields around them cannot run into each other.
    chunk += `${skill.path}\0${skill.rank}\0${skill.contentHash}\0${skill.effort ?? ''}\0${skill.body.length}\0${skill.body}`;
    chunk += `${JSON.stringify(skill.hooks ?? null)}${JSON.stringify(skill.keywords ?? [])}${JSON.stringify(skill.invocation ?? null)}`;
    if (chunk.length >= 65_536) {
      hash.update(chunk);
      chunk = '';
    }
  }
  return hash.update(chunk);
}

/** The stamps of `stamp`'s catalog with `tools` as its tools files; undefined when one cannot be stat'ed. */
export function toolsStamps(stamp: Omit<StampInputs, 'tools'>, tools: StampInputs['tools']): ReadStamps | undefined {
  const inputs = { ...stamp, options: { ...stamp.options, toolsFiles: tools.map((tool) => tool.path) }, tools };
  const source = sourceStamp(inputs);
  return source === undefined ? undefined : { sourceStamp: source, portableStamp: portableStamp(inputs) };
}
