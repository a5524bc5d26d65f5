import { LEXICAL_FIELDS, type LexicalField } from '../types.js';
import { popcount } from '../util/popcount.js';
import type { LexicalMatch, LexicalSearcher, LexicalSearchOptions, QueryTerm, SearchedField } from './lexical-query.js';
import { LEXICAL_DEFAULTS, type FieldBoosts } from './options.js';
import { tokenize } from './tokenize.js';
import { FIELD_COUNT, INDEXED_FIELDS } from './lexical-entry.js';
import type { FieldPostings, PostingsSource } from './postings-source.js';
import { bestOf } from './best-documents.js';
import { derivedTerms, type DerivedTerm } from './term-expansion.js';

/** MiniSearch's BM25+ parameters (its defaults, which the ranking was tuned with). */
export const BM25 = { k: 1.2, b: 0.7, d: 0.5 } as const;

/**
 * MiniSearch's `search` (OR of the query terms, BM25+ per field, prefix and typo expansion) over
 * a {@link PostingsSource}, with typed arrays: one score slot per document, the field-length part
 * of BM25 computed once per index change, and only the best `limit` documents turned into
 * results. Equal scores are listed by catalog position, so an index changed in place lists ties
 * as a clean build does. Every source that lists its terms and postings in the same order gets
 * the same bits (`test/lexical/bm25-scorer.test.ts` holds it to a brute-force reference).
 *
 * What it remembers describes one state of the index: drop the scorer on every change. Every
 * posting must be of a present document.
 */
export class Bm25Scorer implements LexicalSearcher {
  readonly #source: PostingsSource;
  /** {@link DerivedTerm}s per query word and expansion settings. */
  readonly #derived = new Map<string, DerivedTerm[]>();
  /** {@link #column}s by the postings they were read from. */
  readonly #columns = new Map<FieldPostings, DocValues>();
  #columnEntries = 0;
  /** {@link #wordScores} per query word, expansion settings and searched fields. */
  readonly #words = new Map<string, DocValues>();
  #wordEntries = 0;
  /** Per document: the query's running total and the current word's subtotal, with one bit each saying whether the query (the word) has reached it yet. */
  readonly #total: Float64Array;
  readonly #termScore: Float64Array;
  readonly #reachedBits: Uint32Array;
  readonly #touchedBits: Uint32Array;
  /** Per document, one bit per distinct query term matched: `[shortId · words + word]`. */
  #matched = new Uint32Array(0);
  /** The documents a search reached, in the order it reached them (the first `reachedCount`). */
  readonly #reached: Int32Array;
  /** The documents the current word reached, in the order it reached them. */
  readonly #touched: Int32Array;
  /** Each reached document's final score, by the order it was reached. */
  readonly #final: Float64Array;
  /** {@link bestOf}'s heap of arrival orders. */
  #heap = new Int32Array(0);

  constructor(source: PostingsSource) {
    this.#source = source;
    const slots = source.slots;
    this.#total = new Float64Array(slots);
    this.#termScore = new Float64Array(slots);
    this.#reachedBits = new Uint32Array(Math.ceil(slots / 32));
    this.#touchedBits = new Uint32Array(Math.ceil(slots / 32));
    this.#reached = new Int32Array(slots);
    this.#touched = new Int32Array(slots);
    this.#final = new Float64Array(slots);
  }

  /** Documents indexed. */
  get size(): number {
    return this.#source.size;
  }

  get fieldLengths(): ArrayLike<number> {
    return this.#source.fieldLengths;
  }

  /**
   * Matches for the text `query`, at most `limit`, best first: the query tokenised, each word's
   * expansions chosen, the scores turned into matches with their coverage.
   */
  search(query: string, limit: number, options: LexicalSearchOptions = {}): LexicalMatch[] {
    const {
      boost = LEXICAL_DEFAULTS.fieldBoosts,
      fuzzy = LEXICAL_DEFAULTS.fuzzy,
      prefixMinLength = LEXICAL_DEFAULTS.prefixMinLength,
      terms: groupedTerms,
      explain = false,
    } = options;
    const queryWords = tokenize(query);
    if (queryWords.length === 0 || this.size === 0) return [];
    const fields = (Object.keys(boost) as (keyof FieldBoosts)[]).filter((field) => boost[field] > 0).map((name) => ({ name, boost: boost[name] }));
    const grouped = groupedTerms !== undefined && groupedTerms.groups.length > 0 ? groupedTerms : undefined;
    const terms: QueryTerm[] = queryWords.map((term) => ({
      term,
      prefix: term.length >= prefixMinLength,
      // Typo tolerance only for words the catalog does not have (docs/retrieval.md); dictionary glosses are spelled right.
      fuzzy: grouped === undefined && term.length >= fuzzy.minLength && this.#source.exact(term) === undefined ? fuzzy.ratio : false,
      boost: grouped?.weights.get(term) ?? 1,
    }));
    const source = this.#source;
    const distinct = [...new Set(queryWords)];
    const words = Math.ceil(distinct.length / 32);
    const slots = this.#total.length;
    if (this.#matched.length < slots * words) this.#matched = new Uint32Array(slots * words);
    const fieldIds = fields.map((field) => {
      const id = (INDEXED_FIELDS as readonly string[]).indexOf(field.name);
      return id < 0 ? undefined : id;
    });
    const total = this.#total;
    const reachedBits = this.#reachedBits;
    reachedBits.fill(0);
    const matched = this.#matched;
    const fieldsKey = fields.map((field) => `${field.name}:${field.boost}`).join(',');
    // Documents in the order the query first reached them.
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
      const { docs, values: scores } = this.#wordScores(query, fields, fieldIds, fieldsKey);
      if (!isRepeat && docs.length > 0) idf[firstOccurrence] = inverseFrequency(source.size, docs.length);
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
      }
    }
    // MiniSearch's final score: the sum times the distinct query terms matched.
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
      const queryTerms = distinct.filter((_, i) => {
        if ((matched[doc * words + (i >>> 5)]! & (1 << (i & 31))) === 0) return false;
        weight += idf[i]!;
        rarest = Math.max(rarest, idf[i]!);
        return true;
      });
      const found = new Set(queryTerms);
      const coverage =
        grouped === undefined
          ? queryTerms.length / distinct.length
          : grouped.groups.filter((group) => group.some((term) => found.has(term))).length / grouped.groups.length;
      const match = {
        id: source.externalId(doc),
        score,
        coverage,
        weightedCoverage: idfTotal > 0 ? weight / idfTotal : 0,
        rarest: idfMax > 0 ? rarest / idfMax : 0,
      };
      return explain ? { ...match, fields: termsByField(this.#matchOf(doc, terms, fields, fieldIds)) } : match;
    });
  }

  /**
   * One query word's contribution per document (its derived terms in order, each field in order,
   * summed in that order), the documents in the order the word first reached them; kept until the
   * index changes.
   */
  #wordScores(query: QueryTerm, fields: readonly SearchedField[], fieldIds: readonly (number | undefined)[], fieldsKey: string): DocValues {
    const key = `${query.term}\u0000${query.prefix}\u0000${query.fuzzy}\u0000${query.boost}\u0000${fieldsKey}`;
    const cached = this.#words.get(key);
    if (cached !== undefined) return cached;
    const termScore = this.#termScore;
    const touchedBits = this.#touchedBits;
    touchedBits.fill(0);
    const touched = this.#touched;
    let touchedCount = 0;
    for (const { weight, handle } of this.#derivedOf(query)) {
      for (let f = 0; f < fields.length; f += 1) {
        const fieldId = fieldIds[f];
        if (fieldId === undefined) continue;
        const frequencies = handle[fieldId];
        if (frequencies === undefined) continue;
        const { docs, values: raw } = this.#column(frequencies, fieldId);
        const scale = weight * query.boost * fields[f]!.boost;
        for (let i = 0; i < docs.length; i += 1) {
          const doc = docs[i]!;
          const weighted = scale * raw[i]!;
          const touchedWord = doc >>> 5;
          const touchedBit = 1 << (doc & 31);
          if ((touchedBits[touchedWord]! & touchedBit) === 0) {
            touchedBits[touchedWord] = touchedBits[touchedWord]! | touchedBit;
            termScore[doc] = weighted;
            touched[touchedCount] = doc;
            touchedCount += 1;
          } else termScore[doc] = termScore[doc]! + weighted;
        }
      }
    }
    const result = docValues(touchedCount);
    const { docs, values: scores } = result;
    docs.set(touched.subarray(0, touchedCount));
    for (let i = 0; i < touchedCount; i += 1) scores[i] = termScore[docs[i]!]!;
    if (this.#wordEntries + docs.length > CACHE_ENTRIES) {
      this.#words.clear();
      this.#wordEntries = 0;
    }
    this.#words.set(key, result);
    this.#wordEntries += docs.length;
    return result;
  }

  /** One term's postings in one field as arrays: the documents and each one's BM25+ part (`idf · (d + tf·(k+1) / (tf + k·(1 − b + b·length/average)))`, MiniSearch's expression), kept until the index changes. */
  #column(frequencies: FieldPostings, fieldId: number): DocValues {
    const cached = this.#columns.get(frequencies);
    if (cached !== undefined) return cached;
    const source = this.#source;
    const { k, b, d } = BM25;
    const lengths = source.fieldLengths;
    const averageLength = source.averageFieldLengths[fieldId] ?? 0;
    const column = docValues(frequencies.size);
    const { docs, values: raw } = column;
    const invDocFreq = inverseFrequency(source.size, frequencies.size);
    let n = 0;
    frequencies.forEach((termFreq, doc) => {
      docs[n] = doc;
      const norm = k * (1 - b + (b * lengths[doc * FIELD_COUNT + fieldId]!) / averageLength);
      raw[n] = invDocFreq * (d + (termFreq * (k + 1)) / (termFreq + norm));
      n += 1;
    });
    if (this.#columnEntries + n > CACHE_ENTRIES) {
      this.#columns.clear();
      this.#columnEntries = 0;
    }
    this.#columns.set(frequencies, column);
    this.#columnEntries += n;
    return column;
  }

  /** {@link derivedTerms}, remembered until the index changes. */
  #derivedOf(query: QueryTerm): DerivedTerm[] {
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
          if (fieldId !== undefined && handle[fieldId]?.has(doc) === true) found.push(field.name);
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

/** Documents and a value for each (a term's BM25+ parts in one field, a word's sums), in the order reached. */
interface DocValues {
  readonly docs: Int32Array;
  readonly values: Float64Array;
}

function docValues(length: number): DocValues {
  return { docs: new Int32Array(length), values: new Float64Array(length) };
}

/** A `match` (matched index term → fields) turned into field → terms, fields in {@link LEXICAL_FIELDS} order. */
function termsByField(match: Readonly<Record<string, readonly string[]>>): { [field in LexicalField]?: string[] } {
  const found = new Map<string, string[]>();
  for (const [term, where] of Object.entries(match)) {
    for (const field of where) found.set(field, [...(found.get(field) ?? []), term]);
  }
  const fields: { [field in LexicalField]?: string[] } = {};
  for (const field of LEXICAL_FIELDS) {
    const terms = found.get(field);
    if (terms !== undefined) fields[field] = terms;
  }
  return fields;
}

/** BM25's inverse document frequency of a word found in `matching` of `documents` documents. */
export function inverseFrequency(documents: number, matching: number): number {
  return Math.log(1 + (documents - matching + 0.5) / (matching + 0.5));
}

function countBits(words: Uint32Array, from: number, count: number): number {
  let bits = 0;
  for (let i = from; i < from + count; i += 1) bits += popcount(words[i]!);
  return bits;
}
