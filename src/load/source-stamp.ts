import { createHash, type Hash } from 'node:crypto';
import type { Diagnostic, Skill } from '../types.js';
import { packageVersion } from '../util/package-version.js';
import type { ResolvedCatalogOptions } from './options.js';
import type { ScanResult } from './scan.js';
import type { ToolsFileStat } from './tools-snapshot.js';

/**
 * The identity of everything a catalog is built from, computable without reading a tools file:
 * the catalog options, each skill folder's scanned skills (paths, real paths, content) and
 * diagnostics, each tools file's stat (size, mtime, ctime, inode), the skills MCP servers
 * registered, and this package's version (merging and parsing rules are code). Equal stamps
 * mean equal catalogs, so a cold process can trust an index saved with the same stamp without
 * parsing a large registry again (`src/search/search-snapshot.ts`).
 */
const STAMP_FORMAT = 1;

export interface StampedToolsFile {
  readonly path: string;
  /** Taken before the file was read; undefined when it could not be stat'ed (no stamp then). */
  readonly stat: ToolsFileStat | undefined;
}

export interface StampInputs {
  readonly options: ResolvedCatalogOptions;
  readonly dirs: readonly ScanResult[];
  readonly tools: readonly StampedToolsFile[];
  readonly mcp: readonly { readonly skills: readonly Skill[]; readonly diagnostics: readonly Diagnostic[] }[];
}

/** The stamp of `inputs`, or undefined when a tools file has no stat. */
export function sourceStamp(inputs: StampInputs): string | undefined {
  if (inputs.tools.some((file) => file.stat === undefined)) return undefined;
  const { watch: _watch, toolsSnapshotDir: _snapshots, ...options } = inputs.options;
  const hash = createHash('sha256');
  hash.update(JSON.stringify([STAMP_FORMAT, packageVersion(), options]));
  for (const scan of inputs.dirs) {
    hashSkills(hash, scan.skills, (skill) => scan.realPaths.get(skill.path) ?? skill.path);
    hash.update(JSON.stringify(scan.diagnostics));
  }
  hash.update(JSON.stringify(inputs.tools));
  for (const server of inputs.mcp) {
    hashSkills(hash, server.skills);
    hash.update(JSON.stringify(server.diagnostics));
  }
  return hash.digest('hex');
}

/**
 * Feeds each skill's identity and content to `hash`: path (and real path when given), rank,
 * content hash, effort, body, hooks and keywords. Hashed in chunks of about 64 KiB: one update
 * per field costs twice as much on a 24k catalog.
 */
export function hashSkills(hash: Hash, skills: readonly Skill[], realPathOf?: (skill: Skill) => string): void {
  let chunk = '';
  for (const skill of skills) {
    // Length-prefixed body, so bodies and the fields around them cannot run into each other.
    chunk += `${skill.path}\0${realPathOf?.(skill) ?? ''}\0${skill.rank}\0${skill.contentHash}\0${skill.effort ?? ''}\0${skill.body.length}\0${skill.body}`;
    chunk += `${JSON.stringify(skill.hooks ?? null)}${JSON.stringify(skill.keywords ?? [])}`;
    if (chunk.length >= 65_536) {
      hash.update(chunk);
      chunk = '';
    }
  }
  hash.update(chunk);
}
