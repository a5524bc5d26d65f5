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

// --- scale (#17) ---
/** MiniSearch 7's private fields that a compact snapshot holds. */
interface MiniSearchInternals {
  _documentCount: number;
  _nextId: number;
  _fieldIds: Record<string, number>;
  _avgFieldLength: number[];
  _dirtCount: number;
  _index: { _tree: Map<string, unknown>; constructor: unknown };
  _documentIds: Map<number, unknown>;
  _idToShortId: Map<unknown, number>;
  _fieldLength: Map<number, number[]>;
  _storedFields: Map<number, unknown>;
}

/** {@link LexicalIndex.compactSnapshot}: plain data and `Map`s, for `v8.serialize`. */
export interface CompactLexicalSnapshot {
  readonly entries: readonly (readonly [string, string])[];
  readonly documentCount: number;
  readonly nextId: number;
  readonly fieldIds: Record<string, number>;
  readonly averageFieldLength: number[];
  readonly dirtCount: number;
  readonly tree: Map<string, unknown>;
  readonly documentIds: Map<number, unknown>;
  readonly fieldLength: Map<number, number[]>;
  readonly storedFields: Map<number, unknown>;
}
// --- end scale (#17) ---

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

  // --- scale (#17): compact snapshots, read without re-inserting every term. ---

  /**
   * The index as MiniSearch holds it in memory (its term tree and id maps are `Map`s), for
   * `v8.serialize`: reading that back costs a fraction of `loadJS`, which re-inserts every
   * term of a plain-object snapshot into a new tree (most of a cold start at 24k skills).
   */
  compactSnapshot(): CompactLexicalSnapshot {
    const search = this.#search as unknown as MiniSearchInternals;
    return {
      entries: [...this.#hashes],
      documentCount: search._documentCount,
      nextId: search._nextId,
      fieldIds: search._fieldIds,
      averageFieldLength: search._avgFieldLength,
      dirtCount: search._dirtCount,
      tree: search._index._tree,
      documentIds: search._documentIds,
      fieldLength: search._fieldLength,
      storedFields: search._storedFields,
    };
  }

  /**
   * Rebuilds an index from {@link compactSnapshot}'s output (after `v8.deserialize`); throws
   * when it does not fit this MiniSearch (the caller rebuilds). Relies on MiniSearch 7's
   * internal field names, checked here: another version fails the checks, not a search.
   */
  static restoreCompact(snapshot: CompactLexicalSnapshot): LexicalIndex {
    const { tree, documentIds, fieldLength, storedFields, entries } = snapshot;
    if (!(tree instanceof Map) || !(documentIds instanceof Map) || !(fieldLength instanceof Map) || !(storedFields instanceof Map) || !Array.isArray(entries)) {
      throw new Error('compact snapshot has the wrong shape');
    }
    const search = MiniSearch.loadJS<LexicalDocument>(
      {
        index: [],
        documentIds: {},
        fieldLength: {},
        storedFields: {},
        serializationVersion: 2,
        documentCount: snapshot.documentCount,
        nextId: snapshot.nextId,
        fieldIds: snapshot.fieldIds,
        averageFieldLength: snapshot.averageFieldLength,
        dirtCount: snapshot.dirtCount,
      } as AsPlainObject,
      LexicalIndex.#options(),
    );
    const internals = search as unknown as MiniSearchInternals;
    const TermMap = internals._index?.constructor as (new (tree: Map<string, unknown>) => MiniSearchInternals['_index']) | undefined;
    if (typeof TermMap !== 'function' || !(internals._index._tree instanceof Map) || !(internals._idToShortId instanceof Map)) {
      throw new Error('this MiniSearch keeps its index differently');
    }
    internals._index = new TermMap(tree);
    internals._documentIds = documentIds;
    internals._fieldLength = fieldLength;
    internals._storedFields = storedFields;
    for (const [shortId, id] of documentIds) internals._idToShortId.set(id, shortId);
    if (documentIds.size !== entries.length || search.documentCount !== entries.length) {
      throw new Error(`index holds ${documentIds.size} documents, entries list ${entries.length}`);
    }
    const index = new LexicalIndex(search);
    for (const [id, hash] of entries) {
      if (typeof id !== 'string' || typeof hash !== 'string' || !search.has(id)) throw new Error(`entry ${String(id)} is not indexed`);
      index.#hashes.set(id, hash);
    }
    return index;
  }
  // --- end scale (#17) ---

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
