import { deserialize, serialize } from 'node:v8';
import type { Diagnostic, Skill } from '../types.js';
import { isRecord } from '../util/json-file.js';
import { packageVersion } from '../util/package-version.js';
import type { ToolsCache, ToolsFileStat } from './tools-cache.js';
import { isSkillShaped } from './tools-jsonl.js';
import { DIGEST_PIECE } from './dir-stamp.js';

/** What one file gave, without its realpath (a scan tells that): its skill or nothing, and its problems. */
export interface Parsed {
  readonly skill: Skill | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * A file's parse under its key (its stat, its policy file's stat and its default name); `plain`: its realpath was the path its listing
 * gave; `racy`: modified within `RACY_MS` of its stat, so never taken for a read (a rewrite in the same tick may not move its stat),
 * kept only to tell what the scan's catalog held (`folderDelta`).
 */
export interface MemoEntry {
  readonly key: string;
  readonly parsed: Parsed;
  readonly plain: boolean;
  readonly racy: boolean;
}

/** A file a scan read: its parse, whether its realpath was its listing's path, and its key now (undefined: its stat could not be taken). */
export interface ReadEntry extends Omit<MemoEntry, 'key' | 'racy'> {
  readonly key: string | undefined;
}

/** Where a memo is kept for the next process: `cache`'s skills under `key`, which names the folder and everything that shapes a file's parse. */
export interface KeptMemo {
  readonly cache: ToolsCache;
  readonly key: string;
}

/** Bumped when what a kept memo holds changes: older ones are then never read. */
const SCAN_MEMO_FORMAT = 4;
/** A kept memo is a tools cache's skills with no one file's stat. */
const NO_STAT: ToolsFileStat = Object.freeze({ size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 });

/** What a kept memo's first row holds: the piece digests its entries' keys were made under, and how many files that stamp listed. */
export interface KeptPieces {
  readonly pieces: readonly string[];
  readonly files: number;
}

/**
 * One folder's parsed files from its last scan, each under its stat; for one folder and options, scans not overlapping. With a
 * cache, kept across processes as a row of its pieces ({@link KeptPieces}) and a row per piece of the stamp (the entries of the
 * files there): the first scan of a process reads them all, a folder delta only the pieces whose digest moved ({@link keptPiece}).
 * A scan that changed it keeps it again as a later write (`ToolsCache.writeSkillsLater`), which a writer (the indexer, `watch`)
 * makes at its close and a cold search never.
 */
export class ScanMemo {
  files: ReadonlyMap<string, MemoEntry> = new Map();
  /**
   * The piece digests (`stampPieces`) of a stamp whose stats every entry's key holds: a file in a piece whose digest is still this one
   * has the stat its entry was made with, so a scan takes the entry without making its key.
   */
  pieces: readonly string[] = [];
  /** Files taken from the memo and files read, in the last scan: what a rescan cost. */
  last = { reused: 0, read: 0 };
  /** The entries before the last scan, and the files it read: what a folder delta is told from. */
  previous: ReadonlyMap<string, MemoEntry> = new Map();
  read: ReadonlyMap<string, ReadEntry> = new Map();
  readonly #kept: KeptMemo | undefined;
  #keptRead = false;

  constructor(kept?: KeptMemo) {
    this.#kept = kept;
  }

  /** {@link files}, read from where they are kept first when this process has not yet. */
  entries(): ReadonlyMap<string, MemoEntry> {
    if (this.#kept !== undefined && !this.#keptRead) {
      this.#keptRead = true;
      const kept = readKept(this.#kept);
      if (kept !== undefined) ({ files: this.files, pieces: this.pieces } = kept);
    }
    return this.files;
  }

  /** The kept memo's pieces, read alone; undefined when none is kept, it is not one this code wrote, or this process scanned already. */
  keptPieces(): KeptPieces | undefined {
    return this.#kept === undefined || this.#keptRead ? undefined : readHead(this.#kept);
  }

  /** The entries the kept memo holds for piece `piece` of the stamp its {@link keptPieces} were made under (undefined: not readable). */
  keptPiece(piece: number, digest: string): ReadonlyMap<string, MemoEntry> | undefined {
    if (this.#kept === undefined || this.#keptRead) return undefined;
    return readPiece(this.#kept, piece, digest);
  }

  /**
   * Takes a scan's entries, the piece digests of its stamp and the stamp's files in order (which piece each entry is kept in), its
   * counts and the files it read; kept when an entry was added or dropped.
   */
  update(
    files: ReadonlyMap<string, MemoEntry>,
    stamped: { readonly pieces: readonly string[]; readonly files: readonly string[] },
    last: ScanMemo['last'],
    read: ScanMemo['read'],
  ): void {
    const before = this.files;
    const { pieces } = stamped;
    this.previous = before;
    this.read = read;
    this.files = files;
    this.pieces = pieces;
    this.last = last;
    this.#keptRead = true;
    const kept = this.#kept;
    if (kept === undefined || sameEntries(before, files)) return;
    const write = (key: string, encode: () => Buffer) =>
      kept.cache.writeSkillsLater !== undefined ? kept.cache.writeSkillsLater(key, NO_STAT, encode) : kept.cache.writeSkills(key, NO_STAT, encode());
    write(keptKey(kept), () => serialize({ pieces, files: stamped.files.length }));
    pieces.forEach((digest, piece) =>
      write(keptKey(kept, piece), () => {
        const rows: unknown[] = [];
        for (let at = piece * DIGEST_PIECE; at < Math.min(stamped.files.length, (piece + 1) * DIGEST_PIECE); at += 1) {
          const file = stamped.files[at]!;
          const entry = files.get(file);
          if (entry !== undefined) rows.push([file, entry.key, entry.parsed.skill ?? null, entry.parsed.diagnostics, entry.plain, entry.racy]);
        }
        return serialize({ digest, rows });
      }),
    );
  }
}

function sameEntries(before: ReadonlyMap<string, MemoEntry>, after: ReadonlyMap<string, MemoEntry>): boolean {
  if (before.size !== after.size) return false;
  for (const [file, entry] of after) if (before.get(file) !== entry) return false;
  return true;
}

/** Where the kept memo's pieces are, or with `piece`, that piece's entries. */
function keptKey({ key }: KeptMemo, piece?: number): string {
  return JSON.stringify(piece === undefined ? ['scan', SCAN_MEMO_FORMAT, packageVersion(), key] : ['scan', SCAN_MEMO_FORMAT, packageVersion(), key, piece]);
}

function decoded(kept: KeptMemo, key: string): unknown {
  try {
    const body = kept.cache.readSkills(key, NO_STAT);
    return body === undefined ? undefined : deserialize(body);
  } catch {
    return undefined;
  }
}

function readHead(kept: KeptMemo): KeptPieces | undefined {
  const head = decoded(kept, keptKey(kept));
  if (!isRecord(head) || !Array.isArray(head['pieces']) || typeof head['files'] !== 'number') return undefined;
  const pieces = head['pieces'] as unknown[];
  return pieces.every((piece) => typeof piece === 'string') ? { pieces: pieces as string[], files: head['files'] } : undefined;
}

/** The memo kept, or undefined when there is none or it is not one this code wrote (every piece's digest and every entry checked). */
function readKept(kept: KeptMemo): { readonly files: Map<string, MemoEntry>; readonly pieces: readonly string[] } | undefined {
  const head = readHead(kept);
  if (head === undefined) return undefined;
  const files = new Map<string, MemoEntry>();
  for (let piece = 0; piece < head.pieces.length; piece += 1) {
    const entries = readPiece(kept, piece, head.pieces[piece]!, files);
    if (entries === undefined) return undefined;
  }
  return { files, pieces: head.pieces };
}

/** Piece `piece`'s entries (into `into`), when its row was kept under `digest` and each entry has the shape this code writes. */
function readPiece(kept: KeptMemo, piece: number, digest: string, into = new Map<string, MemoEntry>()): Map<string, MemoEntry> | undefined {
  const body = decoded(kept, keptKey(kept, piece));
  if (!isRecord(body) || body['digest'] !== digest || !Array.isArray(body['rows'])) return undefined;
  for (const row of body['rows'] as unknown[]) {
    if (!Array.isArray(row) || row.length !== 6) return undefined;
    const [file, entryKey, skill, diagnostics, plain, racy] = row as unknown[];
    if (typeof file !== 'string' || typeof entryKey !== 'string' || typeof plain !== 'boolean' || typeof racy !== 'boolean') return undefined;
    if ((skill !== null && !isSkillShaped(skill)) || !Array.isArray(diagnostics) || !diagnostics.every(isDiagnosticShaped)) return undefined;
    if (skill !== null) Object.freeze((skill as Skill).keywords);
    const parsed = { skill: skill === null ? undefined : Object.freeze(skill as Skill), diagnostics: diagnostics.map((d: Diagnostic) => Object.freeze(d)) };
    into.set(file, { key: entryKey, parsed, plain, racy });
  }
  return into;
}

function isDiagnosticShaped(value: unknown): boolean {
  return isRecord(value) && ['code', 'path', 'message', 'severity'].every((field) => typeof value[field] === 'string');
}
