import type BetterSqlite3 from 'better-sqlite3';

/**
 * What a tools file's load leaves for the next process (`src/load/tools-cache.ts` says what and
 * why): `tools_skills`, per tools file and load settings (`key`), the parsed skills as one blob
 * under the file's stat when it was parsed; `tools_lines`, per key, the line table. The blobs
 * come last in their rows: SQLite reaches a column after a blob through its overflow pages.
 */
/** A tools file's stat when what a row keeps was read, and the day the row was last read or written. */
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
