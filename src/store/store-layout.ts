/** The store's tables as one version lays them out, and a file of another emptied and laid out anew. */
import type BetterSqlite3 from 'better-sqlite3';
import { SkillSearchError } from '../errors.js';
import { CATALOG_SKILLS_SQL } from './catalog-members.js';
import { addLexicalVocabulary, LEXICAL_TABLES_SQL } from './lexical-tables.js';

/** The layout `PRAGMA user_version` records: a file of an older one is emptied ({@link layOut}), a newer one's left alone ({@link refuseNewerLayout}). */
export const SCHEMA_VERSION = 7;
/** `vectors.label` names the vector while it is stored and never another after it (AUTOINCREMENT: a graph may still hold a collected vector's label). */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS vectors (
  label INTEGER PRIMARY KEY AUTOINCREMENT,
  model TEXT NOT NULL,
  key TEXT NOT NULL,
  vector BLOB NOT NULL,
  used INTEGER NOT NULL,
  UNIQUE (model, key)
);
CREATE INDEX IF NOT EXISTS vectors_used ON vectors (used);
CREATE TABLE IF NOT EXISTS catalogs (
  id INTEGER PRIMARY KEY,
  stamp TEXT NOT NULL,
  model TEXT NOT NULL,
  format INTEGER NOT NULL,
  source_stamp TEXT NOT NULL,
  diagnostics TEXT NOT NULL,
  size INTEGER NOT NULL,
  mean BLOB,
  sum BLOB,
  graph TEXT,
  base INTEGER,
  used INTEGER NOT NULL,
  UNIQUE (stamp, model, format)
);
CREATE TABLE IF NOT EXISTS glosses (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (scope, key)
) WITHOUT ROWID;
`;

/** A tools file's stat when what a row keeps was read, and the day the row was last read or written. */
const STAT_COLUMNS = `
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  ctime_ms REAL NOT NULL,
  ino INTEGER NOT NULL,
  used INTEGER NOT NULL`;

/**
 * What a tools file's load leaves for the next process (`src/load/tools-cache.ts` says what and
 * why; `StoreToolsCache` keeps it): per tools file and load settings (`key`), its parsed skills
 * and its line table, each under the file's stat when read. The blobs come last in their rows:
 * SQLite reaches a column after a blob through its overflow pages.
 */
const TOOLS_FILES_SQL = `
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

/** Throws when the store `db` was laid out by a newer skill-search, which this one neither empties nor writes (docs/store.md, "Tables"); called before any write. */
export function refuseNewerLayout(db: BetterSqlite3.Database): void {
  const found = db.pragma('user_version', { simple: true }) as number;
  if (found > SCHEMA_VERSION)
    throw new SkillSearchError('INTERNAL', `it holds layout ${found} of a newer skill-search; this one reads ${SCHEMA_VERSION} and leaves it as it is`);
}

/** Lays out the store `db` (the database `file`) at this version, emptying a file of an older layout first and returning the line saying so. */
export function layOut(db: BetterSqlite3.Database, file: string): string | undefined {
  const version = (): number => db.pragma('user_version', { simple: true }) as number;
  let reset: string | undefined;
  refuseNewerLayout(db);
  // Checked again under the write lock: two processes creating the store at once lay it out once.
  if (version() !== SCHEMA_VERSION)
    db.transaction(() => {
      const found = version();
      if (found === SCHEMA_VERSION) return;
      // Laid out by a newer skill-search since the check above.
      refuseNewerLayout(db);
      if (found !== 0) {
        reset = `skill-search: the store ${file} was of an older layout (${found}); it starts empty`;
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
        for (const table of tables) db.exec(`DROP TABLE IF EXISTS "${table.replaceAll('"', '""')}"`);
      }
      db.exec(SCHEMA);
      db.exec(CATALOG_SKILLS_SQL);
      db.exec(LEXICAL_TABLES_SQL);
      db.exec(TOOLS_FILES_SQL);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }).immediate();
  // Added to the layout without a new version: a store laid out before it keeps its contents.
  addLexicalVocabulary(db);
  return reset;
}
