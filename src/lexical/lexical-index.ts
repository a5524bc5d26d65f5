import MiniSearch, { type AsPlainObject, type Options } from 'minisearch';
import type { Skill } from '../types.js';
import { tokenize } from './tokenize.js';

/** One lexical match. `coverage` (0–1) is the share of distinct query terms that matched. */
export interface LexicalMatch {
  readonly id: string;
  /** Raw BM25+ score from MiniSearch (unbounded; comparable only within one query). */
  readonly score: number;
  readonly coverage: number;
}

/**
 * Field boosts: a word in the name says more than one in `whenToUse`, which says more than the
 * description. The name's boost was 3; on a MetaTool dev sample 1 and 2 both ranked better
 * (hybrid hit@1 0.521 → 0.533 / 0.528) and 2 was kept because 1 cost SkillsBench, whose long
 * task descriptions often name the skill (lexical hit@1 0.790 → 0.774; 2: 0.806).
 */
export const LEXICAL_BOOST = { name: 2, whenToUse: 1.5, description: 1 } as const;

/** Fuzzy matching only for terms long enough that one edit is still the same word. */
const FUZZY_MIN_LENGTH = 5;
const FUZZY_RATIO = 0.2;
/** Prefix matching below this length matches half the vocabulary (`m`, `de`). */
const PREFIX_MIN_LENGTH = 4;

interface LexicalDocument {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly whenToUse: string;
}

function toDocument(skill: Skill): LexicalDocument {
  return { id: skill.id, name: skill.name, description: skill.description, whenToUse: skill.whenToUse ?? '' };
}

/**
 * Bump when anything that shapes the built index changes (fields, tokenizer, stemmer, stop
 * words): a persisted index of another version is rebuilt instead of being searched.
 */
export const LEXICAL_FORMAT_VERSION = 1;

/** A serialised index: the indexed (id, contentHash) pairs and MiniSearch's own plain object. */
export interface LexicalSnapshot {
  readonly entries: readonly (readonly [string, string])[];
  readonly index: AsPlainObject;
}

/**
 * BM25 (MiniSearch) over name, whenToUse and description, with typo tolerance and prefix
 * matching. Serialisable ({@link LexicalIndex.snapshot} / {@link LexicalIndex.restore}) so a
 * fresh process can skip tokenising the whole catalog (see `lexical-store.ts`).
 */
export class LexicalIndex {
  #search: MiniSearch<LexicalDocument>;
  /** id → contentHash of the indexed version, to make `upsert` a no-op for unchanged skills. */
  readonly #hashes = new Map<string, string>();
  /** A document was discarded (removed or replaced) since the last {@link compact}. */
  #dirty = false;

  constructor(search: MiniSearch<LexicalDocument> = new MiniSearch<LexicalDocument>(LexicalIndex.#options())) {
    this.#search = search;
  }

  /** Rebuilds an index from {@link snapshot}'s output; throws when it does not fit (caller rebuilds). */
  static restore(snapshot: LexicalSnapshot): LexicalIndex {
    const search = MiniSearch.loadJS<LexicalDocument>(snapshot.index, LexicalIndex.#options());
    if (search.documentCount !== snapshot.entries.length) {
      throw new Error(`index holds ${search.documentCount} documents, entries list ${snapshot.entries.length}`);
    }
    const index = new LexicalIndex(search);
    for (const [id, hash] of snapshot.entries) {
      if (typeof id !== 'string' || typeof hash !== 'string' || !search.has(id)) throw new Error(`entry ${String(id)} is not indexed`);
      index.#hashes.set(id, hash);
    }
    return index;
  }

  snapshot(): LexicalSnapshot {
    this.#compact();
    return { entries: [...this.#hashes], index: this.#search.toJSON() };
  }

  /**
   * MiniSearch's `discard` hides a document at once but keeps its terms until a vacuum, and
   * those stale postings still count in every term's document frequency: after a reindex the
   * BM25 scores differed from a fresh build's (by up to 0.016). So no vacuum runs in the
   * background (`autoVacuum: false`), and this one runs before the index is searched or
   * saved. With one batch as large as the index, its cleanup runs synchronously inside this
   * call (its promise only settles bookkeeping); O(terms). `vacuum()` itself would only queue
   * behind a vacuum still settling from earlier in the same tick, so the worker it wraps is
   * called when this MiniSearch version has it.
   */
  #compact(): void {
    if (!this.#dirty) return;
    this.#dirty = false;
    const options = { batchSize: Number.POSITIVE_INFINITY, batchWait: 0 };
    const search = this.#search as unknown as { performVacuuming?: (options: object) => Promise<void> };
    const vacuum = typeof search.performVacuuming === 'function' ? search.performVacuuming(options) : this.#search.vacuum(options);
    vacuum.catch(() => undefined);
  }

  static #options(): Options<LexicalDocument> {
    return {
      idField: 'id',
      fields: ['name', 'whenToUse', 'description'],
      tokenize,
      processTerm: (term) => term,
      searchOptions: {
        boost: { ...LEXICAL_BOOST },
        combineWith: 'OR',
        prefix: (term) => term.length >= PREFIX_MIN_LENGTH,
        fuzzy: (term) => (term.length >= FUZZY_MIN_LENGTH ? FUZZY_RATIO : false),
      },
      autoVacuum: false,
    };
  }

  get size(): number {
    return this.#hashes.size;
  }

  has(id: string): boolean {
    return this.#hashes.has(id);
  }

  /** Adds or replaces a skill; returns false when the same content is already indexed. */
  upsert(skill: Skill): boolean {
    const previous = this.#hashes.get(skill.id);
    if (previous === skill.contentHash) return false;
    if (previous === undefined) this.#search.add(toDocument(skill));
    else {
      this.#search.replace(toDocument(skill));
      this.#dirty = true;
    }
    this.#hashes.set(skill.id, skill.contentHash);
    return true;
  }

  remove(id: string): boolean {
    if (!this.#hashes.delete(id)) return false;
    this.#search.discard(id);
    this.#dirty = true;
    return true;
  }

  ids(): IterableIterator<string> {
    return this.#hashes.keys();
  }

  /**
   * True when `term` is in the index vocabulary. MiniSearch keeps its terms in a radix tree it
   * does not expose; without one (another MiniSearch version) every term counts as unknown,
   * which only costs speed.
   */
  #knows(term: string): boolean {
    const terms = (this.#search as unknown as { _index?: { has?: (term: string) => boolean } })._index;
    return typeof terms?.has === 'function' && terms.has(term);
  }

  /** Matches in descending score order; at most `limit`. */
  search(query: string, limit: number): LexicalMatch[] {
    const queryTerms = new Set(tokenize(query));
    if (queryTerms.size === 0 || this.#hashes.size === 0) return [];
    this.#compact();
    // Typo tolerance is for words the catalog does not have: a known word is matched exactly
    // (and by prefix). Expanding known words too cost most of a search (16–22× plain BM25 at
    // 10k–24k skills) and ranked no better.
    const results = this.#search.search(query, { fuzzy: (term) => (term.length >= FUZZY_MIN_LENGTH && !this.#knows(term) ? FUZZY_RATIO : false) });
    const out: LexicalMatch[] = [];
    for (const result of results.slice(0, limit)) {
      let matched = 0;
      for (const term of new Set(result.queryTerms)) if (queryTerms.has(term)) matched += 1;
      out.push({ id: result.id as string, score: result.score, coverage: matched / queryTerms.size });
    }
    return out;
  }
}
