import { popcount } from '../util/popcount.js';
import {
  type LexicalMatch,
  type LexicalSearcher,
  type LexicalSearchOptions,
  type MatchedWord,
  type QueryTerm,
  type ScoredDocument,
  type SearchedField,
  searchLexical,
} from './lexical-query.js';
import type { FieldPostings, PostingsSource } from './postings-source.js';
import { bestOf } from './best-documents.js';
import { Slab } from './score-slab.js';
import { derivedTerms, type DerivedTerm } from './term-expansion.js';

/** MiniSearch's BM25+ parameters (its defaults, which the ranking was tuned with). */
export const BM25 = { k: 1.2, b: 0.7, d: 0.5 } as const;

/** One term's postings in one field: documents (short ids) and their BM25+ part before weights. */
interface Column {
  readonly docs: Int32Array;
  readonly raw: Float64Array;
}

/** One query word's summed contribution per document it reaches, in first-reached order. */
interface WordScores {
  readonly docs: Int32Array;
  readonly scores: Float64Array;
  /** Per document, the fields the word matched it in: bit `f` for the source's field `f`. */
  readonly fields: Uint8Array;
}

/**
 * MiniSearch's `search` (OR of the query terms, BM25+ per field, prefix and typo expansion,
 * results sorted by score), reimplemented
 * over a {@link PostingsSource} (the in-memory index or the SQLite tables)
 * with typed arrays: one score slot per document instead of a result object
 * and a `match` record per (document, term), the field-length part of BM25 computed once per
 * index change instead of once per posting, and only the best `limit` documents turned into
 * results. Equal scores are listed by catalog position (`PostingsSource.positions`), not in
 * the order postings happen to be stored, so an index changed in place lists ties as a clean
 * build does. The formula is MiniSearch's (the ranking was tuned with it); every source that
 * lists its terms and postings in the same order gets the same bits (`test/lexical/bm25-scorer.test.ts`
 * holds the index to a brute-force reference).
 *
 * Everything it remembers (expansions, postings as typed arrays, per-word sums) describes
 * one state of the index: `LexicalIndex` drops the scorer on every change.
 *
 * Invariant: every posting is of a present document (`LexicalIndex` deletes a removed one's at
 * once; the store's postings are read for the catalog's documents only).
 */
export class Bm25Scorer<Term> implements LexicalSearcher {
  readonly #source: PostingsSource<Term>;
  readonly #fieldCount: number;
  /** {@link DerivedTerm}s per query word and expansion settings. */
  readonly #derived = new Map<string, DerivedTerm<Term>[]>();
  /** {@link Column}s by the postings they were read from (one per term and field). */
  readonly #columns = new Map<FieldPostings, Column>();
  #columnEntries = 0;
  /** {@link WordScores} per query word, expansion settings and searched fields. */
  readonly #words = new Map<string, WordScores>();
  #wordEntries = 0;
  /**
   * Per document: the query's running total and the current word's subtotal, with one bit each
   * saying whether the query (the word) has reached it yet. Bits rather than stamps keep the
   * per-posting reads in fewer cache lines on a large catalog.
   */
  readonly #total: Float64Array;
  readonly #termScore: Float64Array;
  /** The current word's fields per document (see {@link WordScores.fields}). */
  readonly #termFields: Uint8Array;
  readonly #reachedBits: Uint32Array;
  readonly #touchedBits: Uint32Array;
  /** Per field, each document's BM25 length part `k · (1 − b + b · length / average)`, once {@link #normsFor} builds it. */
  readonly #norms: (Float64Array | undefined)[] = [];
  /** Per field, postings its columns read before {@link #norms} held it. */
  readonly #normPostings: number[] = [];
  /** Per document, one bit per distinct query term matched: `[shortId · words + word]`. */
  #matched = new Uint32Array(0);
  /** Per distinct query term and document, the fields it matched in (read only where {@link #matched} has the bit): `[term · slots + shortId]`. */
  #wordFields = new Uint8Array(0);
  /** The documents a search reached, in the order it reached them (the first `reachedCount`). */
  #reached = new Int32Array(0);
  /** The documents the current word reached, in the order it reached them. */
  #touched = new Int32Array(0);
  /** Each reached document's final score, by the order it was reached. */
  #final = new Float64Array(0);
  /** {@link bestOf}'s heap of arrival orders. */
  #heap = new Int32Array(0);
  /** Where the cached columns and word sums keep their arrays. */
  readonly #slab = new Slab();

  /** Valid until the index changes (then build a new one). */
  constructor(source: PostingsSource<Term>) {
    this.#source = source;
    const fieldCount = source.fieldCount;
    this.#fieldCount = fieldCount;
    const slots = source.slots;
    this.#total = new Float64Array(slots);
    this.#termScore = new Float64Array(slots);
    this.#termFields = new Uint8Array(slots);
    this.#reachedBits = new Uint32Array(Math.ceil(slots / 32));
    this.#touchedBits = new Uint32Array(Math.ceil(slots / 32));
  }

  /** Documents indexed. */
  get size(): number {
    return this.#source.documentCount;
  }

  /** True when `term` is in the index vocabulary. */
  has(term: string): boolean {
    return this.#source.exact(term) !== undefined;
  }

  /** Matches for the text `query` in descending score order, at most `limit` (`searchLexical` over {@link score}). */
  search(query: string, limit: number, options: LexicalSearchOptions = {}): LexicalMatch[] {
    return searchLexical(this, query, limit, options);
  }

  /** The best `limit` documents for `terms` over `fields` (with `match` records when `explain`, `matchedWords` when `withWords`). */
  score(terms: readonly QueryTerm[], fields: readonly SearchedField[], limit: number, explain = false, withWords = false): ScoredDocument[] {
    const source = this.#source;
    const distinct = [...new Set(terms.map((query) => query.term))];
    const words = Math.ceil(distinct.length / 32);
    const slots = this.#total.length;
    if (this.#matched.length < slots * words) this.#matched = new Uint32Array(slots * words);
    if (withWords && this.#wordFields.length < slots * distinct.length) this.#wordFields = new Uint8Array(slots * distinct.length);
    const wordFields = this.#wordFields;
    const fieldIds = fields.map((field) => source.fieldId(field.name));
    const total = this.#total;
    const reachedBits = this.#reachedBits;
    reachedBits.fill(0);
    const matched = this.#matched;
    const fieldsKey = fields.map((field) => `${field.name}:${field.boost}`).join(',');
    // Documents in the order the query first reached them.
    if (this.#reached.length < slots) this.#reached = new Int32Array(slots);
    const reached = this.#reached;
    let reachedCount = 0;
    // Each distinct word's inverse document frequency from the documents it reaches (0: none).
    const idf = new Float64Array(distinct.length);
    for (let position = 0; position < terms.length; position += 1) {
      const query = terms[position]!;
      const firstOccurrence = distinct.indexOf(query.term);
      const isRepeat = terms.findIndex((other) => other.term === query.term) !== position;
      const bit = isRepeat ? 0 : 1 << (firstOccurrence & 31);
      const wordOffset = firstOccurrence >>> 5;
      const { docs, scores, fields: where } = this.#wordScores(query, fields, fieldIds, fieldsKey);
      const fieldsAt = firstOccurrence * slots;
      if (!isRepeat && docs.length > 0) idf[firstOccurrence] = inverseFrequency(source.documentCount, docs.length);
      for (let i = 0; i < docs.length; i += 1) {
        const doc = docs[i]!;
        const at = doc * words;
        const reachedWord = doc >>> 5;
        const reachedBit = 1 << (doc & 31);
        if ((reachedBits[reachedWord]! & reachedBit) === 0) {
          reachedBits[reachedWord] = reachedBits[reachedWord]! | reachedBit;
          total[doc] = scores[i]!;
          for (let w = 0; w < words; w += 1) matched[at + w] = 0;
          reached[reachedCount] = doc;
          reachedCount += 1;
        } else total[doc] = total[doc]! + scores[i]!;
        matched[at + wordOffset] = matched[at + wordOffset]! | bit;
        if (withWords && !isRepeat) wordFields[fieldsAt + doc] = where[i]!;
      }
    }
    // MiniSearch's final score: the sum times the distinct query terms matched.
    if (this.#final.length < slots) this.#final = new Float64Array(slots);
    const final = this.#final;
    for (let order = 0; order < reachedCount; order += 1) {
      const doc = reached[order]!;
      final[order] = total[doc]! * (countBits(matched, doc * words, words) || 1);
    }
    const keep = Math.min(limit, reachedCount);
    if (this.#heap.length < keep) this.#heap = new Int32Array(keep);
    const best = bestOf({ docs: reached, scores: final, count: reachedCount, limit: keep, heap: this.#heap, positions: source.positions });
    let idfTotal = 0;
    let idfMax = 0;
    for (const value of idf) {
      idfTotal += value;
      idfMax = Math.max(idfMax, value);
    }
    return best.map(({ doc, score }) => {
      let weight = 0;
      let rarest = 0;
      const matchedWords: MatchedWord[] | undefined = withWords ? [] : undefined;
      const queryTerms = distinct.filter((_, i) => {
        if ((matched[doc * words + (i >>> 5)]! & (1 << (i & 31))) === 0) return false;
        weight += idf[i]!;
        rarest = Math.max(rarest, idf[i]!);
        if (matchedWords !== undefined && idfTotal > 0)
          matchedWords.push({ weight: idf[i]! / idfTotal, rarity: idf[i]! / idfMax, fields: wordFields[i * slots + doc]! });
        return true;
      });
      const id = source.externalId(doc);
      const found = {
        id,
        score,
        queryTerms,
        weightedCoverage: idfTotal > 0 ? weight / idfTotal : 0,
        rarest: idfMax > 0 ? rarest / idfMax : 0,
        ...(matchedWords === undefined ? {} : { matchedWords }),
      };
      return explain ? { ...found, match: this.#matchOf(doc, terms, fields, fieldIds) } : found;
    });
  }

  /**
   * One query word's contribution per document (MiniSearch's per-word result: its derived terms
   * in order, each field in order, summed in that order), with the documents in the order the
   * word first reached them; kept until the index changes, so a recurring word costs one pass
   * over the documents it reaches.
   */
  #wordScores(query: QueryTerm, fields: readonly SearchedField[], fieldIds: readonly (number | undefined)[], fieldsKey: string): WordScores {
    const key = `${query.term}\u0000${query.prefix}\u0000${query.fuzzy}\u0000${query.boost}\u0000${fieldsKey}`;
    const cached = this.#words.get(key);
    if (cached !== undefined) return cached;
    const termScore = this.#termScore;
    const termFields = this.#termFields;
    const touchedBits = this.#touchedBits;
    touchedBits.fill(0);
    if (this.#touched.length < termScore.length) this.#touched = new Int32Array(termScore.length);
    const touched = this.#touched;
    let touchedCount = 0;
    for (const { weight, handle } of this.#derivedOf(query)) {
      for (let f = 0; f < fields.length; f += 1) {
        const fieldId = fieldIds[f];
        if (fieldId === undefined) continue;
        const frequencies = this.#source.postings(handle, fieldId);
        if (frequencies === undefined) continue;
        const { docs, raw } = this.#column(frequencies, fieldId);
        const scale = weight * query.boost * fields[f]!.boost * 1;
        const fieldBit = 1 << fieldId;
        for (let i = 0; i < docs.length; i += 1) {
          const doc = docs[i]!;
          const weighted = scale * raw[i]!;
          const touchedWord = doc >>> 5;
          const touchedBit = 1 << (doc & 31);
          if ((touchedBits[touchedWord]! & touchedBit) === 0) {
            touchedBits[touchedWord] = touchedBits[touchedWord]! | touchedBit;
            termScore[doc] = weighted;
            termFields[doc] = fieldBit;
            touched[touchedCount] = doc;
            touchedCount += 1;
          } else {
            termScore[doc] = termScore[doc]! + weighted;
            termFields[doc] = termFields[doc]! | fieldBit;
          }
        }
      }
    }
    const { docs, values: scores } = this.#slab.take(touchedCount);
    docs.set(touched.subarray(0, touchedCount));
    const where = this.#slab.takeBytes(touchedCount);
    for (let i = 0; i < touchedCount; i += 1) {
      scores[i] = termScore[docs[i]!]!;
      where[i] = termFields[docs[i]!]!;
    }
    const result = { docs, scores, fields: where };
    if (this.#wordEntries + docs.length > CACHE_ENTRIES) {
      this.#words.clear();
      this.#wordEntries = 0;
    }
    this.#words.set(key, result);
    this.#wordEntries += docs.length;
    return result;
  }

  /**
   * One term's postings in one field as arrays: the documents, and each one's BM25+ part
   * (`idf · (d + tf·(k+1) / (tf + k·(1 − b + b·length/average)))`, MiniSearch's expression), computed at first use and
   * kept until the index changes, so a word that recurs across queries costs one pass over
   * two typed arrays.
   */
  #column(frequencies: FieldPostings, fieldId: number): Column {
    const cached = this.#columns.get(frequencies);
    if (cached !== undefined) return cached;
    const source = this.#source;
    const { k, b, d } = BM25;
    const documentCount = source.documentCount;
    const norms = this.#normsFor(fieldId, frequencies.size);
    const lengths = source.fieldLengths;
    const averageLength = source.averageFieldLengths[fieldId] ?? 0;
    const fieldCount = this.#fieldCount;
    const { docs, values: raw } = this.#slab.take(frequencies.size);
    const invDocFreq = inverseFrequency(documentCount, frequencies.size);
    let n = 0;
    frequencies.forEach((termFreq, doc) => {
      docs[n] = doc;
      const norm = norms === undefined ? k * (1 - b + (b * lengths[doc * fieldCount + fieldId]!) / averageLength) : norms[doc]!;
      raw[n] = invDocFreq * (d + (termFreq * (k + 1)) / (termFreq + norm));
      n += 1;
    });
    const column = { docs, raw };
    if (this.#columnEntries + n > CACHE_ENTRIES) {
      this.#columns.clear();
      this.#columnEntries = 0;
    }
    this.#columns.set(frequencies, column);
    this.#columnEntries += n;
    return column;
  }

  /**
   * One field's length parts by document (MiniSearch's expression, so each is the same double the
   * per-posting one is), once the field's columns have read about a quarter as many postings as
   * there are documents: a one-shot process that reads a few columns never pays for the table.
   */
  #normsFor(fieldId: number, postings: number): Float64Array | undefined {
    const cached = this.#norms[fieldId];
    if (cached !== undefined) return cached;
    const read = (this.#normPostings[fieldId] ?? 0) + postings;
    this.#normPostings[fieldId] = read;
    if (read < this.#source.slots / 4) return undefined;
    const { k, b } = BM25;
    const source = this.#source;
    const lengths = source.fieldLengths;
    const averageLength = source.averageFieldLengths[fieldId] ?? 0;
    const fieldCount = this.#fieldCount;
    const norms = new Float64Array(source.slots);
    for (let doc = 0; doc < norms.length; doc += 1) norms[doc] = k * (1 - b + (b * lengths[doc * fieldCount + fieldId]!) / averageLength);
    this.#norms[fieldId] = norms;
    return norms;
  }

  /** {@link derivedTerms}, remembered until the index changes. */
  #derivedOf(query: QueryTerm): DerivedTerm<Term>[] {
    const key = `${query.term}\u0000${query.prefix}\u0000${query.fuzzy}`;
    let derived = this.#derived.get(key);
    if (derived === undefined) {
      derived = derivedTerms(this.#source, query);
      if (this.#derived.size >= DERIVED_CACHE_SIZE) this.#derived.clear();
      this.#derived.set(key, derived);
    }
    return derived;
  }

  /** MiniSearch's `match` for one document: each index term it matched → fields, keys in the order they were first reached. */
  #matchOf(doc: number, terms: readonly QueryTerm[], fields: readonly SearchedField[], fieldIds: readonly (number | undefined)[]): Record<string, string[]> {
    const match: Record<string, string[]> = {};
    for (const query of terms) {
      for (const { term, handle } of this.#derivedOf(query)) {
        const found: string[] = [];
        fields.forEach((field, f) => {
          const fieldId = fieldIds[f];
          if (fieldId !== undefined && this.#source.postings(handle, fieldId)?.has(doc) === true) found.push(field.name);
        });
        if (found.length > 0) Object.assign(match, { [term]: found });
      }
    }
    return match;
  }
}

/** Query words whose expansions a scorer remembers (they hold only references into the index). */
const DERIVED_CACHE_SIZE = 4096;
/** Entries (12 bytes each) kept per scorer in each of the column and word caches; past this a cache starts over. */
const CACHE_ENTRIES = 1_000_000;

/** BM25's inverse document frequency of a word found in `matching` of `documents` documents. */
function inverseFrequency(documents: number, matching: number): number {
  return Math.log(1 + (documents - matching + 0.5) / (matching + 0.5));
}

function countBits(words: Uint32Array, from: number, count: number): number {
  let bits = 0;
  for (let i = from; i < from + count; i += 1) bits += popcount(words[i]!);
  return bits;
}
