import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
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
 *
 * The file is a short JSON header (format, path, stat; its byte length first, as a 32-bit
 * little-endian number) and then the serialised skills, so a stale snapshot (the file edited
 * since) is told by its header without deserialising megabytes of skills.
 */
const SNAPSHOT_FORMAT = 2;
/** A header longer than this is not one this code wrote. */
const MAX_HEADER_BYTES = 64 * 1024;

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
    const body = readIfCurrent(snapshotFile(dir, key), key, stat);
    if (body === undefined) return undefined;
    data = deserialize(body);
  } catch {
    return undefined;
  }
  const record = data as { skills?: unknown; diagnostics?: unknown } | null;
  if (
    record === null ||
    typeof record !== 'object' ||
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

/** The serialised part of snapshot `file` when its header is this format's for `key.path` at `stat`; else undefined (only the header read). */
function readIfCurrent(file: string, key: ToolsSnapshotKey, stat: ToolsFileStat): Buffer | undefined {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const length = Buffer.alloc(4);
    if (readSync(fd, length, 0, 4, 0) !== 4) return undefined;
    const headerBytes = length.readUInt32LE(0);
    if (headerBytes > MAX_HEADER_BYTES || 4 + headerBytes > size) return undefined;
    const headerText = Buffer.alloc(headerBytes);
    if (readSync(fd, headerText, 0, headerBytes, 4) !== headerBytes) return undefined;
    const header = JSON.parse(headerText.toString('utf8')) as { format?: unknown; path?: unknown; stat?: unknown } | null;
    if (header === null || typeof header !== 'object' || header.format !== SNAPSHOT_FORMAT || header.path !== key.path || !sameStat(stat, header.stat))
      return undefined;
    const body = Buffer.alloc(size - 4 - headerBytes);
    if (readSync(fd, body, 0, body.length, 4 + headerBytes) !== body.length) return undefined;
    return body;
  } finally {
    closeSync(fd);
  }
}

/** Keeps `snapshot` for the next process; silent on failure (the snapshot is only a cache). */
export function writeToolsSnapshot(dir: string, key: ToolsSnapshotKey, stat: ToolsFileStat, snapshot: ToolsSnapshot): void {
  try {
    mkdirPrivate(dir);
    const header = Buffer.from(JSON.stringify({ format: SNAPSHOT_FORMAT, path: key.path, stat }), 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length, 0);
    writeFileAtomic(snapshotFile(dir, key), Buffer.concat([length, header, serialize({ skills: snapshot.skills, diagnostics: snapshot.diagnostics })]));
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
