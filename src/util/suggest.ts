/** "Did you mean" without imports, so the CLI's argument parser can use it on its cold path. */

const MAX_SUGGESTIONS = 3;
const MAX_SUGGESTION_DISTANCE = 8;
/** A requested name longer than this is compared by containment only. */
const MAX_SUGGESTION_QUERY_CHARS = 256;

/**
 * Names within an edit distance of a third of `requested`'s length (2 to 8), or containing it or
 * contained in it; closest first, ties in catalog order. At most O(names × |name| × 17).
 */
export function suggestNames(requested: string, names: readonly string[]): string[] {
  const query = requested.toLowerCase();
  if (query === '') return [];
  const limit = Math.min(MAX_SUGGESTION_DISTANCE, Math.max(2, Math.floor(query.length / 3)));
  const compare = query.length <= MAX_SUGGESTION_QUERY_CHARS;
  const scored: { name: string; distance: number; index: number }[] = [];
  names.forEach((name, index) => {
    const candidate = name.toLowerCase();
    const distance = compare ? boundedEditDistance(query, candidate, limit) : limit + 1;
    const contains = candidate.includes(query) || (query.length >= 3 && query.includes(candidate));
    if (distance <= limit || contains) scored.push({ name, distance: contains ? Math.min(distance, limit) : distance, index });
  });
  scored.sort((a, b) => a.distance - b.distance || a.index - b.index);
  return scored.slice(0, MAX_SUGGESTIONS).map((entry) => entry.name);
}

/** Levenshtein distance with adjacent transpositions, or `limit + 1` once it must exceed `limit`, in a band: O(|a|·limit) time. */
function boundedEditDistance(a: string, b: string, limit: number): number {
  const over = limit + 1;
  if (Math.abs(a.length - b.length) > limit) return over;
  let previous2: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => (j <= limit ? j : over));
  for (let i = 1; i <= a.length; i += 1) {
    const current: number[] = new Array<number>(b.length + 1).fill(over);
    let rowMin = i <= limit ? i : over;
    current[0] = rowMin;
    for (let j = Math.max(1, i - limit); j <= Math.min(b.length, i + limit); j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (previous2[j - 2] as number) + 1);
      }
      const cell = Math.min(value, over);
      current[j] = cell;
      rowMin = Math.min(rowMin, cell);
    }
    if (rowMin > limit) return over;
    previous2 = previous;
    previous = current;
  }
  return Math.min(previous[b.length] as number, over);
}
