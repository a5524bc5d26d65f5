import { Bm25Scorer } from './bm25-scorer.js';
import { type LexicalMatch, type LexicalSearcher, type LexicalSearchOptions, searchLexical } from './lexical-query.js';
import type { PostingsSource } from './postings-source.js';

/**
 * Lexical search over one state of a {@link PostingsSource} (the in-memory postings, or one
 * catalog of the SQLite tables): its {@link Bm25Scorer} made at the first search and
 * kept, so make a new one when the postings change.
 */
export class SourceSearch<Term> implements LexicalSearcher {
  readonly #source: PostingsSource<Term>;
  #scorer: Bm25Scorer<Term> | undefined;

  constructor(source: PostingsSource<Term>) {
    this.#source = source;
  }

  /** Documents indexed. */
  get size(): number {
    return this.#source.documentCount;
  }

  /** Matches in descending score order; at most `limit`. */
  search(query: string, limit: number, options: LexicalSearchOptions = {}): LexicalMatch[] {
    const source = this.#source;
    return searchLexical(
      {
        size: source.documentCount,
        isKnown: (term) => source.exact(term) !== undefined,
        score: (_text, terms, fields, max, explain) => {
          this.#scorer ??= new Bm25Scorer(source);
          return this.#scorer.search(terms, fields, max, explain);
        },
      },
      query,
      limit,
      options,
    );
  }
}
