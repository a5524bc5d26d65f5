import { describe, expect, it } from 'vitest';
import { nearSorted, sortedArrayTerms } from '../../src/lexical/sorted-near.js';
import { prng } from '../../scripts/prng.js';

/** Levenshtein distance in UTF-16 code units, the textbook way. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const next = [i];
    for (let j = 1; j <= b.length; j += 1) next[j] = Math.min(row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1), row[j]! + 1, next[j - 1]! + 1);
    row = next;
  }
  return row[b.length]!;
}

describe('nearSorted', () => {
  const random = prng(3);
  const letters = ['a', 'b', 'c', 'd', 'é', '数', '\u{20BB7}'];
  const word = (): string => Array.from({ length: 1 + Math.floor(random() * 7) }, () => letters[Math.floor(random() * letters.length)]!).join('');
  const terms = [...new Set(Array.from({ length: 3000 }, word))].sort();

  it('finds exactly the terms a brute-force scan finds, with their distances, in sorted order', () => {
    const cursor = sortedArrayTerms(terms);
    let found = 0;
    for (let i = 0; i < 200; i += 1) {
      const query = word();
      for (const maxDistance of [0, 1, 2, 3]) {
        const want = terms.filter((term) => distance(query, term) <= maxDistance).map((term) => ({ term, distance: distance(query, term) }));
        expect(nearSorted(query, maxDistance, cursor), `${query} ≤ ${maxDistance}`).toEqual(want);
        found += want.length;
      }
    }
    expect(found).toBeGreaterThan(1000);
  });

  it('skips the terms under a prefix already out of reach', () => {
    let visited = 0;
    const cursor = sortedArrayTerms(terms);
    const counting = {
      after: (term: string | undefined) => {
        visited += 1;
        return cursor.after(term);
      },
      past: (prefix: string) => {
        visited += 1;
        return cursor.past(prefix);
      },
    };
    nearSorted('abcd', 1, counting);
    expect(visited).toBeLessThan(terms.length / 2);
  });
});
