/**
 * The lexical index as SQLite tables, and their writes (searched by `catalog-lexical.ts`).
 * Entries are keyed by content key (`lexicalKey`), so catalogs that share skills share postings.
 * - `lexical_terms`: every term once, numbered; its `term` index is the sorted vocabulary (a
 *   prefix's terms are one ranged read).
 * - `lexical_entries`: one row per content key, with its field lengths (uint32 per field, LE).
 * - `lexical_postings`: (term, entry, field) → term frequency, clustered by term.
 * - `lexical_catalogs`: per catalog, its entries by document number and their field lengths
 *   (two blobs): opening a catalog reads this one row.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { SkillSearchError } from '../errors.js';
import { getOrAdd } from '../util/get-or-add.js';
import { FIELD_COUNT, type LexicalEntry } from '../lexical/lexical-entry.js';
import { blobOf, fromBlob } from './catalog-members.js';
import { markWithoutWaiting } from './sqlite-driver.js';

/**
 * The typo-lookup tables of the whole term table, one row (`encodeVocabularyTables`), written by
 * the first searcher that built them; any change to `lexical_terms` deletes it (the triggers).
 * Additive: a store without it gets it at open ({@link addLexicalVocabulary}).
 */
const LEXICAL_VOCABULARY_SQL = `
CREATE TABLE IF NOT EXISTS lexical_vocabulary (
  id INTEGER PRIMARY KEY CHECK (id = 0),
  tables BLOB NOT NULL
);
CREATE TRIGGER IF NOT EXISTS lexical_vocabulary_insert AFTER INSERT ON lexical_terms BEGIN DELETE FROM lexical_vocabulary; END;
CREATE TRIGGER IF NOT EXISTS lexical_vocabulary_delete AFTER DELETE ON lexical_terms BEGIN DELETE FROM lexical_vocabulary; END;
CREATE TRIGGER IF NOT EXISTS lexical_vocabulary_update AFTER UPDATE ON lexical_terms BEGIN DELETE FROM lexical_vocabulary; END;
`;
/** The table and its three triggers, as `sqlite_master` names them. */
const VOCABULARY_OBJECTS = ['lexical_vocabulary', 'lexical_vocabulary_insert', 'lexical_vocabulary_delete', 'lexical_vocabulary_update'];

/** True when `db` holds the vocabulary table and every trigger keeping it exact. */
export function hasVocabularyTable(db: Database): boolean {
  return (
    db
      .prepare<string[], number>(`SELECT count(*) FROM sqlite_master WHERE name IN (${VOCABULARY_OBJECTS.map(() => '?').join(', ')})`)
      .pluck()
      .get(...VOCABULARY_OBJECTS) === VOCABULARY_OBJECTS.length
  );
}

/** Adds the vocabulary table and its triggers to a store laid out before them, without waiting (a later open adds them then). */
export function addLexicalVocabulary(db: Database): void {
  if (hasVocabularyTable(db)) return;
  markWithoutWaiting(db, () => db.transaction(() => db.exec(LEXICAL_VOCABULARY_SQL)).immediate());
}

export const LEXICAL_TABLES_SQL = `
CREATE TABLE IF NOT EXISTS lexical_terms (
  id INTEGER PRIMARY KEY,
  term TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS lexical_entries (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  lengths BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS lexical_postings (
  term INTEGER NOT NULL,
  entry INTEGER NOT NULL,
  field INTEGER NOT NULL,
  tf INTEGER NOT NULL,
  PRIMARY KEY (term, entry, field)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS lexical_catalogs (
  catalog INTEGER PRIMARY KEY,
  documents INTEGER NOT NULL,
  entries BLOB NOT NULL,
  lengths BLOB NOT NULL
);
${LEXICAL_VOCABULARY_SQL}`;

export type Database = BetterSqlite3.Database;

/** Bytes read back as uint32s (little-endian, the machine's order: checked once below). */
function uint32sOf(bytes: Buffer, what: string): Uint32Array {
  if (bytes.byteLength % 4 !== 0) throw corrupt(`${what} is ${bytes.byteLength} bytes, not whole uint32s`);
  return fromBlob(bytes, Uint32Array);
}

export function corrupt(detail: string): SkillSearchError {
  return new SkillSearchError('INDEX_CORRUPT', `lexical tables: ${detail}`);
}

/** Typed arrays are stored in the machine's byte order; the format is little-endian. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Stores the entries not stored yet (by key), in one transaction; returns how many were new. */
export function putLexicalEntries(db: Database, entries: Iterable<LexicalEntry>): number {
  if (!LITTLE_ENDIAN) throw new SkillSearchError('INTERNAL', 'lexical tables: this machine is big-endian; the format is little-endian');
  const known = db.prepare<[string], { id: number }>('SELECT id FROM lexical_entries WHERE key = ?');
  const insertEntry = db.prepare<[string, Buffer]>('INSERT INTO lexical_entries (key, lengths) VALUES (?, ?)');
  const termId = db.prepare<[string], { id: number }>('SELECT id FROM lexical_terms WHERE term = ?');
  const insertTerm = db.prepare<[string]>('INSERT INTO lexical_terms (term) VALUES (?)');
  const insertPosting = db.prepare<[number, number, number, number]>('INSERT INTO lexical_postings (term, entry, field, tf) VALUES (?, ?, ?, ?)');
  const ids = new Map<string, number>();
  const idOf = (term: string): number => getOrAdd(ids, term, () => termId.get(term)?.id ?? Number(insertTerm.run(term).lastInsertRowid));
  let added = 0;
  db.transaction(() => {
    const seen = new Set<string>();
    for (const entry of entries) {
      if (seen.has(entry.key) || known.get(entry.key) !== undefined) continue;
      seen.add(entry.key);
      if (entry.lengths.length !== FIELD_COUNT || entry.terms.length !== FIELD_COUNT) {
        throw new SkillSearchError('INTERNAL', `lexical tables: entry ${entry.key} has ${entry.lengths.length} field lengths, expected ${FIELD_COUNT}`);
      }
      const entryId = Number(insertEntry.run(entry.key, blobOf(Uint32Array.from(entry.lengths))).lastInsertRowid);
      entry.terms.forEach((counts, field) => {
        for (const [term, tf] of counts) insertPosting.run(idOf(term), entryId, field, tf);
      });
      added += 1;
    }
  })();
  return added;
}

type StatsRow = { doc: number; lexical_key: string; id: number | null; lengths: Buffer | null };
const STATS_ROW = 'SELECT s.doc, s.lexical_key, e.id, e.lengths FROM catalog_skills s LEFT JOIN lexical_entries e ON e.key = s.lexical_key WHERE s.catalog = ?';

/**
 * Writes `catalog`'s lexical statistics from its membership in `catalog_skills` (documents
 * `0 … n − 1`, each naming a put entry by `lexical_key`). With `kept`, document `doc` is the
 * base's document `from[doc]` where that is defined (only the base's row and the changed
 * members are read). Throws a `SkillSearchError` when a document, its entry or the base's
 * statistics are missing.
 */
export function putCatalogLexicalStats(db: Database, catalog: number, kept?: { readonly base: number; readonly from: readonly (number | undefined)[] }): void {
  const base = kept === undefined ? undefined : readLexicalStats(db, kept.base);
  if (kept !== undefined && base === undefined)
    throw new SkillSearchError('INTERNAL', `lexical tables: catalog ${kept.base} has no lexical statistics to write catalog ${catalog} from`);
  // Every row at once, or (over a base) only the changed members' one by one.
  const rows = kept === undefined ? db.prepare<[number], StatsRow>(`${STATS_ROW} ORDER BY s.doc`).all(catalog) : undefined;
  const changed = db.prepare<[number, number], StatsRow>(`${STATS_ROW} AND s.doc = ?`);
  const size = rows?.length ?? kept!.from.length;
  const rowAt = (doc: number): StatsRow | undefined => (rows === undefined ? changed.get(catalog, doc) : rows[doc]);
  const entries = new Uint32Array(size);
  const lengths = new Uint32Array(size * FIELD_COUNT);
  for (let doc = 0; doc < size; doc += 1) {
    const from = kept?.from[doc];
    if (base !== undefined && from !== undefined) {
      if (!(from >= 0 && from < base.entries.length)) throw new SkillSearchError('INTERNAL', `lexical tables: catalog ${kept!.base} has no document ${from}`);
      entries[doc] = base.entries[from]!;
      lengths.set(base.lengths.subarray(from * FIELD_COUNT, (from + 1) * FIELD_COUNT), doc * FIELD_COUNT);
      continue;
    }
    const row = rowAt(doc);
    if (row?.doc !== doc) throw new SkillSearchError('INTERNAL', `lexical tables: catalog ${catalog} has no document ${doc} (documents must be 0…${size - 1})`);
    if (row.id === null || row.lengths === null)
      throw new SkillSearchError('INTERNAL', `lexical tables: catalog ${catalog} document ${doc} names entry ${row.lexical_key}, which was never put`);
    const own = uint32sOf(row.lengths, `entry ${row.lexical_key}'s lengths`);
    if (own.length !== FIELD_COUNT) throw corrupt(`entry ${row.lexical_key} has ${own.length} field lengths, expected ${FIELD_COUNT}`);
    entries[doc] = row.id;
    lengths.set(own, doc * FIELD_COUNT);
  }
  db.prepare<[number, number, Buffer, Buffer]>('INSERT OR REPLACE INTO lexical_catalogs (catalog, documents, entries, lengths) VALUES (?, ?, ?, ?)').run(
    catalog,
    size,
    blobOf(entries),
    blobOf(lengths),
  );
}

/** A catalog's lexical statistics: the entry of each document and their field lengths (`doc · FIELD_COUNT + field`). */
export interface LexicalStats {
  readonly entries: Uint32Array;
  readonly lengths: Uint32Array;
}

/** `catalog`'s lexical statistics, checked; undefined when it has none. */
export function readLexicalStats(db: Database, catalog: number): LexicalStats | undefined {
  const stats = db
    .prepare<[number], { documents: number; entries: Buffer; lengths: Buffer }>('SELECT documents, entries, lengths FROM lexical_catalogs WHERE catalog = ?')
    .get(catalog);
  if (stats === undefined) return undefined;
  const entries = uint32sOf(stats.entries, `catalog ${catalog}'s entries`);
  const lengths = uint32sOf(stats.lengths, `catalog ${catalog}'s lengths`);
  if (entries.length !== stats.documents || lengths.length !== stats.documents * FIELD_COUNT)
    throw corrupt(`catalog ${catalog} lists ${stats.documents} documents, ${entries.length} entries and ${lengths.length / FIELD_COUNT} length rows`);
  return { entries, lengths };
}
