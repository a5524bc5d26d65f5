import type MiniSearch from 'minisearch';

/** One indexed term's postings: field id → document short id → term frequency. */
export type TermPostings = Map<number, Map<number, number>>;

/**
 * A node of MiniSearch's radix tree: edge label → child node, and under the key `''` the
 * postings of the term that ends here.
 */
export type RadixNode = Map<string, unknown>;

/** The term tree, as MiniSearch's `SearchableMap` exposes it. */
export interface TermTree {
  _tree: RadixNode;
  has(term: string): boolean;
  get(term: string): TermPostings | undefined;
  /** Every indexed term starting with `prefix`, in the tree's iteration order. */
  atPrefix(prefix: string): Iterable<[string, TermPostings]>;
  /** Every indexed term within `maxDistance` edits of `term`, with its distance, in a depth-first walk's order. */
  fuzzyGet(term: string, maxDistance: number): Map<string, [TermPostings, number]>;
  constructor: unknown;
}

/**
 * The private fields of a MiniSearch 7 instance that this folder reads: the compact snapshot
 * (`lexical-index.ts`) and the query scorer (`bm25-scorer.ts`), which both need more than the
 * public API gives. {@link internalsOf} checks them, so another MiniSearch version makes those
 * paths fall back or rebuild instead of misreading.
 */
export interface MiniSearchInternals {
  _documentCount: number;
  _nextId: number;
  _fieldIds: Record<string, number>;
  _avgFieldLength: number[];
  _dirtCount: number;
  _index: TermTree;
  _documentIds: Map<number, unknown>;
  _idToShortId: Map<unknown, number>;
  _fieldLength: Map<number, number[]>;
  _storedFields: Map<number, unknown>;
}

/** `search`'s private fields, or undefined when they do not look like MiniSearch 7's. */
export function internalsOf(search: MiniSearch<never> | MiniSearch<object>): MiniSearchInternals | undefined {
  const internals = search as unknown as Partial<MiniSearchInternals>;
  const index = internals._index;
  const ok =
    typeof internals._documentCount === 'number' &&
    typeof internals._nextId === 'number' &&
    typeof internals._fieldIds === 'object' &&
    Array.isArray(internals._avgFieldLength) &&
    internals._documentIds instanceof Map &&
    internals._fieldLength instanceof Map &&
    index !== undefined &&
    index._tree instanceof Map &&
    typeof index.get === 'function' &&
    typeof index.has === 'function' &&
    typeof index.atPrefix === 'function' &&
    typeof index.fuzzyGet === 'function';
  return ok ? (internals as MiniSearchInternals) : undefined;
}
