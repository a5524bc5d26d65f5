import { statSync } from 'node:fs';

/**
 * Where what a tools file's load left is kept for the next process: its parsed skills (a
 * `v8.serialize` snapshot, `tools-jsonl.ts`) and its line table (`tools-lines.ts`). The load
 * layer encodes, checks and decodes both; the keeper only keeps them (the CLI's is the shared
 * SQLite store's `tools_skills` and `tools_lines` tables, `src/store/store-tools-cache.ts`). It is only a cache: a read
 * answers undefined and a write does nothing when the keeper cannot, never throwing.
 */
export interface ToolsCache {
  /** The skills kept under `key` when the file had `stat` then; undefined otherwise. */
  readSkills(key: string, stat: ToolsFileStat): Buffer | undefined;
  writeSkills(key: string, stat: ToolsFileStat, skills: Buffer): void;
  /**
   * A reload's skills (a resident process's, on every edit of the file): the keeper may hold
   * them and write them later, encoding them then; one without this method gets `writeSkills`
   * at once. A later `writeSkills` or `readSkills` of the key supersedes or writes what is held.
   */
  writeSkillsLater?(key: string, stat: ToolsFileStat, encode: () => Buffer): void;
  /** The line table kept under `key`, whatever its stat. */
  readLines(key: string): StoredLines | undefined;
  writeLines(key: string, lines: StoredLines): void;
  /**
   * The keys of the line tables kept for files of `size` bytes (within `slack` bytes of it when
   * given), with the stats their text was read under, most recently used first, then nearest in
   * size (`tools-copy.ts`). Optional.
   */
  tablesOfSize?(size: number, slack?: number): { readonly key: string; readonly stat: ToolsFileStat }[];
  /** Whether the line table kept under `key` has `text` as its text. Optional, with {@link tablesOfSize}. */
  holdsText?(key: string, text: Buffer): boolean;
}

/** A line table as it is kept: the load layer makes and checks each part (`tools-lines.ts`). */
export interface StoredLines {
  /** The file's stat taken before `text` was read. */
  readonly stat: ToolsFileStat;
  readonly text: Buffer;
  /** Where each line of `text` starts, 32-bit little-endian, one more entry closing the last. */
  readonly starts: Buffer;
  /** Each line's id and problems, and the lines repeating an id, as JSON. */
  readonly outcomes: string;
}

/** What a tools file's skills depend on besides its bytes. */
export interface ToolsKey {
  readonly path: string;
  readonly source: string;
  readonly rank: number;
  readonly limits: unknown;
}

/** Bumped when what a tools file's load keeps (the skills' shape, a table's outcomes) changes: older entries are then never read. */
const TOOLS_CACHE_FORMAT = 1;

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
