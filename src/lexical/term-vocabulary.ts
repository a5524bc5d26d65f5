import { popcount } from '../util/popcount.js';
import { stringOfCodeUnits } from '../util/code-units.js';
import { PairIndex } from './pair-index.js';
import { charSet, type VocabularyTables } from './vocabulary-tables.js';

/** A vocabulary term within edit distance of a query word: its position in the vocabulary and the distance. */
export interface NearPosition {
  readonly position: number;
  readonly distance: number;
}

/**
 * Typo-tolerant lookups: every term within a Levenshtein distance of a word, in vocabulary order,
 * so the in-memory index and the SQLite tables sum scores in the same order. The candidates (terms
 * whose length and character set are in reach) come from a scan or, once scans have cost about
 * what building it does, from the pair index (docs/retrieval.md, "Typo matches").
 */
export class TermVocabulary {
  readonly #tables: VocabularyTables;
  /** One row of the edit-distance table, grown to the longest word asked for. */
  #row = new Int32Array(32);
  #previous = new Int32Array(32);

  /** Lookups answered so far (each one's mark in {@link #seen}). */
  #lookups = 0;
  /** Terms compared by scans so far: the pair index is built once they cost about what building it does. */
  #scanned = 0;
  #pairs: PairIndex | undefined;
  /** Per position, the last lookup that listed it as a candidate (pieces' lists overlap). */
  #seen = new Uint32Array(0);

  readonly #pairIndexAfter: number;

  /** `pairIndexAfter`: terms compared by scans, per vocabulary term, before the pair index is built (0: at the first lookup; Infinity: never). */
  constructor(tables: VocabularyTables, pairIndexAfter = PAIR_INDEX_COST_IN_SCANNED_TERMS) {
    this.#tables = tables;
    this.#pairIndexAfter = pairIndexAfter;
  }

  get size(): number {
    return this.#tables.starts.length - 1;
  }

  /** The term at `position`. */
  term(position: number): string {
    const { units, starts } = this.#tables;
    return stringOfCodeUnits(units.subarray(starts[position]!, starts[position + 1]!));
  }

  /** Every term at Levenshtein distance ≤ `maxDistance` from `word` (UTF-16 code units, like MiniSearch), in vocabulary order. */
  near(word: string, maxDistance: number): NearPosition[] {
    this.#lookups += 1;
    const pieces = pieceBounds(word.length, maxDistance);
    if (pieces !== undefined && (this.#pairs !== undefined || this.#scanned >= this.#pairIndexAfter * this.size)) {
      return this.#nearByPairs(word, maxDistance, pieces);
    }
    return this.#nearByScan(word, maxDistance);
  }

  #nearByScan(word: string, maxDistance: number): NearPosition[] {
    const { lengthStarts, byLength, charSets, starts } = this.#tables;
    const wordSet = charSet(word);
    const found: NearPosition[] = [];
    const shortest = Math.max(0, word.length - maxDistance);
    const longest = Math.min(lengthStarts.length - 2, word.length + maxDistance);
    this.#scanned += lengthStarts[longest + 1]! - lengthStarts[shortest]!;
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

  /** {@link near} over the candidates the pair index gives: the terms holding the rarest pair of some piece of `word`. */
  #nearByPairs(word: string, maxDistance: number, pieces: readonly number[]): NearPosition[] {
    this.#pairs ??= new PairIndex(this.#tables);
    const pairs = this.#pairs;
    const { lengths, charSets } = pairs;
    const { starts } = this.#tables;
    if (this.#seen.length !== lengths.length) this.#seen = new Uint32Array(lengths.length);
    const seen = this.#seen;
    const mark = this.#lookups;
    const wordSet = charSet(word);
    const found: NearPosition[] = [];
    const shortest = word.length - maxDistance;
    const longest = word.length + maxDistance;
    for (let piece = 0; piece + 1 < pieces.length; piece += 1) {
      // The piece kept whole starts in the term within `maxDistance` of where it starts in the word.
      let rarest: ArrayLike<number>[] | undefined;
      let rarestSize = 0;
      for (let at = pieces[piece]!; at + 1 < pieces[piece + 1]!; at += 1) {
        const lists = pairs.lists(word.charCodeAt(at), word.charCodeAt(at + 1), Math.max(0, at - maxDistance), at + maxDistance, shortest, longest);
        const size = lists.reduce((sum, list) => sum + list.length, 0);
        if (rarest === undefined || size < rarestSize) {
          rarest = lists;
          rarestSize = size;
        }
      }
      const from = pieces[piece]!;
      const to = pieces[piece + 1]!;
      for (const list of rarest ?? []) {
        for (let i = 0; i < list.length; i += 1) {
          const position = list[i]!;
          if (seen[position] === mark) continue;
          // Out of reach by its characters whatever the piece: not a candidate of any piece.
          const set = charSets[position]!;
          if (popcount(wordSet & ~set) > maxDistance || popcount(set & ~wordSet) > maxDistance) {
            seen[position] = mark;
            continue;
          }
          const length = lengths[position]!;
          // Holding one pair of the piece is not enough: the whole piece must be there.
          if (!this.#holdsPiece(word, from, to, starts[position]!, length, maxDistance)) continue;
          seen[position] = mark;
          const distance = this.#distance(word, starts[position]!, length, maxDistance);
          if (distance <= maxDistance) found.push({ position, distance });
        }
      }
    }
    return found.sort((a, b) => a.position - b.position);
  }

  /** True when the stored term at `start` (`length` units) holds `word[from, to)` at an offset within `maxDistance` of `from`. */
  #holdsPiece(word: string, from: number, to: number, start: number, length: number, maxDistance: number): boolean {
    const units = this.#tables.units;
    const last = Math.min(from + maxDistance, length - (to - from));
    for (let offset = Math.max(0, from - maxDistance); offset <= last; offset += 1) {
      let at = 0;
      while (at < to - from && units[start + offset + at] === word.charCodeAt(from + at)) at += 1;
      if (at === to - from) return true;
    }
    return false;
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

/** Building the pair index costs about as much as scans comparing this many terms per vocabulary term (scripts/measure-term-lookups.ts, docs/retrieval.md). */
const PAIR_INDEX_COST_IN_SCANNED_TERMS = 20;

/**
 * Where the `maxDistance + 1` pieces of a word of `length` units start (and, last, its length):
 * near-equal cuts, undefined when a piece would be shorter than a pair (then scan).
 */
function pieceBounds(length: number, maxDistance: number): number[] | undefined {
  const count = maxDistance + 1;
  if (length < 2 * count) return undefined;
  return Array.from({ length: count + 1 }, (_, i) => Math.floor((i * length) / count));
}
