import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CatalogVectors } from '../../src/vector-index/catalog-vectors.js';
import { LabelGraph } from '../../src/vector-index/label-graph.js';
import { useTempDirs } from '../support/temp-dirs.js';
import { randomVectors, unit } from './helpers.js';

const temp = useTempDirs('indexes');
/** An exact scan, and a graph at every size (`exactBelow: 0`). */
const kinds: [string, (dimensions: number) => CatalogVectors][] = [
  ['exact', (dimensions) => new CatalogVectors({ kind: 'exact', dimensions })],
  ['graph', (dimensions) => new CatalogVectors({ kind: 'hnsw', dimensions, exactBelow: 0 })],
];

describe.each(kinds)('CatalogVectors (%s)', (_, create) => {
  it('returns the nearest members best first with cosine scores', () => {
    const index = create(3);
    index.set('east', 't1', unit(1, 0, 0), 1);
    index.set('north-east', 't2', unit(1, 1, 0), 2);
    index.set('up', 't3', unit(0, 0, 1), 3);
    const matches = index.search(unit(1, 0.2, 0), 3);
    expect(matches.map((m) => m.id)).toEqual(['east', 'north-east', 'up']);
    expect(matches[0]!.score).toBeCloseTo(1 / Math.sqrt(1.04), 5);
    expect(matches[2]!.score).toBeCloseTo(0, 5);
  });

  it('caps k at the number of members and handles an empty index', () => {
    const index = create(2);
    expect(index.search(unit(1, 0), 5)).toEqual([]);
    index.set('a', 'x', unit(1, 0), 1);
    expect(index.search(unit(1, 0), 5).map((m) => m.id)).toEqual(['a']);
  });

  it('holds a vector once for members with the same content key, and answers each of them', () => {
    const index = create(2);
    index.set('a', 'same', unit(1, 0), 1);
    index.set('b', 'same', unit(0, 1), 99);
    index.set('c', 'other', unit(0, 1), 2);
    expect(index.stored('b')).toEqual({ key: 'same', vector: unit(1, 0) });
    expect(index.search(unit(1, 0), 3).map((m) => m.id)).toEqual(['a', 'b', 'c']);
    expect([...index.mean()].map((x) => Math.round(x * 1000) / 1000)).toEqual([0.667, 0.333]);
  });

  it('moves a member to another key and forgets removed members and their vectors', () => {
    const index = create(2);
    index.set('a', 'v1', unit(1, 0), 1);
    index.set('b', 'v2', unit(0, 1), 2);
    index.set('a', 'v3', unit(0, 1), 3);
    expect([index.size, index.keyOf('a'), index.holdsKey('v1')]).toEqual([2, 'v3', false]);
    expect(index.search(unit(1, 0), 1)[0]?.score).toBeCloseTo(0, 5);
    expect(index.remove('a')).toBe(true);
    expect(index.remove('a')).toBe(false);
    expect(index.search(unit(1, 0), 2).map((m) => m.id)).toEqual(['b']);
    expect([...index.ids()]).toEqual(['b']);
  });

  it('refuses a vector of the wrong size', () => {
    expect(() => create(3).set('a', 'x', unit(1, 0), 1)).toThrow('Expected a 3-dimensional vector, got 2');
  });
});

describe('the graph against the exact baseline', () => {
  it('finds at least 95% of the true top-10 on 2,000 random 64-d vectors', () => {
    const vectors = randomVectors(2000, 64, 11);
    const exact = kinds[0]![1](64);
    const graph = kinds[1]![1](64);
    vectors.forEach((vector, i) => {
      exact.set(`s${i}`, `k${i}`, vector, i);
      graph.set(`s${i}`, `k${i}`, vector, i);
    });
    let found = 0;
    const queries = randomVectors(50, 64, 99);
    for (const query of queries) {
      const truth = new Set(exact.search(query, 10).map((m) => m.id));
      found += graph.search(query, 10).filter((m) => truth.has(m.id)).length;
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });

  it('is derived from a saved graph: the labels the members lost give their slots to the new ones', () => {
    const file = path.join(temp(), 'base.usearch');
    const vectors = randomVectors(300, 8, 7);
    const base = LabelGraph.create(8);
    vectors.slice(0, 200).forEach((vector, label) => base.add(label, vector));
    base.save(file);
    const index = new CatalogVectors({ kind: 'hnsw', dimensions: 8, exactBelow: 0, base: () => ({ file, labels: Array.from({ length: 200 }, (_, i) => i) }) });
    vectors.slice(100).forEach((vector, i) => index.set(`s${i + 100}`, `k${i + 100}`, vector, i + 100));
    const graph = index.graph()!;
    expect([graph.size, graph.has(50), graph.has(150), graph.has(250)]).toEqual([200, false, true, true]);
    expect(index.search(vectors[250]!, 1)[0]?.id).toBe('s250');
    // Kept in step from then on: a removed member's label stays, stale, and is never answered.
    index.remove('s250');
    expect(graph.has(250)).toBe(true);
    expect(index.search(vectors[250]!, 1)[0]?.id).not.toBe('s250');
  });

  it('a viewed graph is read-only, and a file of other dimensions is refused', () => {
    const file = path.join(temp(), 'g.usearch');
    const graph = LabelGraph.create(4);
    graph.add(7, unit(1, 0, 0, 0));
    graph.save(file);
    const viewed = LabelGraph.view(file, 4);
    expect(viewed.search(unit(1, 0, 0, 0), 1)).toEqual([{ label: 7, score: expect.closeTo(1, 5) }]);
    expect(() => viewed.add(8, unit(0, 1, 0, 0))).toThrow('a viewed graph is read-only');
    expect(() => LabelGraph.view(file, 8)).toThrow(/has 4 dimensions, expected 8/);
  });
});
