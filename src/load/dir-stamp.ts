/**
 * What a stamp of one skill folder holds: each file a scan would read with its stat, and for a skill folder's SKILL.md its Codex
 * policy file's, as numbers in one typed array. A hook stamps every skill folder on every prompt: at 24k folders a string and a
 * tuple per file were most of the stamp's time after its syscalls (docs/benchmarks.md, "24k SKILL.md folders: the stamp as numbers").
 */
import { createHash } from 'node:crypto';
import { existsSync, statSync, type Stats } from 'node:fs';
import { sep } from 'node:path';
import type { Diagnostic } from '../types.js';
import { CODEX_POLICY_FILE } from './invocation.js';

/** A stat as a stamp keeps it: size, mtime, ctime (ms), inode, device. */
const STAT_FIELDS = 5;
/** Two slots per file: its own stat, then its policy file's. */
const SLOTS_PER_FILE = 2;
/** The size field of a slot that holds no stat: no such file, its stat failed (the code in `errors`), or no policy file is read (a loose file). */
const MISSING = -1;
const FAILED = -2;
const NONE = -3;

export interface DirStamp {
  /** The files a scan reads, in its order. */
  readonly files: readonly string[];
  /** {@link STAT_FIELDS} numbers per slot, {@link SLOTS_PER_FILE} slots per file (read them with {@link statTextAt}). */
  readonly stats: Float64Array;
  /** The error code of each slot whose stat failed (`EACCES`, `ELOOP`…). */
  readonly errors: ReadonlyMap<number, string>;
  readonly diagnostics: readonly Diagnostic[];
}

/** A file to stamp: `folder` set for a skill folder's SKILL.md, beside which Codex's policy file is stat'ed. */
export interface StampedFile {
  readonly file: string;
  readonly folder?: string | undefined;
}

/** `join(dir, name)` for a `name` listed in `dir` (no separator in it), without `join`'s normalising: a hook makes paths for every skill folder. */
export function childPath(dir: string, name: string): string {
  return dir.endsWith(sep) ? `${dir}${name}` : `${dir}${sep}${name}`;
}

const POLICY_IN_FOLDER = CODEX_POLICY_FILE.split('/').join(sep);

/** A skill folder's Codex policy file (`join(folder, CODEX_POLICY_FILE)` for a normalised `folder`), made as one string. */
export function policyFileOf(folder: string): string {
  return childPath(folder, POLICY_IN_FOLDER);
}

/** The slot of file `index`'s own stat; its policy file's is the next. */
export function slotOf(index: number): number {
  return index * SLOTS_PER_FILE;
}

/**
 * Each file's stat (links followed) and, for a skill folder's, its policy file's; files modified after `racyAfter` (ms) go in
 * `recent`. Stat'ed one by one on this thread: a promise per file and an error per missing policy file cost a hook seconds at 24k
 * folders; the policy file, which most folders lack, is told missing without making a stat.
 */
export function stampFiles(candidates: readonly StampedFile[], diagnostics: readonly Diagnostic[], racyAfter: number, recent: Set<string>): DirStamp {
  const stats = new Float64Array(candidates.length * SLOTS_PER_FILE * STAT_FIELDS);
  const errors = new Map<number, string>();
  const stamp = (slot: number, file: string, rare: boolean): void => {
    const at = slot * STAT_FIELDS;
    try {
      const found = rare && !existsSync(file) ? undefined : statSync(file, { throwIfNoEntry: false });
      if (found === undefined) stats[at] = MISSING;
      else {
        if (found.mtimeMs > racyAfter) recent.add(file);
        write(stats, at, found);
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') stats[at] = MISSING;
      else {
        stats[at] = FAILED;
        errors.set(slot, String(code));
      }
    }
  };
  for (let i = 0; i < candidates.length; i++) {
    const { file, folder } = candidates[i]!;
    stamp(slotOf(i), file, false);
    if (folder === undefined) stats[(slotOf(i) + 1) * STAT_FIELDS] = NONE;
    else stamp(slotOf(i) + 1, policyFileOf(folder), true);
  }
  return { files: candidates.map(({ file }) => file), stats, errors, diagnostics: [...diagnostics] };
}

function write(stats: Float64Array, at: number, found: Pick<Stats, 'size' | 'mtimeMs' | 'ctimeMs' | 'ino' | 'dev'>): void {
  stats[at] = found.size;
  stats[at + 1] = found.mtimeMs;
  stats[at + 2] = found.ctimeMs;
  stats[at + 3] = found.ino;
  stats[at + 4] = found.dev;
}

/**
 * A slot's stat as text, `size:mtime:ctime:ino:dev` ({@link modifiedAtOf} reads its mtime back); null when there is no such file,
 * `error:CODE` when its stat failed, undefined when no policy file is read (a loose file's second slot). A scan memo's keys hold it.
 */
export function statTextAt(stamp: DirStamp, slot: number): string | null | undefined {
  const at = slot * STAT_FIELDS;
  const { stats } = stamp;
  const size = stats[at]!;
  if (size === MISSING) return null;
  if (size === NONE) return undefined;
  if (size === FAILED) return `error:${stamp.errors.get(slot)}`;
  return `${size}:${stats[at + 1]}:${stats[at + 2]}:${stats[at + 3]}:${stats[at + 4]}`;
}

/** The modification time a {@link statTextAt} text holds. */
export function modifiedAtOf(stat: string): number {
  return Number(stat.split(':', 2)[1]);
}

/** A file's stat and its policy file's as texts ({@link statTextAt}), as a memo entry kept them. */
export interface StatTexts {
  readonly own: string | null;
  /** Undefined for a loose file (no policy file read). */
  readonly policy: string | null | undefined;
}

/** `stamp` with some files' stats replaced (`texts`, by file): its {@link stampPieces} hashes only their pieces again. */
export function withStats(stamp: DirStamp, texts: ReadonlyMap<string, StatTexts>): DirStamp {
  const stats = stamp.stats.slice();
  const errors = new Map(stamp.errors);
  const replaced: number[] = [];
  const put = (slot: number, text: string | null | undefined): void => {
    const at = slot * STAT_FIELDS;
    errors.delete(slot);
    stats.fill(0, at, at + STAT_FIELDS);
    if (text === undefined) stats[at] = NONE;
    else if (text === null) stats[at] = MISSING;
    else if (text.startsWith('error:')) {
      stats[at] = FAILED;
      errors.set(slot, text.slice('error:'.length));
    } else {
      const [size, mtimeMs, ctimeMs, ino, dev] = text.split(':').map(Number) as [number, number, number, number, number];
      write(stats, at, { size, mtimeMs, ctimeMs, ino, dev });
    }
  };
  if (texts.size > 0) {
    stamp.files.forEach((file, i) => {
      const text = texts.get(file);
      if (text === undefined) return;
      put(slotOf(i), text.own);
      put(slotOf(i) + 1, text.policy);
      replaced.push(i);
    });
  }
  const made = { files: stamp.files, stats, errors, diagnostics: stamp.diagnostics };
  restampedFrom.set(made, { from: stamp, changed: new Set(replaced.map((file) => Math.floor(file / DIGEST_PIECE))) });
  return made;
}

/**
 * Files per piece of a folder's digest: a stamp that differs from another in a few files hashes only their pieces again
 * ({@link withStats}), and a scan compares each file's stat with its memo entry's only in the pieces whose digest moved.
 */
export const DIGEST_PIECE = 1024;
const pieces = new WeakMap<DirStamp, readonly string[]>();
/** A stamp made from another by {@link withStats}, and the pieces it replaced a stat in: its other pieces are that one's. */
const restampedFrom = new WeakMap<DirStamp, { readonly from: DirStamp; readonly changed: ReadonlySet<number> }>();

/** The sha256 of each {@link DIGEST_PIECE} files (their paths, stats and failed stats' codes), in order; made once per stamp. */
export function stampPieces(stamp: DirStamp): readonly string[] {
  let digests = pieces.get(stamp);
  if (digests === undefined) {
    const restamp = restampedFrom.get(stamp);
    const fromDigests = restamp === undefined ? undefined : stampPieces(restamp.from);
    const { files } = stamp;
    const made: string[] = [];
    for (let start = 0; start < files.length; start += DIGEST_PIECE) {
      const end = Math.min(files.length, start + DIGEST_PIECE);
      const piece = made.length;
      if (restamp !== undefined && !restamp.changed.has(piece)) {
        made.push(fromDigests![piece]!);
        continue;
      }
      const { stats, errors } = stampBytes(stamp, start, end);
      const hash = createHash('sha256').update(JSON.stringify(files.slice(start, end)));
      made.push(hash.update(stats).update(errors).digest('hex'));
    }
    digests = made;
    pieces.set(stamp, digests);
  }
  return digests;
}

/** The bytes of files `start` to `end` (exclusive): their slots' numbers and failed stats' codes, for a stamp's digest. */
function stampBytes(stamp: DirStamp, start: number, end: number): { readonly stats: Uint8Array; readonly errors: string } {
  const from = slotOf(start) * STAT_FIELDS;
  const to = slotOf(end) * STAT_FIELDS;
  const view = new Uint8Array(stamp.stats.buffer, stamp.stats.byteOffset + from * 8, (to - from) * 8);
  let errors = '';
  for (const [slot, code] of stamp.errors) if (slot >= slotOf(start) && slot < slotOf(end)) errors += `${slot}:${code}\n`;
  return { stats: view, errors };
}
