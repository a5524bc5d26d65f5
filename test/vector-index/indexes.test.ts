import { describe, expect, it } from 'vitest';
import { ExactIndex } from '../../src/vector-index/exact-index.js';
import { UsearchIndex } from '../../src/vector-index/usearch-index.js';
import type { VectorIndex } from '../../src/vector-index/vector-index.js';
import { randomVectors, unit } from './helpers.js';

const kinds: [string, (dimensions: number) => VectorIndex][] = [
  ['ExactIndex', (d) => new ExactIndex(d, 2)],
  ['UsearchIndex', (d) => new UsearchIndex(d)],
];

describe.each(kinds)('%s', (_, create) => {
  it('returns the nearest vectors best first with cosine scores', () => {
    const index = create(3);
    index.upsert('east', unit(1, 0, 0), 't1');
    index.upsert('north-east', unit(1, 1, 0), 't2');
    index.upsert('up', unit(0, 0, 1), 't3');
    const matches = index.search(unit(1, 0.2, 0), 3);
    expect(matches.map((m) => m.id)).toEqual(['east', 'north-east', 'up']);
    expect(matches[0]!.score).toBeCloseTo(1 / Math.sqrt(1.04), 5);
    expect(matches[2]!.score).toBeCloseTo(0, 5);
  });

  it('caps k at the number of entries and handles an empty index', () => {
    const index = create(2);
    expect(index.search(unit(1, 0), 5)).toEqual([]);
    index.upsert('a', unit(1, 0), 'x');
    expect(index.search(unit(1, 0), 5).map((m) => m.id)).toEqual(['a']);
  });

  it('updates a vector in place and keeps its tag current', () => {
    const index = create(2);
    index.upsert('a', unit(1, 0), 'v1');
    index.upsert('b', unit(0, 1), 'v1');
    index.upsert('a', unit(0, 1), 'v2');
    expect(index.size).toBe(2);
    expect(index.tagOf('a')).toBe('v2');
    expect(index.search(unit(1, 0), 1)[0]?.score).toBeCloseTo(0, 5);
  });

  it('forgets removed entries and reuses their room', () => {
    const index = create(2);
    index.upsert('a', unit(1, 0), 'x');
    index.upsert('b', unit(0, 1), 'x');
    expect(index.remove('a')).toBe(true);
    expect(index.remove('a')).toBe(false);
    expect(index.search(unit(1, 0), 2).map((m) => m.id)).toEqual(['b']);
    index.upsert('c', unit(1, 0.1), 'x');
    expect(index.search(unit(1, 0), 2).map((m) => m.id)).toEqual(['c', 'b']);
    expect([...index.ids()].sort()).toEqual(['b', 'c']);
    expect(
      index
        .entries()
        .map((e) => e.id)
        .sort(),
    ).toEqual(['b', 'c']);
  });

  it('grows past its initial capacity', () => {
    const index = create(8);
    const vectors = randomVectors(600, 8);
    vectors.forEach((vector, i) => index.upsert(`s${i}`, vector, 'x'));
    expect(index.size).toBe(600);
    expect(index.search(vectors[599]!, 1)[0]).toMatchObject({ id: 's599' });
  });

  it('refuses a vector of the wrong size', () => {
    expect(() => create(3).upsert('a', unit(1, 0), 'x')).toThrow('Expected a 3-dimensional vector, got 2');
  });
});

describe('UsearchIndex recall against the exact baseline', () => {
  it('finds at least 95% of the true top-10 on 2,000 random 64-d vectors', () => {
    const vectors = randomVectors(2000, 64, 11);
    const exact = new ExactIndex(64);
    const hnsw = new UsearchIndex(64);
    vectors.forEach((vector, i) => {
      exact.upsert(`s${i}`, vector, 'x');
      hnsw.upsert(`s${i}`, vector, 'x');
    });
    let found = 0;
    const queries = randomVectors(50, 64, 99);
    for (const query of queries) {
      const truth = new Set(exact.search(query, 10).map((m) => m.id));
      found += hnsw.search(query, 10).filter((m) => truth.has(m.id)).length;
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });
});
