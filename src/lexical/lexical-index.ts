import type { Skill } from '../types.js';
import { type LexicalEntry, lexicalEntry, lexicalKey } from './lexical-entry.js';
import type { LexicalMatch, LexicalSearcher, LexicalSearchOptions } from './lexical-query.js';
import { MemoryPostings, type MemoryTerm } from './memory-postings.js';
import { SourceSearch } from './source-search.js';

export type { FieldBoosts, GroupedTerms, LexicalMatch, LexicalSearcher, LexicalSearchOptions } from './lexical-query.js';

/**
 * Bump when anything that shapes the built index changes (fields, tokenizer, stemmer, stop
 * words): a catalog saved under another version is not used (its `format`, docs/store.md).
 */
export const LEXICAL_FORMAT_VERSION = 5;

/**
 * BM25+ over name, whenToUse, keywords, description, body text and glosses, with typo tolerance
 * and prefix matching: {@link MemoryPostings} holds the postings (each skill tokenised by
 * `lexicalEntry`, as the SQLite tables are), `Bm25Scorer` answers queries over them. This is
 * the live engine's index; a saved catalog is searched from the store's tables instead
 * (`src/store/lexical-tables.ts`).
 */
export class LexicalIndex implements LexicalSearcher {
  /** id → content key of the indexed version, to make `upsert` a no-op for unchanged skills. */
  readonly #keys = new Map<string, string>();
  /** Searches the index as it was when made: dropped on every change. */
  #search: SourceSearch<MemoryTerm> | undefined;

  readonly #postings = new MemoryPostings();

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

  /** Adds or replaces `id` with its entry (a replaced document keeps its catalog position). */
  #put(id: string, entry: LexicalEntry): void {
    this.#search = undefined;
    const position = this.#postings.positionOf(id);
    if (position !== undefined) this.#postings.remove(id);
    this.#postings.add(id, entry, position);
    this.#keys.set(id, entry.key);
  }

  /**
   * Sets the catalog order, by which equal scores are listed: the documents `ids` lists take
   * its order (by default documents are in the order they were first added).
   */
  arrange(ids: Iterable<string>): void {
    if (this.#postings.arrange(ids)) this.#search = undefined;
  }

  remove(id: string): boolean {
    if (!this.#keys.delete(id)) return false;
    this.#search = undefined;
    this.#postings.remove(id);
    return true;
  }

  /** The indexed ids, in the order they were first indexed. */
  ids(): IterableIterator<string> {
    return this.#keys.keys();
  }

  /** The postings, read-only, for measurement scripts; read them before the next change. */
  get postings(): Pick<MemoryPostings, 'documentCount' | 'sortedTerms' | 'term' | 'slotOf' | 'lengthAt' | 'averageFieldLengths' | 'source'> {
    return this.#postings;
  }

  /** Matches in descending score order; at most `limit`. */
  search(query: string, limit: number, options: LexicalSearchOptions = {}): LexicalMatch[] {
    this.#search ??= new SourceSearch(this.#postings.source());
    return this.#search.search(query, limit, options);
  }
}
