import type { MiniSearchInternals, RadixNode, TermPostings } from './minisearch-internals.js';
import type { FieldPostings, NearTerm, PostingsSource } from './postings-source.js';
import { TermVocabulary, vocabularyTables } from './term-vocabulary.js';

/** Typo lookups per index version done on the tree before the flat vocabulary is built. */
const TREE_LOOKUPS_BEFORE_VOCABULARY = 8;

/** The terms of `tree` in MiniSearch's depth-first order (a node's keys in insertion order, its own term where its `''` key sits), as `fuzzyGet` lists them. */
export function treeTerms(tree: RadixNode): { terms: string[]; postings: TermPostings[] } {
  const terms: string[] = [];
  const postings: TermPostings[] = [];
  const walk = (node: RadixNode, prefix: string): void => {
    node.forEach((child, key) => {
      if (key === '') {
        terms.push(prefix);
        postings.push(child as TermPostings);
      } else walk(child as RadixNode, prefix + key);
    });
  };
  walk(tree, '');
  return { terms, postings };
}

/**
 * MiniSearch's live index as a {@link PostingsSource}: term handles are its postings maps, so
 * nothing is copied. Valid until the index changes (`LexicalIndex` drops it on every change).
 */
export class MiniSearchPostings implements PostingsSource<TermPostings> {
  readonly #index: MiniSearchInternals;
  readonly documentCount: number;
  readonly slots: number;
  readonly fieldCount: number;
  readonly averageFieldLengths: readonly number[];
  readonly fieldLengths: Float64Array;
  /** 1 for each live document number: a typed read per posting instead of a map lookup. */
  readonly #live: Uint8Array;
  #vocabulary: { readonly lookup: TermVocabulary; readonly terms: string[]; readonly postings: TermPostings[] } | undefined;
  /** Typo lookups answered by walking the tree (see {@link near}). */
  #treeLookups = 0;

  constructor(index: MiniSearchInternals) {
    this.#index = index;
    this.documentCount = index._documentCount;
    this.slots = index._nextId;
    const fieldCount = Math.max(0, ...Object.values(index._fieldIds)) + 1;
    this.fieldCount = fieldCount;
    this.averageFieldLengths = index._avgFieldLength;
    this.fieldLengths = new Float64Array(this.slots * fieldCount);
    for (const [doc, lengths] of index._fieldLength) {
      for (let field = 0; field < fieldCount; field += 1) this.fieldLengths[doc * fieldCount + field] = lengths[field] ?? 0;
    }
    this.#live = new Uint8Array(this.slots);
    for (const doc of index._documentIds.keys()) if (doc < this.slots) this.#live[doc] = 1;
  }

  fieldId(name: string): number | undefined {
    return this.#index._fieldIds[name];
  }

  isLive(doc: number): boolean {
    return this.#live[doc] === 1;
  }

  externalId(doc: number): string {
    return this.#index._documentIds.get(doc) as string;
  }

  exact(term: string): TermPostings | undefined {
    return this.#index._index.get(term);
  }

  prefixed(prefix: string): Iterable<readonly [string, TermPostings]> {
    return this.#index._index.atPrefix(prefix);
  }

  /**
   * The first few lookups after a change walk the term tree like MiniSearch (milliseconds each
   * on a large catalog); after that a flat {@link TermVocabulary} is built once (a walk of the
   * whole tree, several lookups' worth) and answers each in well under a millisecond. A
   * one-shot process thus never pays for the vocabulary, and a server soon stops paying the walks.
   */
  near(word: string, maxDistance: number): NearTerm<TermPostings>[] {
    if (this.#vocabulary === undefined && this.#treeLookups < TREE_LOOKUPS_BEFORE_VOCABULARY) {
      this.#treeLookups += 1;
      return Array.from(this.#index._index.fuzzyGet(word, maxDistance), ([term, [handle, distance]]) => ({ term, handle, distance }));
    }
    if (this.#vocabulary === undefined) {
      const { terms, postings } = treeTerms(this.#index._index._tree);
      this.#vocabulary = { lookup: new TermVocabulary(vocabularyTables(terms)), terms, postings };
    }
    const { lookup, terms, postings } = this.#vocabulary;
    return lookup.near(word, maxDistance).map(({ position, distance }) => ({ term: terms[position]!, handle: postings[position]!, distance }));
  }

  postings(term: TermPostings, field: number): FieldPostings | undefined {
    return term.get(field);
  }
}
