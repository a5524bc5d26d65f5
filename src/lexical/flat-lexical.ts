/**
 * A lexical index as one read-only buffer, for a process that only searches (a hook without a
 * server): `encodeFlatLexical` (`flat-lexical-encode.ts`) writes it from a `LexicalIndex`, and
 * {@link FlatLexicalIndex.open} searches it in place, answering exactly like
 * `LexicalIndex.search` (same ids, order, scores to the last bit, coverage and explained
 * fields; `test/lexical/flat-lexical.test.ts`), through the same `Bm25Scorer`.
 *
 * Opening reads the header and builds typed-array views: no term or posting is visited, and a
 * term's postings are read when a query first reaches it. Layout: `flat-lexical-layout.ts`;
 * the checks made on opening and by {@link FlatLexicalIndex.verify}: `flat-lexical-tables.ts`.
 */
import { corrupt, type FlatTables, readTables, verifyTables } from './flat-lexical-tables.js';
import type { LexicalMatch, LexicalSearcher, LexicalSearchOptions } from './lexical-query.js';
import type { FieldPostings, NearTerm, PostingsSource } from './postings-source.js';
import { SourceSearch } from './source-search.js';
import { FIELD_COUNT } from './lexical-entry.js';
import { MemoryPostings, type MemoryTerm } from './memory-postings.js';
import { stringOfCodeUnits } from '../util/code-units.js';

export { type EncodeFlatLexicalOptions, encodeFlatLexical } from './flat-lexical-encode.js';

/** One term's postings in one field, viewed in place. */
class FlatFieldPostings implements FieldPostings {
  readonly #docs: Uint16Array | Uint32Array;
  readonly #frequencies: Uint8Array | Uint16Array | Uint32Array;
  readonly #from: number;
  readonly #to: number;
  readonly #documents: number;

  constructor(tables: FlatTables, from: number, to: number) {
    this.#docs = tables.postingDocs;
    this.#frequencies = tables.postingFrequencies;
    this.#from = from;
    this.#to = to;
    this.#documents = tables.header.documents;
  }

  get size(): number {
    return this.#to - this.#from;
  }

  forEach(visit: (frequency: number, doc: number) => void): void {
    const docs = this.#docs;
    const frequencies = this.#frequencies;
    for (let i = this.#from; i < this.#to; i += 1) {
      const doc = docs[i]!;
      if (doc >= this.#documents) throw corrupt(`posting ${i} names document ${doc} of ${this.#documents}`);
      visit(frequencies[i]!, doc);
    }
  }

  has(doc: number): boolean {
    return this.#docs.subarray(this.#from, this.#to).includes(doc);
  }
}

/** The flat tables as a {@link PostingsSource}: a term's handle is its number. */
class FlatPostings implements PostingsSource<number> {
  readonly #tables: FlatTables;
  readonly #fieldIds: ReadonlyMap<string, number>;
  /** {@link FieldPostings} by `term · fields + field`, so the scorer's caches see one object per pair (at most one per segment). */
  readonly #postings = new Map<number, FieldPostings | undefined>();
  readonly #externalIds = new Map<number, string>();
  readonly documentCount: number;
  readonly slots: number;
  readonly fieldCount: number;
  readonly averageFieldLengths: Float64Array;
  readonly fieldLengths: Uint32Array;

  constructor(tables: FlatTables) {
    this.#tables = tables;
    this.averageFieldLengths = tables.averageFieldLengths;
    this.fieldLengths = tables.fieldLengths;
    this.#fieldIds = new Map(tables.fieldNames.map((name, id) => [name, id]));
    this.documentCount = tables.header.documentCount;
    this.slots = tables.header.documents;
    this.fieldCount = tables.header.fieldCount;
  }

  /** The buffer's sections, for {@link FlatLexicalIndex.verify}. */
  get tables(): FlatTables {
    return this.#tables;
  }

  fieldId(name: string): number | undefined {
    return this.#fieldIds.get(name);
  }

  isLive(): boolean {
    return true;
  }

  externalId(doc: number): string {
    let id = this.#externalIds.get(doc);
    if (id === undefined) {
      id = this.readId(doc);
      this.#externalIds.set(doc, id);
    }
    return id;
  }

  /** Document `doc`'s external id, decoded (not remembered). */
  readId(doc: number): string {
    const { idStarts, ids } = this.#tables;
    const from = idStarts[doc]!;
    const to = idStarts[doc + 1]!;
    if (!(from <= to && to <= ids.length)) throw corrupt(`document ${doc}'s id is out of bounds`);
    return ids.toString('utf8', from, to);
  }

  /** Term `position` as a string. */
  term(position: number): string {
    const { units, termStarts } = this.#tables;
    const from = termStarts[position]!;
    const to = termStarts[position + 1]!;
    if (!(from <= to && to <= units.length)) throw corrupt(`term ${position} is out of bounds`);
    return stringOfCodeUnits(units.subarray(from, to));
  }

  /** Compares `word` with term `position` in code-unit order (JavaScript's `<` on strings); `prefixOnly` counts a term that `word` starts as equal. */
  #compare(word: string, position: number, prefixOnly: boolean): number {
    const { units, termStarts } = this.#tables;
    const from = termStarts[position]!;
    const length = termStarts[position + 1]! - from;
    const shared = Math.min(word.length, length);
    for (let i = 0; i < shared; i += 1) {
      const difference = word.charCodeAt(i) - units[from + i]!;
      if (difference !== 0) return difference;
    }
    return prefixOnly && word.length <= length ? 0 : word.length - length;
  }

  /** The first sorted position whose term does not compare below `word` (`upper`: above it), by {@link #compare}. */
  #lowerBound(word: string, prefixOnly: boolean, upper: boolean): number {
    const { sorted } = this.#tables;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const order = this.#compare(word, sorted[mid]!, prefixOnly);
      if (order > 0 || (upper && order === 0)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  exact(term: string): number | undefined {
    const { sorted } = this.#tables;
    const at = this.#lowerBound(term, false, false);
    return at < sorted.length && this.#compare(term, sorted[at]!, false) === 0 ? sorted[at] : undefined;
  }

  *prefixed(prefix: string): Iterable<readonly [string, number]> {
    const { sorted, prefixRank, byPrefixRank } = this.#tables;
    const from = this.#lowerBound(prefix, true, false);
    const to = this.#lowerBound(prefix, true, true);
    if (from >= to) return;
    // A radix tree keeps the terms under one prefix in one subtree, so their ranks are consecutive.
    let first = Number.POSITIVE_INFINITY;
    let last = -1;
    for (let i = from; i < to; i += 1) {
      const rank = prefixRank[sorted[i]!]!;
      if (rank < first) first = rank;
      if (rank > last) last = rank;
    }
    const count = to - from;
    if (last - first + 1 === count) {
      for (let rank = first; rank <= last; rank += 1) {
        const position = byPrefixRank[rank]!;
        yield [this.term(position), position];
      }
      return;
    }
    const positions = Array.from(sorted.subarray(from, to)).sort((a, b) => prefixRank[a]! - prefixRank[b]!);
    for (const position of positions) yield [this.term(position), position];
  }

  near(word: string, maxDistance: number): NearTerm<number>[] {
    return this.#tables.vocabulary.near(word, maxDistance).map(({ position, distance }) => ({ term: this.term(position), handle: position, distance }));
  }

  postings(term: number, field: number): FieldPostings | undefined {
    const key = term * this.fieldCount + field;
    if (this.#postings.has(key)) return this.#postings.get(key);
    const { termSegments, segmentFields, segmentStarts, header } = this.#tables;
    const first = termSegments[term]!;
    const end = termSegments[term + 1]!;
    if (!(first <= end && end <= header.segments)) throw corrupt(`term ${term}'s segments are out of bounds`);
    let found: FieldPostings | undefined;
    for (let segment = first; segment < end; segment += 1) {
      if (segmentFields[segment] !== field) continue;
      const from = segmentStarts[segment]!;
      const to = segmentStarts[segment + 1]!;
      if (!(from <= to && to <= header.postings)) throw corrupt(`segment ${segment}'s postings are out of bounds`);
      found = new FlatFieldPostings(this.#tables, from, to);
      break;
    }
    this.#postings.set(key, found);
    return found;
  }
}

/**
 * A lexical index opened from {@link encodeFlatLexical}'s buffer: read-only, searched in place.
 * The buffer must not change while the index is in use.
 */
export class FlatLexicalIndex implements LexicalSearcher {
  readonly #source: FlatPostings;
  readonly #search: SourceSearch<number>;
  #ids: Set<string> | undefined;

  private constructor(source: FlatPostings) {
    this.#source = source;
    this.#search = new SourceSearch(source);
  }

  /**
   * Checks the header and the section bounds (not every term or posting) and views the buffer
   * in place. Throws a `SkillSearchError` (`INDEX_CORRUPT`) naming the problem when the buffer
   * is not one, is truncated, or is of another format version.
   */
  static open(bytes: Uint8Array): FlatLexicalIndex {
    return new FlatLexicalIndex(new FlatPostings(readTables(bytes)));
  }

  /**
   * Checks every structural invariant of the buffer (see `verifyTables`); throws like
   * {@link open}. O(size): for a pass after a write or in the background, not on every start.
   */
  verify(): void {
    verifyTables(this.#source.tables);
  }

  /** Documents indexed. */
  get size(): number {
    return this.#source.slots;
  }

  /** True when `id` is indexed; the first call reads every id (O(documents)). */
  has(id: string): boolean {
    this.#ids ??= new Set(this.ids());
    return this.#ids.has(id);
  }

  /** The indexed ids, in the order they were indexed (a replaced skill counts from its replacement). */
  *ids(): IterableIterator<string> {
    for (let doc = 0; doc < this.#source.slots; doc += 1) yield this.#source.readId(doc);
  }

  /**
   * The buffer's contents as in-memory postings (ids, field lengths, sorted terms, postings in
   * their order): what `LexicalIndex` is rebuilt from without tokenising anything. O(postings).
   */
  toPostings(): MemoryPostings {
    const source = this.#source;
    const { header, fieldLengths, termSegments, segmentFields, segmentStarts, postingDocs, postingFrequencies } = source.tables;
    const fieldCount = header.fieldCount;
    if (fieldCount !== FIELD_COUNT) throw corrupt(`${fieldCount} fields, this build indexes ${FIELD_COUNT}`);
    const ids = Array.from({ length: header.documents }, (_, doc) => source.readId(doc));
    const terms: string[] = [];
    const postings: MemoryTerm[] = [];
    for (let term = 0; term < header.terms; term += 1) {
      terms.push(source.term(term));
      const byField: MemoryTerm = new Array<Map<number, number> | undefined>(fieldCount).fill(undefined);
      for (let segment = termSegments[term]!; segment < termSegments[term + 1]!; segment += 1) {
        const field = segmentFields[segment]!;
        if (field >= fieldCount) throw corrupt(`segment ${segment} names field ${field}`);
        const byDoc = new Map<number, number>();
        for (let posting = segmentStarts[segment]!; posting < segmentStarts[segment + 1]!; posting += 1)
          byDoc.set(postingDocs[posting]!, postingFrequencies[posting]!);
        byField[field] = byDoc;
      }
      postings.push(byField);
    }
    return MemoryPostings.fromSaved(ids, fieldLengths, terms, postings);
  }

  /** What `LexicalIndex.search` answers over the index this buffer was written from. */
  search(query: string, limit: number, options: LexicalSearchOptions = {}): LexicalMatch[] {
    return this.#search.search(query, limit, options);
  }
}
