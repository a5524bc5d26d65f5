/**
 * A sorted vocabulary as a cursor: what {@link nearSorted} needs of it. Any order in which the
 * terms sharing a prefix sit together works (JavaScript's code-unit order, SQLite's byte order).
 */
export interface SortedTerms {
  /** The first term strictly after `term` (after every term when `term` is undefined), or undefined. */
  after(term: string | undefined): string | undefined;
  /** The first term that is after `prefix` and does not start with it, or undefined. */
  past(prefix: string): string | undefined;
}

/** A term within edit distance of a word. */
export interface NearWord {
  readonly term: string;
  readonly distance: number;
}

/**
 * Every term of `terms` at Levenshtein distance ≤ `maxDistance` from `word` (in UTF-16 code
 * units), in the vocabulary's order. A walk over the sorted terms that reuses the edit-distance
 * rows of the prefix a term shares with the one before, and skips every term under a prefix
 * whose row minimum already exceeds the distance (no extension of it can come back in reach):
 * a trie walk without a trie, so it works over a cursor such as an SQL index.
 */
export function nearSorted(word: string, maxDistance: number, terms: SortedTerms): NearWord[] {
  const width = word.length + 1;
  let rows = new Int32Array(width * 32);
  for (let i = 0; i < width; i += 1) rows[i] = i;
  const found: NearWord[] = [];
  /** Rows `0 … valid` hold the edit distances of `previous`'s first `valid` code units. */
  let previous = '';
  let valid = 0;
  let term = terms.after(undefined);
  while (term !== undefined) {
    let depth = 0;
    const shared = Math.min(valid, term.length);
    while (depth < shared && term.charCodeAt(depth) === previous.charCodeAt(depth)) depth += 1;
    if ((term.length + 1) * width > rows.length) {
      const larger = new Int32Array(Math.max(2 * rows.length, (term.length + 1) * width));
      larger.set(rows);
      rows = larger;
    }
    let dead = -1;
    for (; depth < term.length; depth += 1) {
      const code = term.charCodeAt(depth);
      const above = depth * width;
      const here = above + width;
      rows[here] = depth + 1;
      let least = depth + 1;
      for (let i = 1; i < width; i += 1) {
        const cost = word.charCodeAt(i - 1) === code ? 0 : 1;
        const value = Math.min(rows[above + i - 1]! + cost, rows[above + i]! + 1, rows[here + i - 1]! + 1);
        rows[here + i] = value;
        if (value < least) least = value;
      }
      if (least > maxDistance) {
        dead = depth + 1;
        break;
      }
    }
    previous = term;
    if (dead > 0) {
      // Rows up to `dead − 1` code units stay valid for the next term; nothing under this prefix can be in reach.
      valid = dead - 1;
      const prefix = term.slice(0, dead);
      // A prefix ending inside a surrogate pair cannot be compared reliably by every cursor: step instead.
      const split = (prefix.charCodeAt(dead - 1) & 0xfc00) === 0xd800;
      term = split ? terms.after(term) : terms.past(prefix);
      continue;
    }
    valid = term.length;
    const distance = rows[term.length * width + word.length]!;
    if (distance <= maxDistance) found.push({ term, distance });
    term = terms.after(term);
  }
  return found;
}

/** {@link SortedTerms} over an array in JavaScript's string order (binary search). */
export function sortedArrayTerms(sorted: readonly string[]): SortedTerms {
  /** The first index whose term is not below `word` (`skipPrefixed`: nor starts with it); `strict`: not equal either. */
  const bound = (word: string, strict: boolean, skipPrefixed: boolean): number => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const term = sorted[mid]!;
      if (term < word || (strict && term === word) || (skipPrefixed && term.startsWith(word))) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return {
    after: (term) => sorted[term === undefined ? 0 : bound(term, true, false)],
    past: (prefix) => sorted[bound(prefix, true, true)],
  };
}
