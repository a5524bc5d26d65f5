import type { Skill } from '../types.js';
import { Bm25Scorer, type QueryTerm, type ScoredDocument, type SearchedField } from './bm25-scorer.js';
import { type LexicalEntry, lexicalEntry, lexicalKey } from './lexical-entry.js';
import { type LexicalMatch, type LexicalSearcher, type LexicalSearchOptions, searchLexical } from './lexical-query.js';
import { MemoryPostings, type MemoryTerm } from './memory-postings.js';

export type { FieldBoosts, GroupedTerms, LexicalMatch, LexicalSearcher, LexicalSearchOptions } from './lexical-query.js';

/**
 * Bump when anything that shapes the built index changes (fields, tokenizer, stemmer, stop
 * words): a persisted index of another version is rebuilt instead of being searched.
 */
export const LEXICAL_FORMAT_VERSION = 5;

/**
 * BM25+ over name, whenToUse, keywords, description, body text and glosses, with typo tolerance
 * and prefix matching: {@link MemoryPostings} holds the postings (each skill tokenised by
 * `lexicalEntry`, as the SQLite tables are), {@link Bm25Scorer} answers queries over them.
 * `encodeFlatLexical` writes it as a buffer a read-only process searches in place
 * (`flat-lexical.ts`), which `lexical-store.ts` also persists.
 */
export class LexicalIndex implements LexicalSearcher {
  readonly #postings = new MemoryPostings();
  /** id → content key of the indexed version, to make `upsert` a no-op for unchanged skills. */
  readonly #keys = new Map<string, string>();
  /** Reads the index as it was when built: dropped on every change. */
  #scorer: Bm25Scorer<MemoryTerm> | undefined;

  get size(): number {
    return this.#keys.size;
  }

  has(id: string): boolean {
    return this.#keys.has(id);
  }

  /** The content key `id` is indexed under (`lexicalKey`, what {@link upsert} compares), for the store's deltas. */
  keyOf(id: string): string | undefined {
    return this.#keys.get(id);
  }

  /**
   * Adds or replaces a skill; returns false when the same content is already indexed.
   * `glosses`: English text indexed beside a skill written in another language.
   */
  upsert(skill: Skill, glosses = ''): boolean {
    const previous = this.#keys.get(skill.id);
    if (previous === lexicalKey(skill, glosses)) return false;
    this.#put(skill.id, lexicalEntry(skill, glosses));
    return true;
  }

  /** Adds or replaces `id` with an entry already made (by `lexicalEntry`), e.g. one read back from a saved index. */
  #put(id: string, entry: LexicalEntry): void {
    this.#scorer = undefined;
    if (this.#keys.has(id)) this.#postings.remove(id);
    this.#postings.add(id, entry);
    this.#keys.set(id, entry.key);
  }

  /** {@link upsert} with the entry already made; false when `id` already holds that key. */
  putEntry(id: string, entry: LexicalEntry): boolean {
    if (this.#keys.get(id) === entry.key) return false;
    this.#put(id, entry);
    return true;
  }

  remove(id: string): boolean {
    if (!this.#keys.delete(id)) return false;
    this.#scorer = undefined;
    this.#postings.remove(id);
    return true;
  }

  /** The indexed ids, in the order they were first indexed. */
  ids(): IterableIterator<string> {
    return this.#keys.keys();
  }

  /** The postings, read-only, for `encodeFlatLexical` and measurement scripts; read them before the next change. */
  get postings(): Pick<MemoryPostings, 'documentCount' | 'sortedTerms' | 'term' | 'slotOf' | 'lengthAt' | 'averageFieldLengths' | 'source'> {
    return this.#postings;
  }

  #currentScorer(): Bm25Scorer<MemoryTerm> {
    this.#scorer ??= new Bm25Scorer(this.#postings.source());
    return this.#scorer;
  }

  /** Matches in descending score order; at most `limit`. */
  search(query: string, limit: number, options: LexicalSearchOptions = {}): LexicalMatch[] {
    return searchLexical(
      {
        size: this.#keys.size,
        isKnown: (term) => this.#postings.term(term) !== undefined,
        score: (_text, terms, fields, max, explain) => this.#score(terms, fields, max, explain),
      },
      query,
      limit,
      options,
    );
  }

  #score(terms: readonly QueryTerm[], fields: readonly SearchedField[], limit: number, explain: boolean): ScoredDocument[] {
    return this.#currentScorer().search(terms, fields, limit, explain);
  }
}
