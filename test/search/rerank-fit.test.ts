import { describe, expect, it } from 'vitest';
import { fitListings, foldKey, oneStandardError, pairwiseLoss, softmaxLoss, type FitListing, type QueryLoss } from '../../scripts/rerank-fit.js';

// Each query's pool: three candidates; the relevant one has feature 1, the others 0, and the
// fused order (column 0) puts it last half the time, so only the feature can find it.
const listings: FitListing[] = Array.from({ length: 40 }, (_, q) => ({
  suite: q % 2 === 0 ? 'a' : 'b',
  orders: q % 4 < 2 ? [0.9, 0.5, 0.1] : [0.1, 0.5, 0.9],
  rows: [[0], [0], [1]].map((row, i) => (q % 3 === 0 && i === 1 ? [0.5] : row)),
  labels: [false, false, true],
}));

/** The loss's gradient at `beta`, numerically. */
function numericGradient(loss: QueryLoss, rows: number[][], labels: boolean[], beta: number[]): number[] {
  const h = 1e-6;
  return beta.map((_, j) => {
    const up = beta.map((b, k) => (k === j ? b + h : b));
    const down = beta.map((b, k) => (k === j ? b - h : b));
    return (loss(rows, labels, up, 1, undefined, undefined) - loss(rows, labels, down, 1, undefined, undefined)) / (2 * h);
  });
}

describe('the re-ranker losses', () => {
  const rows = [
    [0.9, 1, -0.5],
    [0.4, 0, 0.3],
    [0.1, -1, 2],
  ];
  const beta = [0.7, -0.2, 0.4];
  for (const [name, loss] of [
    ['softmax', softmaxLoss],
    ['pairwise', pairwiseLoss],
  ] as const) {
    it(`${name}: the analytic gradient is the loss's slope`, () => {
      const labels = [false, true, true];
      const grad = [0, 0, 0];
      const hess = [
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 0],
      ];
      loss(rows, labels, beta, 1, grad, hess);
      numericGradient(loss, rows, labels, beta).forEach((value, j) => expect(grad[j]).toBeCloseTo(value, 5));
    });
  }

  it('pairwise: no pair without both a relevant and another member', () => {
    expect(pairwiseLoss(rows, [true, true, true], beta, 1, undefined, undefined)).toBe(0);
  });
});

describe('fitListings', () => {
  for (const objective of ['softmax', 'pairwise'] as const) {
    it(`${objective}: learns the feature that marks the relevant candidate, and gives it back under a strong ridge`, () => {
      const free = fitListings(listings, 0.001, objective);
      expect(free.weights[0]).toBeGreaterThan(1);
      const ridged = fitListings(listings, 1000, objective);
      expect(Math.abs(ridged.weights[0]!)).toBeLessThan(0.01);
    });
  }
});

describe('fitListings suite weights', () => {
  // Suite a's relevant candidate carries feature 1, suite b's feature 0 (the feature points the other way there):
  // the fitted weight follows whichever suite weighs more.
  const conflicting: FitListing[] = Array.from({ length: 40 }, (_, q) => ({
    suite: q % 2 === 0 ? 'a' : 'b',
    orders: [0.5, 0.5],
    rows: [[1], [0]],
    labels: q % 2 === 0 ? [true, false] : [false, true],
  }));
  it('weighs a suite by its weight, whatever its number of queries', () => {
    expect(Math.abs(fitListings(conflicting, 0.001, 'softmax').weights[0]!)).toBeLessThan(1e-6);
    expect(fitListings(conflicting, 0.001, 'softmax', new Map([['a', 2]])).weights[0]).toBeGreaterThan(0.1);
    expect(fitListings(conflicting, 0.001, 'softmax', new Map([['b', 2]])).weights[0]).toBeLessThan(-0.1);
  });
});

describe('foldKey', () => {
  const candidates = [{ id: 'x' }, { id: 'y' }, { id: 'z' }];
  it('keeps queries with the same relevant skills together when grouped by label', () => {
    const one = { id: 'q1', candidates, labels: [true, false, true] };
    const two = { id: 'q2', candidates: [...candidates].reverse(), labels: [true, false, true] };
    expect(foldKey(one, 'label')).toBe(foldKey(two, 'label'));
    expect(foldKey(one, 'id')).not.toBe(foldKey(two, 'id'));
    expect(foldKey({ id: 'q3', candidates, labels: [false, true, false] }, 'label')).not.toBe(foldKey(one, 'label'));
    // A query whose relevant skills are not among its candidates stays alone.
    expect(foldKey({ id: 'q4', candidates, labels: [false, false, false] }, 'label')).toBe('id:q4');
  });
});

describe('oneStandardError', () => {
  const setting = (score: number, simplicity: number[], name: string) => ({ score, mrr: 0, foldScores: [score - 0.02, score, score + 0.02], simplicity, name });
  it('takes the simplest setting within one standard error of the best', () => {
    // Fold scores ±0.02 around the mean: standard error 0.02 / √3 ≈ 0.0115.
    const scored = [setting(1.7, [10, 6], 'best'), setting(1.69, [10, 4], 'simpler, close'), setting(1.68, [8, 4], 'simplest, too far')];
    const { best, se, within, pick } = oneStandardError(scored);
    expect(best.name).toBe('best');
    expect(se).toBeCloseTo(0.02 / Math.sqrt(3));
    expect(within).toBe(2);
    expect(pick.name).toBe('simpler, close');
  });

  it('keeps the earlier of two equal settings', () => {
    const { best, pick } = oneStandardError([setting(1.7, [5], 'first'), setting(1.7, [5], 'second')]);
    expect(best.name).toBe('first');
    expect(pick.name).toBe('first');
  });
});
