import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TopK } from '../../src/vector-index/top-k.js';

describe('TopK', () => {
  it('keeps the k best of a stream, best first', () => {
    const top = new TopK<string>(2);
    for (const [item, score] of [
      ['a', 0.1],
      ['b', 0.9],
      ['c', 0.5],
      ['d', 0.7],
    ] as const)
      top.push(item, score);
    expect(top.sorted()).toEqual([
      { item: 'b', score: 0.9 },
      { item: 'd', score: 0.7 },
    ]);
    expect(top.threshold).toBe(0.7);
  });

  it('agrees with a full sort for any input', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 })), fc.integer({ min: 0, max: 20 }), (scores, k) => {
        const top = new TopK<number>(k);
        scores.forEach((score, i) => top.push(i, score));
        // `+ 0` turns -0 into 0: the two tie, so either may come first, and toEqual tells them apart.
        const expected = [...scores]
          .sort((a, b) => b - a)
          .slice(0, k)
          .map((score) => score + 0);
        expect(top.sorted().map((entry) => entry.score + 0)).toEqual(expected);
      }),
    );
  });
});
