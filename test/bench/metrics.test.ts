import { describe, expect, it } from 'vitest';
import { overlapAt, percentile, ratio, scoreOutcomes } from '../../bench/metrics.js';

const item = (id: string, name = id) => ({ id, name });

describe('scoreOutcomes', () => {
  it('scores hit@k, MRR and nDCG@10 by the first relevant rank, matching ids or names', () => {
    const report = scoreOutcomes([
      { relevant: ['pdf'], ranked: [item('pdf')] }, // rank 1
      { relevant: ['b'], ranked: [item('x'), item('y'), item('z'), item('w'), item('src::b', 'b')] }, // rank 5, by name
      { relevant: ['c'], ranked: [item('x'), item('y')] }, // miss
    ]);
    expect(report.queries).toBe(3);
    expect(report.hitAt1).toBeCloseTo(1 / 3);
    expect(report.hitAt5).toBeCloseTo(2 / 3);
    expect(report.mrr).toBeCloseTo((1 + 1 / 5) / 3);
    expect(report.ndcgAt10).toBeCloseTo((1 + 1 / Math.log2(6)) / 3);
  });

  it('scores queries with no relevant skill only as abstentions', () => {
    const report = scoreOutcomes([
      { relevant: [], ranked: [], suggested: 0 },
      { relevant: [], ranked: [item('a')], suggested: 1 },
      { relevant: ['a'], ranked: [item('a')] },
    ]);
    expect(report.queries).toBe(1);
    expect(report.hitAt1).toBe(1);
    expect(report.abstain).toEqual({ queries: 2, correct: 1 });
  });
});

describe('nDCG@10', () => {
  const ndcg = (ranked: { id: string; name: string }[], relevant: string[]) => scoreOutcomes([{ relevant, ranked }]).ndcgAt10;
  it('counts a relevant name once even when two shadowed copies are ranked', () => {
    expect(ndcg([item('a'), item('a2', 'a')], ['a'])).toBe(1);
    expect(ndcg([item('x'), item('a'), item('b')], ['a', 'b'])).toBeCloseTo((1 / Math.log2(3) + 1 / Math.log2(4)) / (1 + 1 / Math.log2(3)));
  });
});

describe('overlapAt / percentile / ratio', () => {
  it('measures how much of the exact top-k an approximate list found', () => {
    expect(overlapAt(['a', 'b', 'c'], ['a', 'c', 'd', 'e'])).toBe(0.5);
    expect(overlapAt([], [])).toBe(1);
  });

  it('takes nearest-rank percentiles', () => {
    expect(percentile([5, 1, 4, 2, 3], 50)).toBe(3);
    expect(percentile([5, 1, 4, 2, 3], 99)).toBe(5);
    expect(percentile([], 50)).toBeNaN();
  });

  it('never yields Infinity for a zero baseline', () => {
    expect(ratio(2, 4)).toBe(0.5);
    expect(ratio(3, 0)).toBeNull();
    expect(ratio(0, 0)).toBe(1);
    expect(ratio(undefined, 1)).toBeNull();
  });
});
