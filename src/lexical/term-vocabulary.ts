import { popcount } from '../util/popcount.js';
import { stringOfCodeUnits } from '../util/code-units.js';

/** A vocabulary term within edit distance of a query word: its position in the vocabulary and the distance. */
export interface NearPosition {
  readonly position: number;
  readonly distance: number;
}

/**
 * A vocabulary as flat arrays, the form {@link TermVocabulary} searches: the terms' UTF-16 code
 * units end to end, and the positions grouped by length with each term's character set. Built
 * by {@link vocabularyTables}, from the in-memory postings or a catalog's term table.
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

/** {@link VocabularyTables} of `terms`, position `p` being `terms[p]`; O(terms + characters). */
export function vocabularyTables(terms: readonly string[]): VocabularyTables {
  let totalUnits = 0;
  for (const term of terms) totalUnits += term.length;
  const units = new Uint16Array(totalUnits);
  const starts = new Uint32Array(terms.length + 1);
  const sets = new Int32Array(terms.length);
  let at = 0;
  terms.forEach((term, position) => {
    starts[position] = at;
    let set = 0;
    for (let i = 0; i < term.length; i += 1) {
      const unit = term.charCodeAt(i);
      units[at + i] = unit;
      set |= 1 << (unit & 31);
    }
    sets[position] = set;
    at += term.length;
  });
  starts[terms.length] = at;
  return tablesOfUnits(units, starts, sets);
}

/**
 * {@link VocabularyTables} of the `terms` terms of `joined`, separated by the code unit
 * `separator`, position `p` being the `p`-th: one pass over the code units, no string per term.
 * Undefined when `joined` does not hold that many (a term holding the separator).
 */
export function vocabularyTablesOfJoined(joined: string, separator: number, terms: number): VocabularyTables | undefined {
  if (terms === 0) return joined === '' ? vocabularyTables([]) : undefined;
  if (joined.length < terms - 1) return undefined;
  const units = new Uint16Array(joined.length - (terms - 1));
  const starts = new Uint32Array(terms + 1);
  const sets = new Int32Array(terms);
  let at = 0;
  let term = 0;
  let set = 0;
  for (let i = 0; i < joined.length; i += 1) {
    const unit = joined.charCodeAt(i);
    if (unit === separator) {
      sets[term] = set;
      set = 0;
      term += 1;
      if (term === terms) return undefined;
      starts[term] = at;
    } else {
      if (at === units.length) return undefined;
      units[at] = unit;
      at += 1;
      set |= 1 << (unit & 31);
    }
  }
  if (term !== terms - 1) return undefined;
  sets[term] = set;
  starts[terms] = at;
  return tablesOfUnits(units, starts, sets);
}

/** {@link VocabularyTables} of terms already laid end to end (`units`, `starts`), with each term's {@link charSet} (`sets`), adding the by-length index. */
function tablesOfUnits(units: Uint16Array, starts: Uint32Array, sets: Int32Array): VocabularyTables {
  const terms = starts.length - 1;
  let longest = 0;
  for (let position = 0; position < terms; position += 1) longest = Math.max(longest, starts[position + 1]! - starts[position]!);
  const lengthStarts = new Uint32Array(longest + 2);
  for (let position = 0; position < terms; position += 1) {
    const length = starts[position + 1]! - starts[position]!;
    lengthStarts[length + 1] = lengthStarts[length + 1]! + 1;
  }
  for (let length = 1; length < lengthStarts.length; length += 1) lengthStarts[length] = lengthStarts[length]! + lengthStarts[length - 1]!;
  // Counting sort of the positions by length, each length in position order.
  const filled = lengthStarts.slice(0, longest + 1);
  const byLength = new Uint32Array(terms);
  const charSets = new Int32Array(terms);
  for (let position = 0; position < terms; position += 1) {
    const length = starts[position + 1]! - starts[position]!;
    const slot = filled[length]!;
    byLength[slot] = position;
    charSets[slot] = sets[position]!;
    filled[length] = slot + 1;
  }
  return { units, starts, lengthStarts, byLength, charSets };
}

/**
 * Typo-tolerant lookups over a vocabulary: every term within a Levenshtein distance of a word,
 * in vocabulary order (code-unit order, as both callers give them), so the in-memory index and
 * the SQLite tables sum scores in the same order.
 *
 * A trie walk with a Levenshtein row per edge finds every branch within reach near the root,
 * so one word costs milliseconds on a 24k-skill catalog. Here a word is
 * compared only with terms of a length within the distance whose character sets differ by at
 * most the distance each way (each edit adds or removes at most one distinct character), and the
 * few that pass get a banded edit distance over the stored code units (no strings built).
 *
 * Lookups scan every term of a length in reach until the pair index is built (at the first
 * lookup or once scans have cost about as much, per `pairIndexAfter`); then candidates come from
 * its lists of the terms holding each pair of adjacent characters near a given offset: cut into
 * `distance + 1` pieces, a word keeps at least one piece whole through `distance` edits, so a
 * term in reach holds every pair of that piece, shifted by at most `distance`, and the rarest
 * pair of each piece is enough to find it.
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

  /**
   * `pairIndexAfter`: terms compared by scans, per vocabulary term, before the pair index is
   * built (0: at the first lookup; Infinity: never).
   */
  constructor(tables: VocabularyTables, pairIndexAfter = PAIR_INDEX_COST_IN_SCANNED_TERMS) {
    this.#tables = tables;
    this.#pairIndexAfter = pairIndexAfter;
  }

  get size(): number {
    return this.#tables.starts.length - 1;
  }

  /** Builds the pair index now, for a caller that would rather pay for it together with other one-time work than in some later lookup. */
  buildPairIndex(): void {
    this.#pairs ??= new PairIndex(this.#tables);
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
    this.buildPairIndex();
    const pairs = this.#pairs!;
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

/**
 * Building the pair index costs about as much as comparing this many terms per vocabulary term
 * in scans (scripts/measure-term-lookups.ts: 11–34 at 24k skills, 30–63 at 1k, where the build
 * is a few milliseconds; docs/retrieval.md). Scans run until they have cost that much, so a
 * process that looks up a few words never builds it and one that looks up many pays at most a
 * few times the better choice.
 */
const PAIR_INDEX_COST_IN_SCANNED_TERMS = 20;

/**
 * For each pair of adjacent code units and where it starts in a term (0 to
 * {@link LAST_OFFSET}, later starts counted at {@link LAST_OFFSET}), the positions of the terms
 * holding it there; and each position's length and character set. ASCII pairs (nearly all)
 * sit in one buffer ordered by pair then start, so the starts a lookup allows are one slice;
 * the rest sit in a map.
 */
class PairIndex {
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
    // Every pair of every term twice, by length (so each list is ordered by length and a lookup
    // slices the lengths it allows): counted, then filled in. The other pairs (CJK, symbols) go
    // to the map on the first pass.
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
            const list = this.#others.get(key);
            if (list === undefined) this.#others.set(key, [position]);
            else list.push(position);
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

  /**
   * The terms holding `first` then `second` starting at an offset in `[from, to]`, of a length
   * in `[shortest, longest]` (a term may be listed twice), as one list per offset.
   */
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

/**
 * Where the `maxDistance + 1` pieces of a word of `length` units start (and, last, its length):
 * near-equal cuts, undefined when a piece would be shorter than a pair (then scan).
 */
function pieceBounds(length: number, maxDistance: number): number[] | undefined {
  const count = maxDistance + 1;
  if (length < 2 * count) return undefined;
  return Array.from({ length: count + 1 }, (_, i) => Math.floor((i * length) / count));
}

/** The first word of an encoded {@link VocabularyTables}: its format (a blob of another is not read). */
const TABLES_FORMAT = 0x76_6f_63_01;
const HEADER_WORDS = 4;

/**
 * {@link VocabularyTables} as bytes, little-endian (the machine's order; callers check it): a
 * header of four uint32s (format, terms, code units, `lengthStarts` entries), then `units`
 * (padded to whole uint32s), `starts`, `lengthStarts`, `byLength` and `charSets`.
 */
export function encodeVocabularyTables({ units, starts, lengthStarts, byLength, charSets }: VocabularyTables): Uint8Array {
  const terms = starts.length - 1;
  const unitWords = Math.ceil(units.length / 2);
  const words = new Uint32Array(HEADER_WORDS + unitWords + starts.length + lengthStarts.length + 2 * terms);
  words.set([TABLES_FORMAT, terms, units.length, lengthStarts.length]);
  let at = HEADER_WORDS;
  new Uint16Array(words.buffer, at * 4, units.length).set(units);
  at += unitWords;
  for (const array of [starts, lengthStarts, byLength, new Uint32Array(charSets.buffer, charSets.byteOffset, charSets.length)]) {
    words.set(array, at);
    at += array.length;
  }
  return new Uint8Array(words.buffer);
}

/**
 * The tables {@link encodeVocabularyTables} wrote, or undefined when `bytes` are not exactly
 * such tables: every array is checked against what {@link vocabularyTables} would build from the
 * stored terms (the by-length index and character sets are recomputed and compared), so a short,
 * corrupt or foreign blob is never trusted.
 */
export function decodeVocabularyTables(bytes: Uint8Array): VocabularyTables | undefined {
  if (bytes.byteLength < HEADER_WORDS * 4 || bytes.byteLength % 4 !== 0) return undefined;
  // Copied: a blob's bytes need not be aligned for uint32 views.
  const words = new Uint32Array(bytes.byteLength / 4);
  new Uint8Array(words.buffer).set(bytes);
  const [format, terms, unitCount, lengthStartCount] = words as unknown as [number, number, number, number];
  const unitWords = Math.ceil(unitCount / 2);
  if (format !== TABLES_FORMAT || words.length !== HEADER_WORDS + unitWords + (terms + 1) + lengthStartCount + 2 * terms) return undefined;
  let at = HEADER_WORDS;
  const units = new Uint16Array(words.buffer, at * 4, unitCount);
  at += unitWords;
  const take = (length: number): Uint32Array => {
    const array = words.subarray(at, at + length);
    at += length;
    return array;
  };
  const starts = take(terms + 1);
  const lengthStarts = take(lengthStartCount);
  const byLength = take(terms);
  const charSets = new Int32Array(words.buffer, at * 4, terms);
  if (starts[0] !== 0 || starts[terms] !== unitCount) return undefined;
  for (let position = 0; position < terms; position += 1) if (starts[position + 1]! < starts[position]!) return undefined;
  // What `tablesOfUnits` builds: each length's positions, ascending, holding terms of that length (the longest last), with their character sets.
  if (lengthStartCount < 2 || lengthStarts[0] !== 0 || lengthStarts[lengthStartCount - 1] !== terms) return undefined;
  if (terms > 0 && lengthStarts[lengthStartCount - 2] === terms) return undefined;
  for (let length = 0; length + 1 < lengthStartCount; length += 1) {
    const end = lengthStarts[length + 1]!;
    if (end < lengthStarts[length]!) return undefined;
    let previous = -1;
    for (let slot = lengthStarts[length]!; slot < end; slot += 1) {
      const position = byLength[slot]!;
      if (position <= previous || position >= terms || starts[position + 1]! - starts[position]! !== length) return undefined;
      previous = position;
      let set = 0;
      for (let i = starts[position]!, end = starts[position + 1]!; i < end; i += 1) set |= 1 << (units[i]! & 31);
      if (charSets[slot] !== set) return undefined;
    }
  }
  return { units, starts, lengthStarts, byLength, charSets };
}
