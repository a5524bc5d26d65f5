import { describe, expect, it } from 'vitest';
import type { CatalogMembers, MemberRead } from '../../src/store/entry-store.js';
import { StoredMembers } from '../../src/store/stored-members.js';

const vector = (x: number) => new Float32Array([x, 0]);
const MEMBERS = new Map<string, MemberRead>([
  ['a', { record: '{"id":"a"}', stored: { key: 'k1', vector: vector(1) } }],
  ['b', { record: '{"id":"b"}', stored: { key: 'k1', vector: vector(1) } }],
  ['c', { record: '{"id":"c"}', stored: undefined }],
]);
const LABELS = new Map<number, readonly string[]>([[7, ['a', 'b']]]);

/** Catalog members that count their batched reads. */
function counting(): { members: CatalogMembers; reads: string[][] } {
  const reads: string[][] = [];
  const members: CatalogMembers = {
    idsNamed: () => [],
    all: () => [],
    ids: () => [],
    keys: () => [],
    at: () => new Map(),
    holding: () => new Map(),
    distinctVectors: () => 0,
    labels: () => [],
    labelled: () => new Map(),
    overlaid: () => new Map(),
    idsLabelled: (labels) => {
      reads.push(labels.map(String));
      return new Map(labels.flatMap((label) => (LABELS.has(label) ? [[label, LABELS.get(label)!] as const] : [])));
    },
    membersOf: (ids) => {
      reads.push([...ids]);
      return new Map(ids.flatMap((id) => (MEMBERS.has(id) ? [[id, MEMBERS.get(id)!] as const] : [])));
    },
  };
  return { members, reads };
}

describe('StoredMembers', () => {
  it('reads the members a search meets together once, and each other id once', () => {
    const { members, reads } = counting();
    const stored = new StoredMembers(members, 2);
    expect(stored.idsLabelled([7, 9])).toEqual(new Map([[7, ['a', 'b']]]));
    expect(reads).toEqual([
      ['7', '9'],
      ['a', 'b'],
    ]);
    expect([stored.record('a'), stored.stored('b'), stored.record('b')]).toEqual(['{"id":"a"}', { key: 'k1', vector: vector(1) }, '{"id":"b"}']);
    stored.prefetch(['a', 'c', 'zz', 'c']);
    expect(reads.at(-1)).toEqual(['c', 'zz']);
    expect([stored.record('c'), stored.stored('c'), stored.record('zz'), stored.stored('zz')]).toEqual(['{"id":"c"}', undefined, undefined, undefined]);
    expect(stored.record('q')).toBeUndefined();
    expect(reads.at(-1)).toEqual(['q']);
    const count = reads.length;
    stored.prefetch(['a', 'q']);
    stored.record('q');
    expect(reads.length).toBe(count);
    expect(stored.idsLabelled([])).toEqual(new Map());
    expect(reads.length).toBe(count);
  });
});
