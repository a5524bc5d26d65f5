/** Which vocabulary terms hold a pair of adjacent characters near an offset: the candidates of a typo lookup once scans cost more. */
import { getOrAdd } from '../util/get-or-add.js';
import type { VocabularyTables } from './vocabulary-tables.js';

/**
 * For each pair of adjacent code units and where it starts in a term (up to {@link LAST_OFFSET}),
 * the positions of the terms holding it there, by length; and each position's length and
 * character set. ASCII pairs sit in one buffer ordered by pair then start, the rest in a map.
 */
export class PairIndex {
  readonly lengths: Uint16Array;
  readonly charSets: Int32Array;
  /** Key `(first · 128 + second) · OFFSETS + offset` lists `ascii[asciiStarts[key] .. asciiStarts[key + 1])`. */
  readonly #asciiStarts = new Uint32Array(ASCII_PAIRS * OFFSETS + 1);
  readonly #ascii: Uint32Array;
  readonly #others = new Map<number, number[]>();

  constructor({ units, starts, byLength, charSets }: VocabularyTables) {
    const terms = starts.length - 1;
    this.lengths = new Uint16Array(terms);
    this.charSets = new Int32Array(terms);
    // The tables hold the character sets by length order; here they are wanted by position.
    for (let slot = 0; slot < terms; slot += 1) {
      const position = byLength[slot]!;
      this.lengths[position] = starts[position + 1]! - starts[position]!;
      this.charSets[position] = charSets[slot]!;
    }
    // Every ASCII pair of every term, by length: counted, then filled in; the others go to the map on the first pass.
    const asciiStarts = this.#asciiStarts;
    let ascii = new Uint32Array(0);
    let next = new Uint32Array(0);
    for (const filling of [false, true]) {
      for (let slot = 0; slot < terms; slot += 1) {
        const position = byLength[slot]!;
        const from = starts[position]!;
        for (let at = from; at + 1 < starts[position + 1]!; at += 1) {
          const first = units[at]!;
          const second = units[at + 1]!;
          const offset = Math.min(at - from, LAST_OFFSET);
          if (first < ASCII && second < ASCII) {
            const key = (first * ASCII + second) * OFFSETS + offset;
            if (!filling) asciiStarts[key + 1] = asciiStarts[key + 1]! + 1;
            else {
              ascii[next[key]!] = position;
              next[key] = next[key]! + 1;
            }
          } else if (!filling) {
            const key = (first * 0x10000 + second) * OFFSETS + offset;
            getOrAdd(this.#others, key, () => []).push(position);
          }
        }
      }
      if (!filling) {
        for (let key = 1; key < asciiStarts.length; key += 1) asciiStarts[key] = asciiStarts[key]! + asciiStarts[key - 1]!;
        ascii = new Uint32Array(asciiStarts[asciiStarts.length - 1]!);
        next = asciiStarts.slice(0, -1);
      }
    }
    this.#ascii = ascii;
  }

  /** The terms holding `first` then `second` at an offset in `[from, to]`, of a length in `[shortest, longest]`, one list per offset (a term may be listed twice). */
  lists(first: number, second: number, from: number, to: number, shortest: number, longest: number): ArrayLike<number>[] {
    const low = Math.min(from, LAST_OFFSET);
    const high = Math.min(to, LAST_OFFSET);
    const found: ArrayLike<number>[] = [];
    for (let offset = low; offset <= high; offset += 1) {
      if (first < ASCII && second < ASCII) {
        const key = (first * ASCII + second) * OFFSETS + offset;
        const end = this.#asciiStarts[key + 1]!;
        const start = this.#firstOfLength(this.#ascii, this.#asciiStarts[key]!, end, shortest);
        const stop = this.#firstOfLength(this.#ascii, start, end, longest + 1);
        if (stop > start) found.push(this.#ascii.subarray(start, stop));
      } else {
        const list = this.#others.get((first * 0x10000 + second) * OFFSETS + offset);
        if (list === undefined) continue;
        const start = this.#firstOfLength(list, 0, list.length, shortest);
        const stop = this.#firstOfLength(list, start, list.length, longest + 1);
        if (stop > start) found.push(list.slice(start, stop));
      }
    }
    return found;
  }

  /** The first index in `[from, to)` of `list` (ordered by length) whose term is at least `length` long. */
  #firstOfLength(list: ArrayLike<number>, from: number, to: number, length: number): number {
    let low = from;
    let high = to;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.lengths[list[middle]!]! < length) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

/** Code units below this (ASCII, nearly every term's) have their pairs in a direct table. */
const ASCII = 128;
const ASCII_PAIRS = ASCII * ASCII;
/** Pair starts told apart by {@link PairIndex}; a pair starting at this offset or later counts as starting here. */
const LAST_OFFSET = 7;
const OFFSETS = LAST_OFFSET + 1;
