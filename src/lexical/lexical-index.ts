import { createHash } from 'node:crypto';
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
export const LEXICAL_BOOST = { name: 2, whenToUse: 1.5, description: 1, glosses: 1 } as const;

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
  /** English glosses of a skill written in Chinese or Japanese (see `src/lang/`); '' otherwise. */
  readonly glosses: string;
}

function toDocument(skill: Skill, glosses: string): LexicalDocument {
  return { id: skill.id, name: skill.name, description: skill.description, whenToUse: skill.whenToUse ?? '', glosses };
}

/**
 * Bump when anything that shapes the built index changes (fields, tokenizer, stemmer, stop
 * words): a persisted index of another version is rebuilt instead of being searched.
 */
export const LEXICAL_FORMAT_VERSION = 2;

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
    return { entries: [...this.#hashes], index: this.#search.toJSON() };
  }

  static #options(): Options<LexicalDocument> {
    return {
      idField: 'id',
      fields: ['name', 'whenToUse', 'description', 'glosses'],
      tokenize,
      processTerm: (term) => term,
      searchOptions: {
        boost: { ...LEXICAL_BOOST },
        combineWith: 'OR',
        prefix: (term) => term.length >= PREFIX_MIN_LENGTH,
        fuzzy: (term) => (term.length >= FUZZY_MIN_LENGTH ? FUZZY_RATIO : false),
      },
      autoVacuum: { minDirtCount: 20, minDirtFactor: 0.1, batchSize: 1000, batchWait: 10 },
    };
  }

  get size(): number {
    return this.#hashes.size;
  }

  has(id: string): boolean {
    return this.#hashes.has(id);
  }

  /** The content key `id` is indexed under (what {@link upsert} compares), for the store's deltas. */
  keyOf(id: string): string | undefined {
    return this.#hashes.get(id);
  }

  /**
   * Adds or replaces a skill; returns false when the same content is already indexed.
   * `glosses`: English text indexed beside a skill written in another language.
   */
  upsert(skill: Skill, glosses = ''): boolean {
    const previous = this.#hashes.get(skill.id);
    // Glosses are derived from the content, but a dictionary change changes them: they are part of the key.
    const key = glosses === '' ? skill.contentHash : `${skill.contentHash}+${glosses.length.toString(36)}:${hashText(glosses)}`;
    if (previous === key) return false;
    if (previous === undefined) this.#search.add(toDocument(skill, glosses));
    else this.#search.replace(toDocument(skill, glosses));
    this.#hashes.set(skill.id, key);
    return true;
  }

  remove(id: string): boolean {
    if (!this.#hashes.delete(id)) return false;
    this.#search.discard(id);
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

  /**
   * Matches in descending score order; at most `limit`. `weights` (term → weight, default 1)
   * scale each query term's BM25 contribution and its share of `coverage`: a translated query
   * gives the several glosses of one word one unit of weight between them.
   */
  search(query: string, limit: number, weights?: ReadonlyMap<string, number>): LexicalMatch[] {
    const queryTerms = new Set(tokenize(query));
    if (queryTerms.size === 0 || this.#hashes.size === 0) return [];
    if (weights !== undefined) return this.#searchWeighted(query, queryTerms, limit, weights);
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

  #searchWeighted(query: string, queryTerms: ReadonlySet<string>, limit: number, weights: ReadonlyMap<string, number>): LexicalMatch[] {
    const weightOf = (term: string): number => weights.get(term) ?? 1;
    let total = 0;
    for (const term of queryTerms) total += weightOf(term);
    // Dictionary glosses are spelled right: no typo tolerance (it was most of the cost of a translated query).
    const results = this.#search.search(query, { fuzzy: false, boostTerm: (term) => weightOf(term) });
    const out: LexicalMatch[] = [];
    for (const result of results.slice(0, limit)) {
      let matched = 0;
      for (const term of new Set(result.queryTerms)) if (queryTerms.has(term)) matched += weightOf(term);
      out.push({ id: result.id as string, score: result.score, coverage: total === 0 ? 0 : matched / total });
    }
    return out;
  }
}

function hashText(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}
