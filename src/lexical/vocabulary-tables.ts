/** A vocabulary as flat arrays, the form `TermVocabulary` searches (and the store keeps as one row, encoded below): the terms' UTF-16 code units end to end, and the positions grouped by length with each term's character set. */
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

/** The 32-bit set of the characters (code units) of `term`, bit `code & 31` each (sharing a bit only loosens the filter). */
export function charSet(term: string): number {
  let set = 0;
  for (let i = 0; i < term.length; i += 1) set |= 1 << (term.charCodeAt(i) & 31);
  return set;
}

/** {@link VocabularyTables} of `terms`, position `p` being `terms[p]`; O(terms + characters). */
export function vocabularyTables(terms: readonly string[]): VocabularyTables {
  const starts = new Uint32Array(terms.length + 1);
  terms.forEach((term, position) => {
    starts[position + 1] = starts[position]! + term.length;
  });
  const units = new Uint16Array(starts[terms.length]!);
  terms.forEach((term, position) => {
    for (let i = 0; i < term.length; i += 1) units[starts[position]! + i] = term.charCodeAt(i);
  });
  return tablesOfUnits(units, starts);
}

/** {@link VocabularyTables} of terms already laid end to end (`units`, `starts`), adding the by-length index and each term's {@link charSet}. */
function tablesOfUnits(units: Uint16Array, starts: Uint32Array): VocabularyTables {
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
    let set = 0;
    for (let i = starts[position]!; i < starts[position + 1]!; i += 1) set |= 1 << (units[i]! & 31);
    charSets[slot] = set;
    filled[length] = slot + 1;
  }
  return { units, starts, lengthStarts, byLength, charSets };
}

/** The first word of an encoded {@link VocabularyTables}: its format (a blob of another is not read). */
const TABLES_FORMAT = 0x76_6f_63_02;
const HEADER_WORDS = 3;

/**
 * {@link VocabularyTables} as bytes in the machine's order (callers check it is little-endian): a
 * header of three uint32s (format, terms, code units), then `units` (padded to whole uint32s) and
 * `starts`; the by-length index and character sets are derived again on decoding.
 */
export function encodeVocabularyTables({ units, starts }: VocabularyTables): Uint8Array {
  const unitWords = Math.ceil(units.length / 2);
  const words = new Uint32Array(HEADER_WORDS + unitWords + starts.length);
  words.set([TABLES_FORMAT, starts.length - 1, units.length]);
  new Uint16Array(words.buffer, HEADER_WORDS * 4, units.length).set(units);
  words.set(starts, HEADER_WORDS + unitWords);
  return new Uint8Array(words.buffer);
}

/** The tables {@link encodeVocabularyTables} wrote, or undefined when `bytes` are not such a blob of well-formed terms. */
export function decodeVocabularyTables(bytes: Uint8Array): VocabularyTables | undefined {
  if (bytes.byteLength < HEADER_WORDS * 4 || bytes.byteLength % 4 !== 0) return undefined;
  // Copied: a blob's bytes need not be aligned for uint32 views.
  const words = new Uint32Array(bytes.byteLength / 4);
  new Uint8Array(words.buffer).set(bytes);
  const [format, terms, unitCount] = words as unknown as [number, number, number];
  const unitWords = Math.ceil(unitCount / 2);
  if (format !== TABLES_FORMAT || words.length !== HEADER_WORDS + unitWords + terms + 1) return undefined;
  const units = new Uint16Array(words.buffer, HEADER_WORDS * 4, unitCount);
  const starts = words.subarray(HEADER_WORDS + unitWords);
  if (starts[0] !== 0 || starts[terms] !== unitCount) return undefined;
  for (let position = 0; position < terms; position += 1) if (starts[position + 1]! < starts[position]!) return undefined;
  return tablesOfUnits(units, starts);
}
