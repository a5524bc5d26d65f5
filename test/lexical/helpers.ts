import type { LexicalSearchOptions } from '../../src/lexical/lexical-query.js';
import { ENGINE_DEFAULTS } from '../../src/search/options.js';

/** Textbook Levenshtein distance over UTF-16 code units. */
export function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) row[j] = Math.min(previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1), previous[j]! + 1, row[j - 1]! + 1);
    previous = row;
  }
  return previous[b.length]!;
}

/** Search options that reach every path: defaults, explain, left-out fields, other boosts, wide and no expansion. */
export const OPTION_SETS: readonly LexicalSearchOptions[] = [
  {},
  { explain: true },
  { boost: { ...ENGINE_DEFAULTS.fieldBoosts, body: 0, keywords: 0 }, explain: true },
  { boost: { name: 1, whenToUse: 0, keywords: 3, description: 0, body: 1, glosses: 2 } },
  { prefixMinLength: 2, fuzzy: { minLength: 3, ratio: 0.4 }, explain: true },
  { prefixMinLength: 100, fuzzy: { minLength: 100, ratio: 0 } },
];
