import type { MiniSearchInternals, RadixNode, TermPostings } from './minisearch-internals.js';
import type { FieldPostings, NearTerm, PostingsSource } from './postings-source.js';
import { tablesOfUnits, TermVocabulary, type VocabularyTables } from './term-vocabulary.js';

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
 * The terms of `tree` as {@link VocabularyTables}, in {@link treeTerms}' order, with their
 * postings: one walk that copies each term's code units from the path into place, building no
 * strings.
 */
export function treeVocabulary(tree: RadixNode): { tables: VocabularyTables; postings: TermPostings[] } {
  let units = new Uint16Array(1 << 16);
  const starts: number[] = [];
  const postings: TermPostings[] = [];
  let path = new Uint16Array(64);
  let used = 0;
  const walk = (node: RadixNode, depth: number): void => {
    node.forEach((child, key) => {
      if (key === '') {
        if (used + depth > units.length) units = grown(units, used + depth);
        units.set(path.subarray(0, depth), used);
        starts.push(used);
        used += depth;
        postings.push(child as TermPostings);
        return;
      }
      if (depth + key.length > path.length) path = grown(path, depth + key.length);
      for (let i = 0; i < key.length; i += 1) path[depth + i] = key.charCodeAt(i);
      walk(child as RadixNode, depth + key.length);
    });
  };
  walk(tree, 0);
  starts.push(used);
  return { tables: tablesOfUnits(units.slice(0, used), Uint32Array.from(starts)), postings };
}

/** `buffer`'s contents in a buffer at least twice as long, and long enough for `length`. */
function grown(buffer: Uint16Array<ArrayBuffer>, length: number): Uint16Array<ArrayBuffer> {
  const larger = new Uint16Array(Math.max(2 * buffer.length, length));
  larger.set(buffer);
  return larger;
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
  #vocabulary: { readonly lookup: TermVocabulary; readonly postings: TermPostings[] } | undefined;

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
   * Typo lookups go through a flat {@link TermVocabulary}, built with its pair index at the first
   * one: a walk of the whole term tree costs about what one of MiniSearch's `fuzzyGet` walks does
   * on a large catalog, the pair index adds a third to that, and every lookup after is far
   * cheaper. (A search snapshot's flat index, opened by one-shot processes, scans first instead.)
   */
  near(word: string, maxDistance: number): NearTerm<TermPostings>[] {
    if (this.#vocabulary === undefined) {
      const { tables, postings } = treeVocabulary(this.#index._index._tree);
      this.#vocabulary = { lookup: new TermVocabulary(tables, 0), postings };
    }
    const { lookup, postings } = this.#vocabulary;
    return lookup.near(word, maxDistance).map(({ position, distance }) => ({ term: lookup.term(position), handle: postings[position]!, distance }));
  }

  postings(term: TermPostings, field: number): FieldPostings | undefined {
    return term.get(field);
  }
}
