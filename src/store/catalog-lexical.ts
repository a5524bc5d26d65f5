/**
 * One saved catalog's lexical index searched straight from the tables of `lexical-tables.ts`: a
 * query reads the postings of its own terms (and their prefix and typo expansions) only, through
 * the same `Bm25Scorer` as the in-memory index, so both answer alike.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { SkillSearchError } from '../errors.js';
import { getOrAdd } from '../util/get-or-add.js';
import { Bm25Scorer } from '../lexical/bm25-scorer.js';
import { FIELD_COUNT, type LexicalEntry } from '../lexical/lexical-entry.js';
import { LexicalIndex } from '../lexical/lexical-index.js';
import type { LexicalSearcher } from '../lexical/lexical-query.js';
import type { NearTerm, PostingsSource } from '../lexical/postings-source.js';
import { TermVocabulary } from '../lexical/term-vocabulary.js';
import { decodeVocabularyTables, encodeVocabularyTables, vocabularyTables, type VocabularyTables } from '../lexical/vocabulary-tables.js';
import { blobOf } from './catalog-members.js';
import { corrupt, type Database, hasVocabularyTable, LITTLE_ENDIAN, readLexicalStats } from './lexical-tables.js';
import { markWithoutWaiting, sqliteCode } from './sqlite-driver.js';

/** One term's postings in this catalog, by field (undefined where the field has none). */
type MutableTerm = (Map<number, number> | undefined)[];
type CatalogTerm = Readonly<MutableTerm>;
/** Above every character a term can hold, for range ends. */
const TOP = '\u{10FFFF}';

/** `a` against `b` in code point order, which is SQLite's byte order of their UTF-8 (JavaScript's `<` compares code units: surrogates before U+E000). */
export function compareByteOrder(a: string, b: string): number {
  const shorter = Math.min(a.length, b.length);
  for (let i = 0; i < shorter; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** A code unit's place in code point order: surrogates (which start characters beyond U+FFFF) after every other unit. */
const codePointRank = (unit: number): number => (unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit);

/**
 * A posting row read as one number, `(entry · FIELD_SLOTS + field) · TF_SLOTS + tf` (exact below
 * 2^53), so a term's rows come back as one flat array rather than an array per row (half the read
 * time). A row outside these bounds (no store this code wrote has one: a field's text is capped far
 * below 2^23 words) reads as NULL: the tables are damaged.
 */
const FIELD_SLOTS = 16;
const TF_SLOTS = 2 ** 23;
const PACKED = `iif(p.entry >= 0 AND p.entry < ${2 ** 26} AND p.field >= 0 AND p.field < ${FIELD_SLOTS} AND p.tf >= 0 AND p.tf < ${TF_SLOTS}, (p.entry * ${FIELD_SLOTS} + p.field) * ${TF_SLOTS} + p.tf, NULL)`;

/** One catalog's postings read from the tables: a term's postings are read at its first lookup and kept. */
class CatalogPostings implements PostingsSource {
  readonly size: number;
  readonly slots: number;
  readonly averageFieldLengths: Float64Array;
  readonly fieldLengths: Uint32Array;
  /** Entry number → the document holding it (−1: none), and the further documents of an entry several hold (equal skills). */
  readonly #firstDoc: Int32Array;
  readonly #moreDocs = new Map<number, number[]>();
  readonly #terms = new Map<string, CatalogTerm | null>();
  readonly #externalIds = new Map<number, string>();
  readonly #catalog: number;
  readonly #idsFrom: number;
  /** A term's rows, {@link PACKED}, in key order (entry, field). */
  readonly #packed: BetterSqlite3.Statement<[string], number | null>;
  /** The same as rows, for a term with a row {@link PACKED} cannot hold. */
  /** The terms of a range `[from, to)` of the term index, in byte order. */
  readonly #range: BetterSqlite3.Statement<[string, string], string>;
  readonly #externalId: BetterSqlite3.Statement<[number, number], string>;
  /** Every term of the tables, for typo lookups: read at the first one, in the table's order. */
  #vocabulary: TermVocabulary | undefined;
  readonly #db: Database;
  /** The overlay's entries, in memory as the live engine's are (a document's position there is its number here). */
  readonly #overlaid = new LexicalIndex();

  /**
   * `idsFrom`: the catalog whose `catalog_skills` rows name the documents (an overlay's base).
   * `overlay`: documents whose entry is held in memory instead (a changed catalog not written yet).
   */
  constructor(db: Database, catalog: number, idsFrom: number, overlay?: ReadonlyMap<number, LexicalEntry>) {
    this.#catalog = catalog;
    this.#idsFrom = idsFrom;
    const stats = readLexicalStats(db, catalog);
    if (stats === undefined)
      throw new SkillSearchError(
        'INTERNAL',
        `lexical tables: catalog ${catalog} has no lexical statistics (call putCatalogLexicalStats after writing its members)`,
      );
    const { entries } = stats;
    const documents = entries.length;
    this.fieldLengths = stats.lengths;
    this.size = documents;
    this.slots = documents;
    for (const [doc, entry] of overlay ?? []) {
      if (!(doc >= 0 && doc < documents) || entry.lengths.length !== FIELD_COUNT)
        throw new SkillSearchError('INTERNAL', `lexical tables: an overlay of catalog ${catalog} has no document ${doc} or a malformed entry`);
      this.fieldLengths.set(entry.lengths, doc * FIELD_COUNT);
      this.#overlaid.add(String(doc), entry, doc);
    }
    this.#firstDoc = new Int32Array(entries.reduce((largest, entry) => Math.max(largest, entry), -1) + 1).fill(-1);
    entries.forEach((entry, doc) => {
      // The overlay holds these documents' entries.
      if (overlay?.has(doc) === true) return;
      if (this.#firstDoc[entry] === -1) this.#firstDoc[entry] = doc;
      else getOrAdd(this.#moreDocs, entry, () => []).push(doc);
    });
    const totals = new Array<number>(FIELD_COUNT).fill(0);
    const lengths = this.fieldLengths;
    for (let doc = 0; doc < documents; doc += 1) {
      for (let field = 0; field < FIELD_COUNT; field += 1) totals[field] = totals[field]! + lengths[doc * FIELD_COUNT + field]!;
    }
    this.averageFieldLengths = Float64Array.from(totals, (total) => (documents === 0 ? 0 : total / documents));
    this.#packed = db
      .prepare<[string], number | null>(
        `SELECT ${PACKED} FROM lexical_terms t JOIN lexical_postings p ON p.term = t.id WHERE t.term = ? ORDER BY p.entry, p.field`,
      )
      .pluck();
    this.#range = db.prepare<[string, string], string>('SELECT term FROM lexical_terms WHERE term >= ? AND term < ? ORDER BY term').pluck();
    this.#externalId = db.prepare<[number, number], string>('SELECT id FROM catalog_skills WHERE catalog = ? AND doc = ?').pluck();
    this.#db = db;
  }

  externalId(doc: number): string {
    return getOrAdd(this.#externalIds, doc, () => {
      const id = this.#externalId.get(this.#idsFrom, doc);
      if (typeof id !== 'string') throw corrupt(`catalog ${this.#catalog} has no document ${doc} in catalog_skills`);
      return id;
    });
  }

  exact(term: string): CatalogTerm | undefined {
    const cached = this.#terms.get(term);
    if (cached !== undefined) return cached ?? undefined;
    const found = this.#read(term);
    this.#terms.set(term, found ?? null);
    return found;
  }

  /** `term`'s postings in this catalog, read from the tables; undefined when it has none here. */
  #read(term: string): MutableTerm | undefined {
    let found: MutableTerm | undefined;
    for (const value of this.#packed.all(term)) {
      if (value === null) throw corrupt(`a posting of ${JSON.stringify(term)} is out of bounds`);
      const tf = value % TF_SLOTS;
      const slot = (value - tf) / TF_SLOTS;
      const field = slot % FIELD_SLOTS;
      found = this.#post(found, term, (slot - field) / FIELD_SLOTS, field, tf);
    }
    const positions = this.#overlaid.positions;
    this.#overlaid.exact(term)?.forEach((byDoc, field) => byDoc?.forEach((tf, slot) => (found = postAt(found, field, positions[slot]!, undefined, tf))));
    return found;
  }

  /** Adds one posting row of `term` to its postings in this catalog (made at its first row here); rows of other catalogs' entries are skipped. */
  #post(found: MutableTerm | undefined, term: string, entry: number, field: number, tf: number): MutableTerm | undefined {
    const doc = entry < this.#firstDoc.length ? this.#firstDoc[entry]! : -1;
    if (doc === -1) return found;
    if (field >= FIELD_COUNT) throw corrupt(`a posting of ${JSON.stringify(term)} names field ${field}`);
    return postAt(found, field, doc, this.#moreDocs.get(entry), tf);
  }

  /** The terms `prefix` starts, in byte order (one ranged read of the term index), with their postings. */
  prefixed(prefix: string): Iterable<readonly [string, CatalogTerm]> {
    const found: [string, CatalogTerm][] = [];
    let terms = this.#range.all(prefix, prefix + TOP);
    // The overlay's terms the tables may lack, merged in byte order.
    if (this.#overlaid.size > 0) terms = [...new Set([...terms, ...[...this.#overlaid.prefixed(prefix)].map(([term]) => term)])].sort(compareByteOrder);
    for (const term of terms) {
      const handle = this.exact(term);
      if (handle !== undefined && term.startsWith(prefix)) found.push([term, handle]);
    }
    return found;
  }

  /** The terms within `maxDistance` of `word` that have postings here, in byte order (as the prefix reads give them). */
  near(word: string, maxDistance: number): NearTerm[] {
    this.#vocabulary ??= new TermVocabulary(this.#readVocabulary());
    const vocabulary = this.#vocabulary;
    const near = new Map<string, number>();
    for (const { position, distance } of vocabulary.near(word, maxDistance)) near.set(vocabulary.term(position), distance);
    if (this.#overlaid.size > 0) for (const { term, distance } of this.#overlaid.near(word, maxDistance)) near.set(term, distance);
    const found: NearTerm[] = [];
    for (const [term, distance] of [...near].sort(([a], [b]) => compareByteOrder(a, b))) {
      const handle = this.exact(term);
      if (handle !== undefined) found.push({ term, handle, distance });
    }
    return found;
  }

  /** The vocabulary's tables: the stored row, else built from the term table and stored for the next process, never waiting (docs/store.md, "Tables"). */
  #readVocabulary(): VocabularyTables {
    const db = this.#db;
    if (db.inTransaction || !hasVocabularyTable(db)) return this.#buildVocabulary();
    let tables: VocabularyTables | undefined;
    markWithoutWaiting(db, () => {
      try {
        db.transaction(() => {
          const stored = db.prepare<[], Buffer>('SELECT tables FROM lexical_vocabulary WHERE id = 0').pluck().get();
          tables = stored === undefined ? undefined : decodeVocabularyTables(stored);
          if (tables !== undefined) return;
          tables = this.#buildVocabulary();
          if (!LITTLE_ENDIAN) return;
          const bytes = encodeVocabularyTables(tables);
          db.prepare<[Buffer]>('INSERT OR REPLACE INTO lexical_vocabulary (id, tables) VALUES (0, ?)').run(blobOf(bytes));
        })();
      } catch (error) {
        // A read-only store keeps no cache; it still answers.
        if (!sqliteCode(error).startsWith('SQLITE_READONLY')) throw error;
      }
    });
    return tables ?? this.#buildVocabulary();
  }

  /** Every term of the table. */
  #buildVocabulary(): VocabularyTables {
    return vocabularyTables(this.#db.prepare<[], string>('SELECT term FROM lexical_terms').pluck().all());
  }
}

/** `found` (made at its first posting) with `tf` at `doc` and each of `more` in `field`. */
function postAt(found: MutableTerm | undefined, field: number, doc: number, more: readonly number[] | undefined, tf: number): MutableTerm {
  const byField = found ?? new Array<Map<number, number> | undefined>(FIELD_COUNT).fill(undefined);
  byField[field] ??= new Map();
  const byDoc = byField[field]!;
  byDoc.set(doc, tf);
  if (more !== undefined) for (const other of more) byDoc.set(other, tf);
  return byField;
}

/**
 * A searcher over one catalog's skills reading the tables as it goes, with the same matches and
 * scores as a `LexicalIndex` holding them. Open a new one after the catalog or its entries change.
 */
export function openCatalogLexical(db: Database, catalog: number, idsFrom = catalog, overlay?: ReadonlyMap<number, LexicalEntry>): LexicalSearcher {
  return new Bm25Scorer(new CatalogPostings(db, catalog, idsFrom, overlay));
}
