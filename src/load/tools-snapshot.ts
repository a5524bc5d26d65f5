import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { Diagnostic, Skill } from '../types.js';
import { shortHash } from '../util/hash.js';
import { mkdirPrivate, writeFileAtomic } from '../vector-index/atomic-file.js';

/**
 * A parsed tools file kept as a `v8.serialize` snapshot, so a cold process (the hook without a
 * server, every `query`) reads a large unchanged registry in a fraction of the time parsing,
 * validating and hashing its lines takes. The snapshot is named by everything that shaped the
 * skills (file, source, rank, limits, this format) and holds the file's stat when it was
 * parsed: any other size, mtime, ctime or inode means "parse again". It is only a cache: an
 * unreadable, foreign or stale snapshot is ignored, and a failed write loses nothing.
 */
const SNAPSHOT_FORMAT = 1;

/** What the parsed skills depend on besides the file's bytes. */
export interface ToolsSnapshotKey {
  readonly path: string;
  readonly source: string;
  readonly rank: number;
  readonly limits: unknown;
}

/** A file's identity for the snapshot; a rewrite in place still moves ctime. */
export interface ToolsFileStat {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
}

export interface ToolsSnapshot {
  readonly skills: readonly Skill[];
  readonly diagnostics: readonly Diagnostic[];
}

export function toolsFileStat(path: string): ToolsFileStat | undefined {
  try {
    const stat = statSync(path);
    return { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino };
  } catch {
    return undefined;
  }
}

/** True when `b` (a stat, or anything read back from a snapshot) is the stat `a`. */
export function sameStat(a: ToolsFileStat, b: unknown): boolean {
  const other = b as Partial<ToolsFileStat> | null;
  return other?.size === a.size && other.mtimeMs === a.mtimeMs && other.ctimeMs === a.ctimeMs && other.ino === a.ino;
}

function snapshotFile(dir: string, key: ToolsSnapshotKey): string {
  return join(dir, `tools-${shortHash(JSON.stringify([SNAPSHOT_FORMAT, key.path, key.source, key.rank, key.limits]))}.bin`);
}

/** The snapshot of `key.path` as it was when `stat` was taken, or undefined. */
export function readToolsSnapshot(dir: string, key: ToolsSnapshotKey, stat: ToolsFileStat): ToolsSnapshot | undefined {
  let data: unknown;
  try {
    data = deserialize(readFileSync(snapshotFile(dir, key)));
  } catch {
    return undefined;
  }
  const record = data as { format?: unknown; path?: unknown; stat?: unknown; skills?: unknown; diagnostics?: unknown } | null;
  if (
    record === null ||
    typeof record !== 'object' ||
    record.format !== SNAPSHOT_FORMAT ||
    record.path !== key.path ||
    !sameStat(stat, record.stat) ||
    !Array.isArray(record.skills) ||
    !Array.isArray(record.diagnostics) ||
    !record.skills.every(isSkillShaped)
  ) {
    return undefined;
  }
  for (const skill of record.skills as Skill[]) {
    if (skill.keywords !== undefined) Object.freeze(skill.keywords);
    Object.freeze(skill);
  }
  return { skills: record.skills as Skill[], diagnostics: record.diagnostics as Diagnostic[] };
}

/** Keeps `snapshot` for the next process; silent on failure (the snapshot is only a cache). */
export function writeToolsSnapshot(dir: string, key: ToolsSnapshotKey, stat: ToolsFileStat, snapshot: ToolsSnapshot): void {
  try {
    mkdirPrivate(dir);
    writeFileAtomic(
      snapshotFile(dir, key),
      serialize({ format: SNAPSHOT_FORMAT, path: key.path, stat, skills: snapshot.skills, diagnostics: snapshot.diagnostics }),
    );
  } catch {
    // A read-only or full cache folder: the next process parses the file again.
  }
}

/** The fields every consumer of a tools skill reads, with their types. */
function isSkillShaped(value: unknown): boolean {
  const skill = value as Partial<Skill> | null;
  return (
    typeof skill === 'object' &&
    skill !== null &&
    typeof skill.id === 'string' &&
    typeof skill.name === 'string' &&
    typeof skill.description === 'string' &&
    typeof skill.path === 'string' &&
    typeof skill.body === 'string' &&
    typeof skill.contentHash === 'string' &&
    typeof skill.rank === 'number' &&
    typeof skill.tokenEstimate === 'number'
  );
}
