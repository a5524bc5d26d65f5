/**
 * "Did you mean" for a mistyped skill name: names within a small edit distance, plus names
 * that contain the query (or are contained in it), closest first.
 */
export function closeNames(query: string, names: readonly string[], limit = 3): string[] {
  const needle = query.trim().toLowerCase();
  if (needle === '') return [];
  const maxDistance = Math.max(2, Math.floor(needle.length / 3));
  const scored: { name: string; distance: number }[] = [];
  for (const name of names) {
    const candidate = name.toLowerCase();
    const contains = candidate.includes(needle) || needle.includes(candidate);
    const distance = editDistance(needle, candidate, maxDistance);
    if (distance <= maxDistance) scored.push({ name, distance });
    else if (contains) scored.push({ name, distance: maxDistance + 1 });
  }
  scored.sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name));
  return scored.slice(0, limit).map(({ name }) => name);
}

/**
 * Levenshtein distance, giving up (returning `max + 1`) as soon as every cell of a row
 * exceeds `max`. O(|a|·|b|) time, O(|b|) space.
 */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > max) return max + 1;
    previous = current;
  }
  return previous[b.length] ?? 0;
}
