import { statSync } from 'node:fs';
import type { LoadedFrom } from '../types.js';
import type { SkillLimits } from './skill.js';

/**
 * Where a tools file's load is kept for the next process (the CLI's keeper: `src/store/store-tools-cache.ts`): its skills
 * (`tools-jsonl.ts`) and line table (`tools-lines.ts`), and a skill folder's scan memo (`scan-memo.ts`, as skills with no stat),
 * encoded and checked there. Only a cache: a failed read or write never throws.
 */
export interface ToolsCache {
  /** The skills kept under `key` when the file had `stat` then; undefined otherwise. */
  readSkills(key: string, stat: ToolsFileStat): Buffer | undefined;
  writeSkills(key: string, stat: ToolsFileStat, skills: Buffer): void;
  /**
   * A resident process's reload, or a scan memo: the keeper may write (and encode) it later, or not at all for a cold search;
   * a later write or read of the key supersedes or flushes it.
   */
  writeSkillsLater?(key: string, stat: ToolsFileStat, encode: () => Buffer): void;
  /** The line table kept under `key`, whatever its stat. */
  readLines(key: string): ReadLines | undefined;
  writeLines(key: string, lines: StoredLines): void;
  /** The line tables kept for files of `size` bytes (± `slack`), with their stats, most recently used first, then nearest in size. */
  tablesOfSize?(size: number, slack?: number): { readonly key: string; readonly stat: ToolsFileStat }[];
  /** Whether the line table kept under `key` has `text` as its text. Optional, with {@link tablesOfSize}. */
  holdsText?(key: string, text: Buffer): boolean;
}

/** A line table as it is kept: the load layer makes and checks each part (`tools-lines.ts`). */
export interface StoredLines {
  /** Taken before `text` was read. */
  readonly stat: ToolsFileStat;
  readonly text: Buffer;
  /** Where each line of `text` starts (32-bit little-endian, one more entry closing the last), then the lines' and blocks' hashes (`tools-lines.ts`). */
  readonly starts: Buffer;
  /** Each line's id and problems, and the lines repeating an id, as JSON. */
  readonly outcomes: string;
}

/** A line table as read: its text may be read only when asked (megabytes, which a diff of lines edited in place does not need); undefined: gone or changed since. */
export interface ReadLines extends Omit<StoredLines, 'text'> {
  readonly text: Buffer | (() => Buffer | undefined);
}

/** What a tools file's skills are built with besides its bytes (its resolved path...): the key its load is kept under. */
export interface ToolsKey {
  readonly path: string;
  readonly source: LoadedFrom;
  readonly rank: number;
  readonly limits: SkillLimits;
}

/** Bumped when what a tools file's load keeps (the skills' shape, a table's outcomes) changes: older entries are then never read. */
const TOOLS_CACHE_FORMAT = 2;

/** The name `key`'s load is kept under: everything that shaped its skills. */
export function toolsCacheKey(key: ToolsKey): string {
  return JSON.stringify([TOOLS_CACHE_FORMAT, key.path, key.source, key.rank, key.limits]);
}

/** A file's identity for the cache; a rewrite in place still moves ctime. */
export interface ToolsFileStat {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
}

export function toolsFileStat(path: string): ToolsFileStat | undefined {
  try {
    const stat = statSync(path);
    return { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino };
  } catch {
    return undefined;
  }
}

/** True when `b` (a stat, or anything read back from a cache) is the stat `a`. */
export function sameStat(a: ToolsFileStat, b: unknown): boolean {
  const other = b as Partial<ToolsFileStat> | null;
  return other?.size === a.size && other.mtimeMs === a.mtimeMs && other.ctimeMs === a.ctimeMs && other.ino === a.ino;
}
