import type BetterSqlite3 from 'better-sqlite3';

/**
 * What a tools file's load leaves for the next process, in the store (`src/load/tools-cache.ts`
 * says what and why; the load layer encodes and checks it, these tables only keep it):
 * - `tools_skills`: per tools file and load settings (`key`), the parsed skills as one
 *   `v8.serialize` blob, under the file's stat when it was parsed; a read names the stat, so a
 *   stale snapshot's blob is never read.
 * - `tools_lines`: per key, the line table: the text and its line starts as blobs, the lines'
 *   outcomes as JSON (one row: a cold process reads a 24k-line table in one lookup).
 * `used` is the day a row was last read or written: `collect` drops rows older than its days.
 * The blobs come last in their rows: SQLite reaches a column after a blob through its overflow
 * pages, and a stale snapshot is told by the columns before it.
 */
/** A tools file's stat when what a row keeps was read, and the day the row was last used. */
const STAT_COLUMNS = `
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  ctime_ms REAL NOT NULL,
  ino INTEGER NOT NULL,
  used INTEGER NOT NULL`;

export const TOOLS_FILES_SQL = `
CREATE TABLE IF NOT EXISTS tools_skills (
  key TEXT PRIMARY KEY,${STAT_COLUMNS},
  skills BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS tools_lines (
  key TEXT PRIMARY KEY,${STAT_COLUMNS},
  outcomes TEXT NOT NULL,
  starts BLOB NOT NULL,
  text BLOB NOT NULL
);
`;

/** Drops the tools rows not used since day `before`; returns how many went. */
export function collectToolsFiles(db: BetterSqlite3.Database, before: number): number {
  return db.prepare('DELETE FROM tools_skills WHERE used < ?').run(before).changes + db.prepare('DELETE FROM tools_lines WHERE used < ?').run(before).changes;
}
