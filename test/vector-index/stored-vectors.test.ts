import { describe, expect, it } from 'vitest';
import type { CatalogMembers } from '../../src/store/entry-store.js';
import { StoredMembers } from '../../src/store/stored-members.js';
import { LabelGraph } from '../../src/vector-index/label-graph.js';
import { StoredVectors } from '../../src/vector-index/stored-vectors.js';
import { randomVectors } from './helpers.js';

const DIMENSIONS = 8;
const vectors = randomVectors(60, DIMENSIONS, 5);

/** Members of every label but the `stale` ones (one id per label), counting the labels each batched read asks for. */
function membersWithout(stale: ReadonlySet<number>): { members: StoredMembers; asked: number[][] } {
  const asked: number[][] = [];
  const none = () => new Map();
  const catalog = {
    idsLabelled: (labels: readonly number[]) => {
      asked.push([...labels]);
      return new Map(labels.filter((label) => !stale.has(label)).map((label) => [label, [`s${label}`]] as const));
    },
    membersOf: none,
    overlaid: none,
  } as unknown as CatalogMembers;
  return { members: new StoredMembers(catalog, DIMENSIONS), asked };
}

describe('StoredVectors over a graph', () => {
  const graph = LabelGraph.create(DIMENSIONS);
  vectors.forEach((vector, label) => graph.add(label, vector));

  it('reads the members of k labels, not of every candidate the graph returned', () => {
    const { members, asked } = membersWithout(new Set());
    const dense = new StoredVectors({ members, dimensions: DIMENSIONS, graph, mean: new Float32Array(DIMENSIONS) });
    expect(dense.search(vectors[10]!, 5).map((m) => m.id)[0]).toBe('s10');
    expect(asked.map((labels) => labels.length)).toEqual([5]);
  });

  it('fills k past stale labels, reading only the labels after them', () => {
    const exact = new StoredVectors({ ...membersWithout(new Set()), dimensions: DIMENSIONS, graph, mean: new Float32Array(DIMENSIONS) }).search(
      vectors[10]!,
      10,
    );
    const stale = new Set([10, Number(exact[3]!.id.slice(1))]);
    const { members, asked } = membersWithout(stale);
    const dense = new StoredVectors({ members, dimensions: DIMENSIONS, graph, mean: new Float32Array(DIMENSIONS) });
    const found = dense.search(vectors[10]!, 5);
    expect(found).toHaveLength(5);
    expect(found.some((m) => stale.has(Number(m.id.slice(1))))).toBe(false);
    expect(asked.map((labels) => labels.length)).toEqual([5, 2]);
  });
});
