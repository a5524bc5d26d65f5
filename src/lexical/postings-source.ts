/**
 * What {@link Bm25Scorer} reads from an index: the in-memory `LexicalIndex`, or one catalog of the
 * SQLite tables (`src/store/catalog-lexical.ts`), so the BM25 maths has one home and both answer
 * alike. Documents are numbered `0 ≤ doc < slots`, fields as `INDEXED_FIELDS`.
 */
export interface PostingsSource {
  /** Documents counted for the inverse document frequency. */
  readonly size: number;
  /** One more than the largest document number. */
  readonly slots: number;
  /** The average length of each field over the documents (sum / count). */
  readonly averageFieldLengths: ArrayLike<number>;
  /** Each live document's length in each field, at `doc · FIELD_COUNT + field` (0 when it has none). */
  readonly fieldLengths: ArrayLike<number>;
  /**
   * Each document's catalog position, by which equal scores are listed (lower first), so any
   * state of an index lists ties as a clean build does; absent: the document number.
   */
  readonly positions?: ArrayLike<number>;
  externalId(doc: number): string;
  /** The indexed term itself, or undefined. */
  exact(term: string): TermPostings | undefined;
  /** Every indexed term starting with `prefix` (itself included), in the source's term order. */
  prefixed(prefix: string): Iterable<readonly [string, TermPostings]>;
  /** Every indexed term within `maxDistance` edits of `word`, in the source's term order. */
  near(word: string, maxDistance: number): readonly NearTerm[];
}

/**
 * One term's postings by field number (undefined where the field has none); each field's object
 * stays the same while the index is unchanged (the scorer caches by it).
 */
export type TermPostings = readonly (FieldPostings | undefined)[];

/** One term's postings in one field: document → term frequency, iterated in index order. */
export interface FieldPostings {
  readonly size: number;
  forEach(visit: (frequency: number, doc: number) => void): void;
  has(doc: number): boolean;
}

/** An indexed term within edit distance of a query word. */
export interface NearTerm {
  readonly term: string;
  readonly handle: TermPostings;
  readonly distance: number;
}
