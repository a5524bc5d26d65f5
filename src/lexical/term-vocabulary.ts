import type { RadixNode, TermPostings } from './minisearch-internals.js';

/** An indexed term within edit distance of a query word. */
export interface NearTerm {
  readonly term: string;
  readonly postings: TermPostings;
  readonly distance: number;
}

/** Terms of one length: their positions in the vocabulary and a 32-bit set of the characters each holds. */
interface LengthBucket {
  readonly positions: Int32Array;
  readonly charSets: Int32Array;
}

/** A character's bit in a term's character set; distinct characters may share a bit, which only loosens the filter. */
const charBit = (code: number): number => 1 << (code & 31);

function charSet(term: string): number {
  let set = 0;
  for (let i = 0; i < term.length; i += 1) set |= charBit(term.charCodeAt(i));
  return set;
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * The lexical index's vocabulary as a flat list, for typo-tolerant lookups: every indexed term
 * within a Levenshtein distance of a word, exactly the terms and distances MiniSearch's
 * `fuzzyGet` finds, in the same order (its depth-first walk of the term tree), so scores sum in
 * the same order too.
 *
 * MiniSearch walks the whole radix tree with a Levenshtein row per edge; near the root every
 * branch is within reach, so one word cost milliseconds on a 24k-skill catalog. Here a word is
 * compared only with terms of a length within the distance whose character sets differ by at
 * most the distance each way (each edit adds or removes at most one distinct character), and the
 * few that pass get a banded edit distance. Built from the tree in one walk (O(terms)) and
 * rebuilt when the index changes.
 */
export class TermVocabulary {
  readonly #terms: string[] = [];
  readonly #postings: TermPostings[] = [];
  readonly #byLength = new Map<number, LengthBucket>();
  /** One row of the edit-distance table, grown to the longest word asked for. */
  #row = new Int32Array(32);
  #previous = new Int32Array(32);

  /** The terms of `tree` in MiniSearch's depth-first order (a node's keys in insertion order, its own term where its `''` key sits). */
  constructor(tree: RadixNode) {
    const sets: number[] = [];
    const walk = (node: RadixNode, prefix: string, prefixSet: number): void => {
      node.forEach((child, key) => {
        if (key === '') {
          this.#terms.push(prefix);
          this.#postings.push(child as TermPostings);
          sets.push(prefixSet);
        } else walk(child as RadixNode, prefix + key, prefixSet | charSet(key));
      });
    };
    walk(tree, '', 0);
    // Counting sort of the positions by term length, each bucket in vocabulary order.
    const counts = new Map<number, number>();
    for (const term of this.#terms) counts.set(term.length, (counts.get(term.length) ?? 0) + 1);
    for (const [length, count] of counts) this.#byLength.set(length, { positions: new Int32Array(count), charSets: new Int32Array(count) });
    const filled = new Map<number, number>();
    this.#terms.forEach((term, position) => {
      const bucket = this.#byLength.get(term.length)!;
      const at = filled.get(term.length) ?? 0;
      bucket.positions[at] = position;
      bucket.charSets[at] = sets[position]!;
      filled.set(term.length, at + 1);
    });
  }

  get size(): number {
    return this.#terms.length;
  }

  /** Every term at Levenshtein distance ≤ `maxDistance` from `word` (UTF-16 code units, like MiniSearch), in vocabulary order. */
  near(word: string, maxDistance: number): NearTerm[] {
    const wordSet = charSet(word);
    const found: number[] = [];
    const distances = new Map<number, number>();
    for (let length = Math.max(0, word.length - maxDistance); length <= word.length + maxDistance; length += 1) {
      const bucket = this.#byLength.get(length);
      if (bucket === undefined) continue;
      const { positions, charSets } = bucket;
      for (let i = 0; i < positions.length; i += 1) {
        const set = charSets[i]!;
        if (popcount(wordSet & ~set) > maxDistance || popcount(set & ~wordSet) > maxDistance) continue;
        const position = positions[i]!;
        const distance = this.#distance(word, this.#terms[position]!, maxDistance);
        if (distance <= maxDistance) {
          found.push(position);
          distances.set(position, distance);
        }
      }
    }
    found.sort((a, b) => a - b);
    return found.map((position) => ({ term: this.#terms[position]!, postings: this.#postings[position]!, distance: distances.get(position)! }));
  }

  /** Levenshtein distance of `a` and `b` when ≤ `max`, else `max + 1`; a band of ±`max` around the diagonal, stopping once a row exceeds `max`. */
  #distance(a: string, b: string, max: number): number {
    const n = a.length;
    if (this.#row.length <= n) {
      this.#row = new Int32Array(2 * (n + 1));
      this.#previous = new Int32Array(2 * (n + 1));
    }
    let previous = this.#previous;
    let row = this.#row;
    const outside = max + 1;
    for (let j = 0; j <= n; j += 1) previous[j] = j <= max ? j : outside;
    for (let i = 1; i <= b.length; i += 1) {
      const from = Math.max(1, i - max);
      const to = Math.min(n, i + max);
      row[0] = i <= max ? i : outside;
      if (from > 1) row[from - 1] = outside;
      let best = row[0]!;
      const code = b.charCodeAt(i - 1);
      for (let j = from; j <= to; j += 1) {
        const substitute = previous[j - 1]! + (a.charCodeAt(j - 1) === code ? 0 : 1);
        const remove = previous[j]! + 1;
        const insert = row[j - 1]! + 1;
        const cell = Math.min(substitute, remove, insert, outside);
        row[j] = cell;
        if (cell < best) best = cell;
      }
      if (to < n) row[to + 1] = outside;
      if (best > max) return outside;
      const swap = previous;
      previous = row;
      row = swap;
    }
    return Math.min(previous[n]!, outside);
  }
}
