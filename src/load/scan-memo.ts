import { deserialize, serialize } from 'node:v8';
import type { Diagnostic, Skill } from '../types.js';
import { isRecord } from '../util/json-file.js';
import { packageVersion } from '../util/package-version.js';
import type { ToolsCache, ToolsFileStat } from './tools-cache.js';
import { isSkillShaped } from './tools-jsonl.js';

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
const SCAN_MEMO_FORMAT = 3;
/** A kept memo is a tools cache's skills with no one file's stat. */
const NO_STAT: ToolsFileStat = Object.freeze({ size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 });

/**
 * One folder's parsed files from its last scan, each under its stat; for one folder and options, scans not overlapping. With a
 * cache, kept across processes: the first scan of a process reads the kept memo, and a scan that changed it keeps it again as a
 * later write (`ToolsCache.writeSkillsLater`), which a writer (the indexer, `watch`) makes at its close and a cold search never.
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
      const kept = readKept(this.#kept.cache, keptKey(this.#kept));
      if (kept !== undefined) ({ files: this.files, pieces: this.pieces } = kept);
    }
    return this.files;
  }

  /** Takes a scan's entries, the piece digests of its stamp, its counts and the files it read; kept when an entry was added or dropped. */
  update(files: ReadonlyMap<string, MemoEntry>, pieces: readonly string[], last: ScanMemo['last'], read: ScanMemo['read']): void {
    const before = this.files;
    this.previous = before;
    this.read = read;
    this.files = files;
    this.pieces = pieces;
    this.last = last;
    this.#keptRead = true;
    const kept = this.#kept;
    if (kept === undefined || sameEntries(before, files)) return;
    const encode = () =>
      serialize({ pieces, rows: [...files].map(([file, { key, parsed, plain, racy }]) => [file, key, parsed.skill ?? null, parsed.diagnostics, plain, racy]) });
    if (kept.cache.writeSkillsLater !== undefined) kept.cache.writeSkillsLater(keptKey(kept), NO_STAT, encode);
    else kept.cache.writeSkills(keptKey(kept), NO_STAT, encode());
  }
}

function sameEntries(before: ReadonlyMap<string, MemoEntry>, after: ReadonlyMap<string, MemoEntry>): boolean {
  if (before.size !== after.size) return false;
  for (const [file, entry] of after) if (before.get(file) !== entry) return false;
  return true;
}

function keptKey({ key }: KeptMemo): string {
  return JSON.stringify(['scan', SCAN_MEMO_FORMAT, packageVersion(), key]);
}

/** The memo kept under `key`, or undefined when there is none or it is not one this code wrote (every entry checked). */
function readKept(cache: ToolsCache, key: string): { readonly files: Map<string, MemoEntry>; readonly pieces: readonly string[] } | undefined {
  let kept: unknown;
  try {
    const body = cache.readSkills(key, NO_STAT);
    if (body === undefined) return undefined;
    kept = deserialize(body);
  } catch {
    return undefined;
  }
  if (!isRecord(kept) || !Array.isArray(kept['rows']) || !Array.isArray(kept['pieces'])) return undefined;
  const { rows, pieces } = kept as { rows: unknown[]; pieces: unknown[] };
  if (!pieces.every((piece) => typeof piece === 'string')) return undefined;
  const files = new Map<string, MemoEntry>();
  for (const row of rows as unknown[]) {
    if (!Array.isArray(row) || row.length !== 6) return undefined;
    const [file, entryKey, skill, diagnostics, plain, racy] = row as unknown[];
    if (typeof file !== 'string' || typeof entryKey !== 'string' || typeof plain !== 'boolean' || typeof racy !== 'boolean') return undefined;
    if ((skill !== null && !isSkillShaped(skill)) || !Array.isArray(diagnostics) || !diagnostics.every(isDiagnosticShaped)) return undefined;
    if (skill !== null) Object.freeze((skill as Skill).keywords);
    const parsed = { skill: skill === null ? undefined : Object.freeze(skill as Skill), diagnostics: diagnostics.map((d: Diagnostic) => Object.freeze(d)) };
    files.set(file, { key: entryKey, parsed, plain, racy });
  }
  return { files, pieces: pieces as string[] };
}

function isDiagnosticShaped(value: unknown): boolean {
  return isRecord(value) && ['code', 'path', 'message', 'severity'].every((field) => typeof value[field] === 'string');
}
