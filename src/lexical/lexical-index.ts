import { createRequire } from 'node:module';
import type MiniSearch from 'minisearch';
import type { AsPlainObject, Options } from 'minisearch';
import type { Skill } from '../types.js';
import { bodyText } from './body-text.js';
import { Bm25Scorer, type QueryTerm, type ScoredDocument, type SearchedField } from './bm25-scorer.js';
import { type LexicalMatch, type LexicalSearcher, type LexicalSearchOptions, searchLexical } from './lexical-query.js';
import { internalsOf, type MiniSearchInternals, type TermPostings } from './minisearch-internals.js';
import { MiniSearchPostings } from './minisearch-postings.js';
import { tokenize } from './tokenize.js';
import { lexicalKey } from './lexical-entry.js';

export type { FieldBoosts, GroupedTerms, LexicalMatch, LexicalSearcher, LexicalSearchOptions } from './lexical-query.js';

/** MiniSearch loads with the first live index that needs it: a cold search over a search snapshot never does. */
let miniSearchClass: typeof MiniSearch | undefined;
function miniSearch(): typeof MiniSearch {
  miniSearchClass ??= createRequire(import.meta.url)('minisearch') as typeof MiniSearch;
  return miniSearchClass;
}

interface LexicalDocument {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly whenToUse: string;
  readonly keywords: string;
  readonly body: string;
  /** English glosses of a skill written in Chinese or Japanese (see `src/lang/`); '' otherwise. */
  readonly glosses: string;
}

function toDocument(skill: Skill, body: string, glosses: string): LexicalDocument {
  return {
    id: skill.id,
    name: skill.name,
    description: skill.description,
    whenToUse: skill.whenToUse ?? '',
    keywords: skill.keywords?.join('\n') ?? '',
    body,
    glosses,
  };
}

/**
 * Bump when anything that shapes the built index changes (fields, tokenizer, stemmer, stop
 * words): a persisted index of another version is rebuilt instead of being searched.
 */
export const LEXICAL_FORMAT_VERSION = 4;

/** A serialised index: the indexed (id, contentHash) pairs and MiniSearch's own plain object. */
export interface LexicalSnapshot {
  readonly entries: readonly (readonly [string, string])[];
  readonly index: AsPlainObject;
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
/**
 * BM25 over name, whenToUse, keywords, description, body text and glosses, with typo tolerance
 * and prefix matching: MiniSearch holds the index, {@link Bm25Scorer} answers queries over it
 * (MiniSearch's scores and order, faster). Serialisable ({@link LexicalIndex.snapshot} / {@link LexicalIndex.restore}) so a
 * fresh process can skip tokenising the whole catalog (see `lexical-store.ts`); `encodeFlatLexical`
 * writes it as a buffer a read-only process searches in place (`flat-lexical.ts`).
 */
export class LexicalIndex implements LexicalSearcher {
  /** MiniSearch's index, made at first use (see {@link #search}). */
  #made: MiniSearch<LexicalDocument> | undefined;
  /** id → contentHash of the indexed version, to make `upsert` a no-op for unchanged skills. */
  readonly #hashes = new Map<string, string>();
  /** A document was discarded (removed or replaced) since the last {@link compact}. */
  #dirty = false;
  /** Reads the index as it was when built: dropped on every change. */
  #scorer: Bm25Scorer<TermPostings> | undefined;

  /** Over `search`, or an empty index made at first use. */
  constructor(search?: MiniSearch<LexicalDocument>) {
    this.#made = search;
  }

  get #search(): MiniSearch<LexicalDocument> {
    if (this.#made === undefined) {
      const Search = miniSearch();
      this.#made = new Search<LexicalDocument>(LexicalIndex.#options());
    }
    return this.#made;
  }

  /** Rebuilds an index from {@link snapshot}'s output; throws when it does not fit (caller rebuilds). */
  static restore(snapshot: LexicalSnapshot): LexicalIndex {
    const search = miniSearch().loadJS<LexicalDocument>(snapshot.index, LexicalIndex.#options());
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

  /**
   * The index as MiniSearch holds it in memory (its term tree and id maps are `Map`s), for
   * `v8.serialize`: reading that back costs a fraction of `loadJS`, which re-inserts every
   * term of a plain-object snapshot into a new tree (most of a cold start at 24k skills).
   */
  compactSnapshot(): CompactLexicalSnapshot {
    this.#compact();
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
   * MiniSearch's private state after compaction (no postings of discarded documents), for
   * `encodeFlatLexical`; undefined when this MiniSearch keeps its index differently. Read it,
   * never change it, and read it before the next change.
   */
  compactedInternals(): MiniSearchInternals | undefined {
    this.#compact();
    return internalsOf(this.#search);
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
    const search = miniSearch().loadJS<LexicalDocument>(
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

  static #options(): Options<LexicalDocument> {
    return {
      idField: 'id',
      fields: ['name', 'whenToUse', 'keywords', 'description', 'body', 'glosses'],
      tokenize,
      processTerm: (term) => term,
      searchOptions: { combineWith: 'OR' },
      autoVacuum: false,
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
    const body = bodyText(skill.body);
    const version = lexicalKey(skill, glosses);
    if (previous === version) return false;
    this.#scorer = undefined;
    if (previous === undefined) this.#search.add(toDocument(skill, body, glosses));
    else {
      this.#search.replace(toDocument(skill, body, glosses));
      this.#dirty = true;
    }
    this.#hashes.set(skill.id, version);
    return true;
  }

  remove(id: string): boolean {
    if (!this.#hashes.delete(id)) return false;
    this.#scorer = undefined;
    this.#search.discard(id);
    this.#dirty = true;
    return true;
  }

  ids(): IterableIterator<string> {
    return this.#hashes.keys();
  }

  /**
   * The query path over the current index, built at the first search after a change; undefined
   * when this MiniSearch keeps its index differently (its own `search` then runs, slower).
   */
  #currentScorer(): Bm25Scorer<TermPostings> | undefined {
    if (this.#scorer === undefined) {
      const internals = internalsOf(this.#search);
      if (internals === undefined) return undefined;
      this.#scorer = new Bm25Scorer(new MiniSearchPostings(internals));
    }
    return this.#scorer;
  }

  /** Matches in descending score order; at most `limit`. */
  search(query: string, limit: number, options: LexicalSearchOptions = {}): LexicalMatch[] {
    this.#compact();
    const scorer = this.#currentScorer();
    const known = scorer !== undefined ? (term: string) => scorer.has(term) : this.#vocabularyTest();
    return searchLexical(
      { size: this.#hashes.size, isKnown: known, score: (text, terms, fields, max, explain) => this.#score(text, terms, fields, max, explain) },
      query,
      limit,
      options,
    );
  }

  /**
   * True when a term is in the index vocabulary. MiniSearch keeps its terms in a radix tree it
   * does not expose; without one (another MiniSearch version) every term counts as unknown,
   * which only costs speed.
   */
  #vocabularyTest(): (term: string) => boolean {
    const terms = (this.#search as unknown as { _index?: { has?: (term: string) => boolean } })._index;
    return typeof terms?.has === 'function' ? (term) => terms.has!(term) : () => false;
  }

  /** {@link Bm25Scorer}, or MiniSearch's own search with the same settings (what the scorer reproduces). */
  #score(query: string, terms: readonly QueryTerm[], fields: readonly SearchedField[], limit: number, explain: boolean): ScoredDocument[] {
    const scorer = this.#currentScorer();
    if (scorer !== undefined) return scorer.search(terms, fields, limit, explain);
    const byTerm = new Map(terms.map((term) => [term.term, term]));
    const results = this.#search.search(query, {
      fields: fields.map((field) => field.name),
      boost: Object.fromEntries(fields.map((field) => [field.name, field.boost])),
      prefix: (term) => byTerm.get(term)?.prefix ?? false,
      fuzzy: (term) => byTerm.get(term)?.fuzzy ?? false,
      boostTerm: (term) => byTerm.get(term)?.boost ?? 1,
    });
    return results.slice(0, limit).map((result) => ({ id: result.id as string, score: result.score, queryTerms: result.queryTerms, match: result.match }));
  }
}
