/** A vocabulary as flat arrays, the form `TermVocabulary` searches: the terms' UTF-16 code units end to end, and the positions grouped by length with each term's character set. */
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

/** {@link VocabularyTables} of the `terms` terms of `joined`, separated by the code unit `separator`, in one pass; undefined when `joined` does not hold that many. */
export function vocabularyTablesOfJoined(joined: string, separator: number, terms: number): VocabularyTables | undefined {
  if (terms === 0) return joined === '' ? vocabularyTables([]) : undefined;
  if (joined.length < terms - 1) return undefined;
  const units = new Uint16Array(joined.length - (terms - 1));
  const starts = new Uint32Array(terms + 1);
  let at = 0;
  let term = 0;
  for (let i = 0; i < joined.length; i += 1) {
    const unit = joined.charCodeAt(i);
    if (unit === separator) {
      term += 1;
      if (term === terms) return undefined;
      starts[term] = at;
    } else {
      if (at === units.length) return undefined;
      units[at] = unit;
      at += 1;
    }
  }
  if (term !== terms - 1) return undefined;
  starts[terms] = at;
  return tablesOfUnits(units, starts);
}

/** {@link VocabularyTables} of terms already laid end to end (`units`, `starts`), adding the by-length index and each term's {@link charSet}. */
export function tablesOfUnits(units: Uint16Array, starts: Uint32Array): VocabularyTables {
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
