import type { LexicalSearchOptions } from '../../src/lexical/lexical-query.js';
import { ENGINE_DEFAULTS } from '../../src/search/options.js';

/** Levenshtein distance with adjacent transpositions (optimal string alignment) over UTF-16 code units, by the full table. */
export function levenshtein(a: string, b: string): number {
  const table = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      let cell = Math.min(table[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1), table[i - 1]![j]! + 1, table[i]![j - 1]! + 1);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) cell = Math.min(cell, table[i - 2]![j - 2]! + 1);
      table[i]![j] = cell;
    }
  }
  return table[a.length]![b.length]!;
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
