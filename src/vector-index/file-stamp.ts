import { readFileSync, statSync, writeFileSync } from 'node:fs';

/**
 * What a persisted file looked like right after it was written and checksummed: size, mtime
 * and inode. A cold process that finds the file still matching its stamp skips hashing it
 * (the checksum was verified when it was written); anything else — no stamp, another size, a
 * touched or replaced file — falls back to the full checksum, and a mismatch there means
 * "rebuild" as before. Every atomic rewrite makes a new inode, so a stale stamp never matches.
 */
export interface FileStamp {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

/** The stamp of `file` now; undefined when it cannot be read. */
export function stampOf(file: string): FileStamp | undefined {
  try {
    const stat = statSync(file);
    return { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino };
  } catch {
    return undefined;
  }
}

export function sameStamp(a: FileStamp | undefined, b: FileStamp | undefined): boolean {
  return a !== undefined && b !== undefined && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}

/** `<file>.stamp`: the stamp and the checksum the file had when written. */
export function stampFileFor(file: string): string {
  return `${file}.stamp`;
}

/**
 * Records `file`'s stamp beside it. Not fsynced and not atomic on purpose: a stamp lost or torn
 * by a crash only means the next load hashes the file, as it did before stamps existed.
 */
export function writeStamp(file: string, sha256: string): void {
  const stamp = stampOf(file);
  if (stamp === undefined) return;
  try {
    writeFileSync(stampFileFor(file), JSON.stringify({ ...stamp, sha256 }), { mode: 0o600 });
  } catch {
    // A read-only folder: loads keep hashing.
  }
}

/** True when `file` is exactly as written with checksum `sha256` (its stamp matches); false means "hash it". */
export function stampVouchesFor(file: string, sha256: string): boolean {
  let recorded: unknown;
  try {
    recorded = JSON.parse(readFileSync(stampFileFor(file), 'utf8'));
  } catch {
    return false;
  }
  if (typeof recorded !== 'object' || recorded === null) return false;
  const { size, mtimeMs, ino, sha256: digest } = recorded as Record<string, unknown>;
  if (typeof size !== 'number' || typeof mtimeMs !== 'number' || typeof ino !== 'number' || digest !== sha256) return false;
  return sameStamp({ size, mtimeMs, ino }, stampOf(file));
}
