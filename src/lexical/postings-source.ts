/**
 * What {@link Bm25Scorer} reads from an index: its terms, each term's postings per field and
 * the documents' field lengths. Two implementations: the in-memory index
 * (`lexical-index.ts`) and one catalog of the SQLite tables (`src/store/lexical-tables.ts`), so the BM25 maths has one home and all answer alike.
 *
 * `Term` is the source's handle on one indexed term. Documents are numbered `0 ≤ doc < slots`.
 */
export interface PostingsSource<Term> {
  /** Documents counted for the inverse document frequency. */
  readonly documentCount: number;
  /** One more than the largest document number. */
  readonly slots: number;
  /** Fields are numbered `0 ≤ field < fieldCount`. */
  readonly fieldCount: number;
  fieldId(name: string): number | undefined;
  /** The average length of each field over the documents (sum / count). */
  readonly averageFieldLengths: ArrayLike<number>;
  /** Each live document's length in each field, at `doc · fieldCount + field` (0 when it has none). */
  readonly fieldLengths: ArrayLike<number>;
  /**
   * Each document's position in its catalog, by which documents of equal score are listed
   * (lower first), so that any state of an index lists ties as a clean build of the same
   * catalog does; absent: the document number is its position.
   */
  readonly positions?: ArrayLike<number>;
  /** The document's external id. */
  externalId(doc: number): string;
  /** The indexed term itself, or undefined. */
  exact(term: string): Term | undefined;
  /** Every indexed term starting with `prefix` (itself included when indexed), in the source's term order (code-unit order in memory). */
  prefixed(prefix: string): Iterable<readonly [string, Term]>;
  /** Every indexed term within `maxDistance` edits of `word`, in the source's term order. */
  near(word: string, maxDistance: number): readonly NearTerm<Term>[];
  /** The documents holding `term` in `field`, or undefined; the same object while the index is unchanged (the scorer caches by it). */
  postings(term: Term, field: number): FieldPostings | undefined;
}

/** One term's postings in one field: document → term frequency, iterated in index order. */
export interface FieldPostings {
  readonly size: number;
  forEach(visit: (frequency: number, doc: number) => void): void;
  has(doc: number): boolean;
}

/** An indexed term within edit distance of a query word. */
export interface NearTerm<Term> {
  readonly term: string;
  readonly handle: Term;
  readonly distance: number;
}
