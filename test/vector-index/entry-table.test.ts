import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { IndexFolder } from '../../src/index-folder/index-folder.js';
import { ENTRY_TABLE_FORMAT, EntryTable } from '../../src/vector-index/entry-table.js';
import type { UsearchIndex } from '../../src/vector-index/usearch-index.js';
import { VECTOR_ENTRIES, VectorStore } from '../../src/vector-index/store.js';
import type { SavedEntry } from '../../src/vector-index/vector-index.js';
import { randomVectors } from './helpers.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('entry-table');

describe('EntryTable', () => {
  const entries: SavedEntry[] = [
    ['zeta', 'tz', 0, 128],
    ['été', 'té', 1, -1],
    ['alpha', 't-alpha', 4, 640],
    ['日本語', 'tj', 2, 384],
    ['Alpha', '', 3, 512],
  ];
  const sum = Float64Array.from([0.5, -1.25, 3]);

  it('round-trips every entry and Σ, rows sorted by the UTF-8 bytes of their ids', () => {
    const table = EntryTable.decode(EntryTable.encode('hnsw', entries, sum), 3);
    expect(table.kind).toBe('hnsw');
    expect(table.size).toBe(5);
    expect(Array.from(table.sum)).toEqual([0.5, -1.25, 3]);
    expect(table.rows()).toEqual([
      ['Alpha', '', 3, 512],
      ['alpha', 't-alpha', 4, 640],
      ['zeta', 'tz', 0, 128],
      ['été', 'té', 1, -1],
      ['日本語', 'tj', 2, 384],
    ]);
  });

  it('keeps each label’s row and graph offset by label, a free label holding -1', () => {
    const table = EntryTable.decode(EntryTable.encode('hnsw', entries, sum), 3);
    expect(table.labelCount).toBe(5);
    expect(Array.from(table.rowOfLabel)).toEqual([2, 3, 4, 0, 1]);
    expect(Array.from(table.offsets)).toEqual([128, -1, 384, 512, 640]);
    expect(table.rowsKnown).toBe(false);
    const sparse = EntryTable.decode(
      EntryTable.encode(
        'hnsw',
        [
          ['b', 'tb', 3, 96],
          ['a', 'ta', 0, 32],
        ],
        sum,
      ),
      3,
    );
    expect(Array.from(sparse.rowOfLabel)).toEqual([0, -1, -1, 1]);
    expect(Array.from(sparse.offsets)).toEqual([32, -1, -1, 96]);
    expect(sparse.rowsKnown).toBe(true);
  });

  it('finds a row by id, and none for an id it does not hold', () => {
    const table = EntryTable.decode(EntryTable.encode('exact', entries, sum), 3);
    for (const [id] of entries) expect(table.entry(table.rowOf(id)!)).toEqual(entries.find((entry) => entry[0] === id));
    expect(entries.every(([id]) => table.id(table.rowOf(id)!) === id)).toBe(true);
    for (const missing of ['', 'alph', 'alphaa', 'ALPHA', '日本', 'zz']) expect(table.rowOf(missing), missing).toBeUndefined();
  });

  it('holds an empty catalog', () => {
    const table = EntryTable.decode(EntryTable.encode('hnsw', [], new Float64Array(2)), 2);
    expect(table.size).toBe(0);
    expect(table.rowOf('a')).toBeUndefined();
  });

  it('refuses bytes that are not a table of these dimensions, or are cut short', () => {
    const bytes = EntryTable.encode('hnsw', entries, sum);
    expect(() => EntryTable.decode(bytes, 4)).toThrow('Σ has 3 dimensions, expected 4');
    expect(() => EntryTable.decode(Buffer.from('{"kind":"hnsw"}'), 3)).toThrow('not an entry table');
    expect(() => EntryTable.decode(bytes.subarray(0, 60), 3)).toThrow('the table ends early');
    expect(() => EntryTable.decode(bytes.subarray(0, bytes.length - 1), 3)).toThrow('the texts do not end with the table');
  });
});

const DIMENSIONS = 16;
const VECTORS = randomVectors(60, DIMENSIONS, 11);
const options = { kind: 'hnsw', model: 'm1', dimensions: DIMENSIONS } as const;

/** A store of s0…s39 saved in `dir`, with s5 and s6 removed before the save (their labels free). */
function savedStore(dir: string): VectorStore {
  const store = VectorStore.open({ ...options, folder: dir });
  for (let i = 0; i < 40; i += 1) store.upsert(`s${i}`, VECTORS[i]!, `tag${i}`);
  store.remove('s5');
  store.remove('s6');
  store.save();
  return store;
}

/** What a user of the index sees: size, every id's tag and vector, and the search answers. */
function observed(index: UsearchIndex | VectorStore['index']): unknown {
  const ids = [...index.ids()].sort();
  return {
    size: index.size,
    entries: ids.map((id) => [id, index.tagOf(id), Array.from(index.vectorOf(id)!)]),
    answers: VECTORS.slice(0, 50).map((vector) => index.search(vector, 3).map((match) => match.id)),
  };
}

describe('an HNSW index restored from an entry table', () => {
  it('answers lookups and searches from the table before any change', () => {
    const dir = tempDir();
    const original = savedStore(dir);
    const reopened = VectorStore.open({ ...options, folder: dir });
    const index = reopened.index;
    expect(index.size).toBe(38);
    expect(index.has('s5')).toBe(false);
    expect(index.tagOf('s7')).toBe('tag7');
    expect(index.tagOf('nope')).toBeUndefined();
    expect(index.vectorOf('nope')).toBeUndefined();
    expect(Array.from(index.vectorOf('s12')!)).toEqual(Array.from(VECTORS[12]!));
    expect(index.search(VECTORS[30]!, 2)[0]).toMatchObject({ id: 's30' });
    expect(observed(index)).toEqual(observed(original.index));
  });

  it('stays equal to the index that was saved through upserts, removals and label reuse', () => {
    const dir = tempDir();
    const original = savedStore(dir);
    const reopened = VectorStore.open({ ...options, folder: dir });
    for (const store of [original, reopened]) {
      store.upsert('s40', VECTORS[40]!, 'tag40');
      store.remove('s7');
      store.upsert('s8', VECTORS[41]!, 'tag8b');
      store.upsert('s42', VECTORS[42]!, 'tag42');
      store.upsert('s43', VECTORS[43]!, 'tag43');
    }
    expect(observed(reopened.index)).toEqual(observed(original.index));
    expect(
      reopened.index
        .entries()
        .map(({ id, label }) => [id, label])
        .sort(),
    ).toEqual(
      original.index
        .entries()
        .map(({ id, label }) => [id, label])
        .sort(),
    );
    reopened.save();
    expect(observed(VectorStore.open({ ...options, folder: dir }).index)).toEqual(observed(original.index));
  });

  it('opens entries saved as JSON (format 1) without a rebuild, and the next save writes the table', () => {
    const dir = tempDir();
    const original = savedStore(dir);
    let folder = IndexFolder.open(dir);
    const table = EntryTable.decode(readFileSync(folder.path(folder.entry(VECTOR_ENTRIES)!.file)), DIMENSIONS);
    const json = { kind: 'hnsw', entries: table.rows(), sum: Array.from(table.sum) };
    folder.commit([folder.write(VECTOR_ENTRIES, Buffer.from(JSON.stringify(json)), { format: 1 })]);

    const fromJson = VectorStore.open({ ...options, folder: dir });
    expect(fromJson.status).toEqual({ state: 'loaded', count: 38 });
    expect(observed(fromJson.index)).toEqual(observed(original.index));
    fromJson.save();
    folder = IndexFolder.open(dir);
    expect(folder.entry(VECTOR_ENTRIES)?.format).toBe(ENTRY_TABLE_FORMAT);
    const upgraded = VectorStore.open({ ...options, folder: dir });
    expect(upgraded.status).toEqual({ state: 'loaded', count: 38 });
    expect(observed(upgraded.index)).toEqual(observed(original.index));
    expect(Array.from(upgraded.mean())).toEqual(Array.from(original.mean()));
  });
});
