import type { MiniSearchInternals, RadixNode, TermPostings } from './minisearch-internals.js';
import type { FieldPostings, NearTerm, PostingsSource } from './postings-source.js';
import { tablesOfUnits, TermVocabulary, type VocabularyTables } from './term-vocabulary.js';

/** The terms of `tree` in MiniSearch's depth-first order (a node's keys in insertion order, its own term where its `''` key sits), as `fuzzyGet` lists them. */
export function treeTerms(tree: RadixNode): { terms: string[]; postings: TermPostings[] } {
  const terms: string[] = [];
  const postings: TermPostings[] = [];
  eachTerm(tree, '', (term, byField) => {
    terms.push(term);
    postings.push(byField);
  });
  return { terms, postings };
}

/** Calls `visit` with each term under `node` (spelled `path` so far) and its postings, in {@link treeTerms}' order. */
function eachTerm(node: RadixNode, path: string, visit: (term: string, postings: TermPostings) => void): void {
  node.forEach((child, key) => {
    if (key === '') visit(path, child as TermPostings);
    else eachTerm(child as RadixNode, path + key, visit);
  });
}

/**
 * The terms of `tree` as {@link VocabularyTables}, in {@link treeTerms}' order, with their
 * postings: one walk that copies each term's code units from the path into place, building no
 * strings. A depth-first walk lists the terms below any node together, so it also records each
 * node's span of positions ({@link spanOf}): the terms a prefix starts, without walking the tree.
 */
export function treeVocabulary(tree: RadixNode): { tables: VocabularyTables; postings: TermPostings[]; spans: Map<RadixNode, number> } {
  let units = new Uint16Array(1 << 16);
  const starts: number[] = [];
  const postings: TermPostings[] = [];
  const spans = new Map<RadixNode, number>();
  let path = new Uint16Array(64);
  let used = 0;
  const walk = (node: RadixNode, depth: number): void => {
    const first = starts.length;
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
    if (starts.length - first >= SPAN_MIN_TERMS) spans.set(node, first * SPAN_BASE + (starts.length - first));
  };
  walk(tree, 0);
  starts.push(used);
  return { tables: tablesOfUnits(units.slice(0, used), Uint32Array.from(starts)), postings, spans };
}

/** Spans are packed as `first · SPAN_BASE + count` (exact in a double for up to 2^26 terms). */
const SPAN_BASE = 2 ** 26;
/** Only nodes with at least this many terms below get a span; smaller subtrees are walked. */
const SPAN_MIN_TERMS = 16;

/** A node's terms as positions `first … first + count − 1` of {@link treeVocabulary}'s tables, when it has a span. */
function spanOf(spans: ReadonlyMap<RadixNode, number>, node: RadixNode): { first: number; count: number } | undefined {
  const packed = spans.get(node);
  return packed === undefined ? undefined : { first: Math.floor(packed / SPAN_BASE), count: packed % SPAN_BASE };
}

/** Nodes with at most this many edges are scanned rather than indexed. */
const EDGES_SCANNED = 8;

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
  #vocabulary: { readonly lookup: TermVocabulary; readonly postings: TermPostings[]; readonly spans: ReadonlyMap<RadixNode, number> } | undefined;
  /** {@link #edgeStartingWith}'s indexes of the nodes with many edges. */
  readonly #edgeIndex = new Map<RadixNode, Map<number, string>>();

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
    const { node, spelled } = this.#descend(term);
    return spelled === term.length ? (node.get('') as TermPostings | undefined) : undefined;
  }

  /**
   * {@link PostingsSource.prefixed} from the vocabulary: the span of the node `prefix` leads to,
   * last position first (MiniSearch's `TreeIterator` takes each node's keys last to first, the
   * reverse of the walk that numbered them), so no part of the tree is walked; a subtree too small
   * to have a span is walked and its terms reversed.
   */
  prefixed(prefix: string): Iterable<readonly [string, TermPostings]> {
    let { node, spelled } = this.#descend(prefix);
    let path = prefix;
    if (spelled < prefix.length) {
      // `prefix` ends inside an edge, or leaves the tree: the terms below that edge, or none.
      const key = this.#edgeStartingWith(node, prefix.charCodeAt(spelled));
      if (key === undefined || !key.startsWith(prefix.slice(spelled))) return [];
      node = node.get(key) as RadixNode;
      path = prefix.slice(0, spelled) + key;
    }
    const { lookup, postings, spans } = this.#vocabularyOf();
    const span = spanOf(spans, node);
    const found: [string, TermPostings][] = [];
    if (span === undefined) {
      eachTerm(node, path, (term, byField) => found.push([term, byField]));
      return found.reverse();
    }
    for (let position = span.first + span.count - 1; position >= span.first; position -= 1) found.push([lookup.term(position), postings[position]!]);
    return found;
  }

  /** The deepest node that whole edges spelling the start of `word` lead to, and how many of its code units they spell. */
  #descend(word: string): { node: RadixNode; spelled: number } {
    let node = this.#index._index._tree;
    let spelled = 0;
    while (spelled < word.length) {
      const key = this.#edgeStartingWith(node, word.charCodeAt(spelled));
      if (key === undefined || !word.startsWith(key, spelled)) break;
      node = node.get(key) as RadixNode;
      spelled += key.length;
    }
    return { node, spelled };
  }

  /**
   * The label of `node`'s edge that starts with code unit `first` (a radix tree's edges never
   * share one), or undefined. A node with many edges (the root holds one per first character of
   * the catalog's terms, about 2,000 at 24k skills with CJK text) gets an index of them at its
   * first visit, so a lookup does not scan them all.
   */
  #edgeStartingWith(node: RadixNode, first: number): string | undefined {
    if (node.size <= EDGES_SCANNED) {
      for (const key of node.keys()) if (key.charCodeAt(0) === first) return key;
      return undefined;
    }
    let byFirst = this.#edgeIndex.get(node);
    if (byFirst === undefined) {
      byFirst = new Map();
      for (const key of node.keys()) if (key !== '') byFirst.set(key.charCodeAt(0), key);
      this.#edgeIndex.set(node, byFirst);
    }
    return byFirst.get(first);
  }

  /**
   * Typo lookups go through the flat {@link TermVocabulary}, which builds its pair index at the
   * first one: the walk that builds the vocabulary costs about what one of MiniSearch's `fuzzyGet`
   * walks does on a large catalog, the pair index adds a third to that, and every lookup after is
   * far cheaper. (A search snapshot's flat index, opened by one-shot processes, scans first instead.)
   */
  near(word: string, maxDistance: number): NearTerm<TermPostings>[] {
    const { lookup, postings } = this.#vocabularyOf();
    return lookup.near(word, maxDistance).map(({ position, distance }) => ({ term: lookup.term(position), handle: postings[position]!, distance }));
  }

  /**
   * The terms as flat tables, with their postings and the nodes' spans: one walk of the tree, at
   * the first prefix or typo lookup, with the pair index built alongside, so the one-time work
   * after a change lands in one query rather than in two.
   */
  #vocabularyOf(): { readonly lookup: TermVocabulary; readonly postings: TermPostings[]; readonly spans: ReadonlyMap<RadixNode, number> } {
    if (this.#vocabulary === undefined) {
      const { tables, postings, spans } = treeVocabulary(this.#index._index._tree);
      const lookup = new TermVocabulary(tables, 0);
      lookup.buildPairIndex();
      this.#vocabulary = { lookup, postings, spans };
    }
    return this.#vocabulary;
  }

  postings(term: TermPostings, field: number): FieldPostings | undefined {
    return term.get(field);
  }
}
