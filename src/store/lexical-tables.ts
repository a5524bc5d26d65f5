/**
 * The lexical index as SQLite tables, and their writes (a catalog is searched from them by
 * `catalog-lexical.ts`). Entries are keyed by their content key (`lexicalKey`), so catalogs that
 * share skills share their postings, and writing an entry that is already stored costs one lookup.
 *
 * Tables:
 * - `lexical_terms`: every term once, with a number; its `term` index is the sorted vocabulary:
 *   a prefix's terms and their postings are one ranged read. Typo lookups read the whole
 *   vocabulary once per searcher (at its first typo), as one string, into a `TermVocabulary`.
 * - `lexical_entries`: one row per content key, with its field lengths (uint32 per field, LE).
 * - `lexical_postings`: (term, entry, field) → term frequency, clustered by term: a term's
 *   postings are one range of the table.
 * - `lexical_catalogs`: per catalog, its entries by document number and their field lengths
 *   (two blobs), written by {@link putCatalogLexicalStats} from the catalog's membership
 *   (`catalog_skills`, owned by the store): opening a catalog reads this one row.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { SkillSearchError } from '../errors.js';
import { FIELD_COUNT, type LexicalEntry } from '../lexical/lexical-entry.js';
import { blobOf, fromBlob } from './catalog-members.js';
import { markWithoutWaiting } from './sqlite-codes.js';

/**
 * The built typo-lookup tables of the whole term table, one row (`encodeVocabularyTables`),
 * written by the first searcher that had to build them; any change to `lexical_terms` deletes
 * the row (the triggers), so a row present describes the terms as they are. Additive: a store
 * without it gets it at open ({@link addLexicalVocabulary}) and searches without it meanwhile.
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

/**
 * Adds the vocabulary table and its triggers to a store laid out before them (same schema
 * version: nothing else changes), without waiting: when another process is writing, a later
 * open adds them.
 */
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
export function uint32sOf(bytes: Buffer, what: string): Uint32Array {
  if (bytes.byteLength % 4 !== 0) throw corrupt(`${what} is ${bytes.byteLength} bytes, not whole uint32s`);
  return fromBlob(bytes, Uint32Array);
}

export function corrupt(detail: string): SkillSearchError {
  return new SkillSearchError('INDEX_CORRUPT', `lexical tables: ${detail}`);
}

/** Typed arrays are stored in the machine's byte order; the format is little-endian. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Stores the entries not stored yet (by key), in one transaction; returns how many were new.
 * Entries come from `lexicalEntry`, the function the in-memory index uses too.
 */
export function putLexicalEntries(db: Database, entries: Iterable<LexicalEntry>): number {
  if (!LITTLE_ENDIAN) throw new SkillSearchError('INTERNAL', 'lexical tables: this machine is big-endian; the format is little-endian');
  const known = db.prepare<[string], { id: number }>('SELECT id FROM lexical_entries WHERE key = ?');
  const insertEntry = db.prepare<[string, Buffer]>('INSERT INTO lexical_entries (key, lengths) VALUES (?, ?)');
  const termId = db.prepare<[string], { id: number }>('SELECT id FROM lexical_terms WHERE term = ?');
  const insertTerm = db.prepare<[string]>('INSERT INTO lexical_terms (term) VALUES (?)');
  const insertPosting = db.prepare<[number, number, number, number]>('INSERT INTO lexical_postings (term, entry, field, tf) VALUES (?, ?, ?, ?)');
  const ids = new Map<string, number>();
  const idOf = (term: string): number => {
    let id = ids.get(term);
    if (id === undefined) {
      id = termId.get(term)?.id ?? Number(insertTerm.run(term).lastInsertRowid);
      ids.set(term, id);
    }
    return id;
  };
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

/**
 * Writes `catalog`'s lexical statistics from its membership in `catalog_skills` (documents
 * `0 … n − 1`, each naming a stored entry by `lexical_key`): call it after the membership is
 * written and its entries are put. Throws a `SkillSearchError` when a member's entry is missing
 * or the document numbers have gaps.
 */
export function putCatalogLexicalStats(db: Database, catalog: number): void {
  const rows = db
    .prepare<[number], { doc: number; lexical_key: string; id: number | null; lengths: Buffer | null }>(
      'SELECT s.doc, s.lexical_key, e.id, e.lengths FROM catalog_skills s LEFT JOIN lexical_entries e ON e.key = s.lexical_key WHERE s.catalog = ? ORDER BY s.doc',
    )
    .all(catalog);
  const entries = new Uint32Array(rows.length);
  const lengths = new Uint32Array(rows.length * FIELD_COUNT);
  rows.forEach((row, doc) => {
    if (row.doc !== doc)
      throw new SkillSearchError('INTERNAL', `lexical tables: catalog ${catalog} has no document ${doc} (documents must be 0…${rows.length - 1})`);
    if (row.id === null || row.lengths === null) {
      throw new SkillSearchError('INTERNAL', `lexical tables: catalog ${catalog} document ${doc} names entry ${row.lexical_key}, which was never put`);
    }
    entries[doc] = row.id;
    lengths.set(entryLengths(row.lengths, row.lexical_key), doc * FIELD_COUNT);
  });
  putStats(db, catalog, entries, lengths);
}

/**
 * Writes `catalog`'s lexical statistics from those of `base`, which it mostly keeps: document
 * `doc` is `base`'s document `from[doc]`, or, where that is undefined, the member written in
 * `catalog_skills` (its entry put). Equal to {@link putCatalogLexicalStats} over the same
 * membership, reading the base's one row and the changed members only. Throws a
 * `SkillSearchError` when the base has no statistics or lacks a document, or a changed member's
 * entry is missing.
 */
export function putCatalogLexicalStatsFrom(db: Database, catalog: number, base: number, from: readonly (number | undefined)[]): void {
  const stats = db
    .prepare<[number], { documents: number; entries: Buffer; lengths: Buffer }>('SELECT documents, entries, lengths FROM lexical_catalogs WHERE catalog = ?')
    .get(base);
  if (stats === undefined) throw new SkillSearchError('INTERNAL', `lexical tables: catalog ${base} has no lexical statistics to write catalog ${catalog} from`);
  const baseEntries = uint32sOf(stats.entries, `catalog ${base}'s entries`);
  const baseLengths = uint32sOf(stats.lengths, `catalog ${base}'s lengths`);
  if (baseEntries.length !== stats.documents || baseLengths.length !== stats.documents * FIELD_COUNT)
    throw corrupt(`catalog ${base}'s statistics disagree on its size`);
  const changed = db.prepare<[number, number], { lexical_key: string; id: number | null; lengths: Buffer | null }>(
    'SELECT s.lexical_key, e.id, e.lengths FROM catalog_skills s LEFT JOIN lexical_entries e ON e.key = s.lexical_key WHERE s.catalog = ? AND s.doc = ?',
  );
  const entries = new Uint32Array(from.length);
  const lengths = new Uint32Array(from.length * FIELD_COUNT);
  from.forEach((kept, doc) => {
    if (kept !== undefined) {
      if (!(kept >= 0 && kept < stats.documents)) throw new SkillSearchError('INTERNAL', `lexical tables: catalog ${base} has no document ${kept}`);
      entries[doc] = baseEntries[kept]!;
      lengths.set(baseLengths.subarray(kept * FIELD_COUNT, (kept + 1) * FIELD_COUNT), doc * FIELD_COUNT);
      return;
    }
    const row = changed.get(catalog, doc);
    if (row?.id == null || row.lengths === null)
      throw new SkillSearchError(
        'INTERNAL',
        `lexical tables: catalog ${catalog} document ${doc} names entry ${row?.lexical_key ?? '(none)'}, which was never put`,
      );
    entries[doc] = row.id;
    lengths.set(entryLengths(row.lengths, row.lexical_key), doc * FIELD_COUNT);
  });
  putStats(db, catalog, entries, lengths);
}

function entryLengths(bytes: Buffer, key: string): Uint32Array {
  const own = uint32sOf(bytes, `entry ${key}'s lengths`);
  if (own.length !== FIELD_COUNT) throw corrupt(`entry ${key} has ${own.length} field lengths, expected ${FIELD_COUNT}`);
  return own;
}

function putStats(db: Database, catalog: number, entries: Uint32Array, lengths: Uint32Array): void {
  db.prepare<[number, number, Buffer, Buffer]>('INSERT OR REPLACE INTO lexical_catalogs (catalog, documents, entries, lengths) VALUES (?, ?, ?, ?)').run(
    catalog,
    entries.length,
    blobOf(entries),
    blobOf(lengths),
  );
}
