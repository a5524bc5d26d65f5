/** A vocabulary term within edit distance of a query word: its position in the vocabulary and the distance. */
export interface NearPosition {
  readonly position: number;
  readonly distance: number;
}

/**
 * A vocabulary as flat arrays, the form {@link TermVocabulary} searches: the terms' UTF-16 code
 * units end to end, and the positions grouped by length with each term's character set. Built
 * by {@link vocabularyTables}; the flat lexical file (`flat-lexical.ts`) stores them as they are.
 */
export interface VocabularyTables {
  /** Every term's code units, term after term. */
  readonly units: Uint16Array;
  /** Term `p` is `units[starts[p] .. starts[p + 1])`; length terms + 1. */
  readonly starts: Uint32Array;
  /** Positions of the terms of length `L` are `byLength[lengthStarts[L] .. lengthStarts[L + 1])`; length longest + 2. */
  readonly lengthStarts: Uint32Array;
  /** Every position, by term length, then by position. */
  readonly byLength: Uint32Array;
  /** The {@link charSet} of `byLength[i]`'s term, at `i`. */
  readonly charSets: Int32Array;
}

/** A character's bit in a term's character set; distinct characters may share a bit, which only loosens the filter. */
export const charBit = (code: number): number => 1 << (code & 31);

/** The 32-bit set of the characters (code units) of `term`. */
export function charSet(term: string): number {
  let set = 0;
  for (let i = 0; i < term.length; i += 1) set |= charBit(term.charCodeAt(i));
  return set;
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** {@link VocabularyTables} of `terms`, position `p` being `terms[p]`; O(terms + characters). */
export function vocabularyTables(terms: readonly string[]): VocabularyTables {
  let totalUnits = 0;
  let longest = 0;
  for (const term of terms) {
    totalUnits += term.length;
    if (term.length > longest) longest = term.length;
  }
  const units = new Uint16Array(totalUnits);
  const starts = new Uint32Array(terms.length + 1);
  const lengthStarts = new Uint32Array(longest + 2);
  let at = 0;
  terms.forEach((term, position) => {
    starts[position] = at;
    for (let i = 0; i < term.length; i += 1) units[at + i] = term.charCodeAt(i);
    at += term.length;
    lengthStarts[term.length + 1] = lengthStarts[term.length + 1]! + 1;
  });
  starts[terms.length] = at;
  for (let length = 1; length < lengthStarts.length; length += 1) lengthStarts[length] = lengthStarts[length]! + lengthStarts[length - 1]!;
  // Counting sort of the positions by length, each length in position order.
  const filled = lengthStarts.slice(0, longest + 1);
  const byLength = new Uint32Array(terms.length);
  const charSets = new Int32Array(terms.length);
  terms.forEach((term, position) => {
    const slot = filled[term.length]!;
    byLength[slot] = position;
    charSets[slot] = charSet(term);
    filled[term.length] = slot + 1;
  });
  return { units, starts, lengthStarts, byLength, charSets };
}

/**
 * Typo-tolerant lookups over a vocabulary: every term within a Levenshtein distance of a word,
 * in vocabulary order. With the terms in MiniSearch's depth-first tree order (as both callers
 * give them) that is exactly the terms, distances and order of MiniSearch's `fuzzyGet`, so
 * scores sum in the same order too.
 *
 * MiniSearch walks the whole radix tree with a Levenshtein row per edge; near the root every
 * branch is within reach, so one word cost milliseconds on a 24k-skill catalog. Here a word is
 * compared only with terms of a length within the distance whose character sets differ by at
 * most the distance each way (each edit adds or removes at most one distinct character), and the
 * few that pass get a banded edit distance over the stored code units (no strings built).
 */
export class TermVocabulary {
  readonly #tables: VocabularyTables;
  /** One row of the edit-distance table, grown to the longest word asked for. */
  #row = new Int32Array(32);
  #previous = new Int32Array(32);

  constructor(tables: VocabularyTables) {
    this.#tables = tables;
  }

  get size(): number {
    return this.#tables.starts.length - 1;
  }

  /** The term at `position`. */
  term(position: number): string {
    const { units, starts } = this.#tables;
    return String.fromCharCode(...units.subarray(starts[position]!, starts[position + 1]!));
  }

  /** Every term at Levenshtein distance ≤ `maxDistance` from `word` (UTF-16 code units, like MiniSearch), in vocabulary order. */
  near(word: string, maxDistance: number): NearPosition[] {
    const { lengthStarts, byLength, charSets, starts } = this.#tables;
    const wordSet = charSet(word);
    const found: NearPosition[] = [];
    const shortest = Math.max(0, word.length - maxDistance);
    const longest = Math.min(lengthStarts.length - 2, word.length + maxDistance);
    for (let length = shortest; length <= longest; length += 1) {
      const end = lengthStarts[length + 1]!;
      for (let i = lengthStarts[length]!; i < end; i += 1) {
        const set = charSets[i]!;
        if (popcount(wordSet & ~set) > maxDistance || popcount(set & ~wordSet) > maxDistance) continue;
        const position = byLength[i]!;
        const distance = this.#distance(word, starts[position]!, length, maxDistance);
        if (distance <= maxDistance) found.push({ position, distance });
      }
    }
    return found.sort((a, b) => a.position - b.position);
  }

  /** Levenshtein distance of `a` and the stored term at `from` (`length` units) when ≤ `max`, else `max + 1`; a band of ±`max` around the diagonal, stopping once a row exceeds `max`. */
  #distance(a: string, from: number, length: number, max: number): number {
    const units = this.#tables.units;
    const n = a.length;
    if (this.#row.length <= n) {
      this.#row = new Int32Array(2 * (n + 1));
      this.#previous = new Int32Array(2 * (n + 1));
    }
    let previous = this.#previous;
    let row = this.#row;
    const outside = max + 1;
    for (let j = 0; j <= n; j += 1) previous[j] = j <= max ? j : outside;
    for (let i = 1; i <= length; i += 1) {
      const lo = Math.max(1, i - max);
      const hi = Math.min(n, i + max);
      row[0] = i <= max ? i : outside;
      if (lo > 1) row[lo - 1] = outside;
      let best = row[0]!;
      const code = units[from + i - 1]!;
      for (let j = lo; j <= hi; j += 1) {
        const substitute = previous[j - 1]! + (a.charCodeAt(j - 1) === code ? 0 : 1);
        const remove = previous[j]! + 1;
        const insert = row[j - 1]! + 1;
        const cell = Math.min(substitute, remove, insert, outside);
        row[j] = cell;
        if (cell < best) best = cell;
      }
      if (hi < n) row[hi + 1] = outside;
      if (best > max) return outside;
      const swap = previous;
      previous = row;
      row = swap;
    }
    return Math.min(previous[n]!, outside);
  }
}
