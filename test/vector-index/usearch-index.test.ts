import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IndexFolder, MANIFEST_FILE } from '../../src/index-folder/index-folder.js';
import { EntryTable } from '../../src/vector-index/entry-table.js';
import { VECTOR_DATA, VECTOR_ENTRIES, VectorStore } from '../../src/vector-index/store.js';
import { checkDataFile, UsearchIndex } from '../../src/vector-index/usearch-index.js';
import type { SavedEntry } from '../../src/vector-index/vector-index.js';
import { randomVectors } from './helpers.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('usearch-index');
const DIMENSIONS = 8;
const VECTORS = randomVectors(12, DIMENSIONS, 3);

/** A data file of 12 vectors where s3 and s7 were removed and s12 took label 7 (the last freed): label 3 is free. */
function writeData(): { file: string; index: UsearchIndex } {
  const index = new UsearchIndex(DIMENSIONS);
  VECTORS.forEach((vector, i) => index.upsert(`s${i}`, vector, `t${i}`));
  index.remove('s3');
  index.remove('s7');
  index.upsert('s12', VECTORS[3]!, 't12');
  const file = join(tempDir(), 'graph.bin');
  index.writeData(file);
  return { file, index };
}

function savedEntries(index: UsearchIndex): SavedEntry[] {
  return index.entries().map(({ id, tag, label }) => [id, tag, label, -1]);
}

function check(file: string): unknown {
  const fd = openSync(file, 'r');
  try {
    return checkDataFile(fd, DIMENSIONS);
  } finally {
    closeSync(fd);
  }
}

describe('UsearchIndex.restore', () => {
  it('memory-maps the graph and reads stored vectors from the rows after it', () => {
    const { file, index } = writeData();
    const restored = UsearchIndex.restore(file, DIMENSIONS, savedEntries(index));
    expect(restored.size).toBe(11);
    expect(restored.has('s3')).toBe(false);
    expect(restored.tagOf('s12')).toBe('t12');
    for (const { id } of index.entries()) expect(Array.from(restored.vectorOf(id)!), id).toEqual(Array.from(index.vectorOf(id)!));
    expect(restored.search(VECTORS[3]!, 1)[0]).toEqual({ id: 's12', score: expect.closeTo(1, 5) });
    restored.close();
  });

  it('puts the labels no entry holds on the free list, so the next new skill reuses one, and loads the view to change it', () => {
    const { file, index } = writeData();
    expect(index.entries().find((entry) => entry.id === 's12')?.label).toBe(7);
    const restored = UsearchIndex.restore(file, DIMENSIONS, savedEntries(index));
    restored.upsert('s13', VECTORS[7]!, 't13');
    expect(restored.entries().find((entry) => entry.id === 's13')?.label).toBe(3);
    expect(restored.search(VECTORS[7]!, 1)[0]?.id).toBe('s13');
    restored.upsert('s0', VECTORS[9]!, 't0b');
    expect(
      restored
        .search(VECTORS[9]!, 2)
        .map((match) => match.id)
        .sort(),
    ).toEqual(['s0', 's9']);
    expect(restored.size).toBe(12);
  });

  it('refuses entries naming a label the graph lacks', () => {
    const { file, index } = writeData();
    const entries = [...savedEntries(index), ['ghost', 'tg', 40, -1] as const];
    expect(() => UsearchIndex.restore(file, DIMENSIONS, entries)).toThrow('vector data lacks label 40');
  });
});

describe('checkDataFile', () => {
  it('accepts what writeData wrote', () => {
    const { file } = writeData();
    expect(check(file)).toMatchObject({ labels: 12 });
  });

  it('refuses an hnswlib graph (the format before) before usearch sees it', () => {
    // hnswlib's header: offsetLevel0 0, then sizes; what follows is its level-0 block.
    const header = Buffer.alloc(96);
    header.writeBigUInt64LE(12n, 16);
    const file = join(tempDir(), 'hnswlib.bin');
    writeFileSync(file, Buffer.concat([header, Buffer.alloc(12 * 100, 1)]));
    expect(() => check(file)).toThrow('not a usearch vector data file');
  });

  it('refuses a file whose trailer is intact but whose graph is not usearch’s', () => {
    const { file } = writeData();
    const bytes = readFileSync(file);
    bytes.fill(7, 0, 64);
    writeFileSync(file, bytes);
    expect(() => check(file)).toThrow('holds no usearch index');
    expect(() => UsearchIndex.restore(file, DIMENSIONS, [])).toThrow('holds no usearch index');
  });

  it('refuses a truncated file and other dimensions', () => {
    const { file } = writeData();
    const bytes = readFileSync(file);
    writeFileSync(file, bytes.subarray(0, bytes.length - 3));
    expect(() => check(file)).toThrow('not a usearch vector data file');
    writeFileSync(file, bytes);
    const fd = openSync(file, 'r');
    expect(() => checkDataFile(fd, DIMENSIONS + 1)).toThrow(`vector data has ${DIMENSIONS} dimensions, expected ${DIMENSIONS + 1}`);
    closeSync(fd);
  });
});

describe('an index folder saved with hnswlib (vector-data format 1)', () => {
  it('is rebuilt with one reason, never read', () => {
    const dir = tempDir();
    const options = { kind: 'hnsw', model: 'm1', dimensions: DIMENSIONS, folder: dir } as const;
    const store = VectorStore.open(options);
    VECTORS.forEach((vector, i) => store.upsert(`s${i}`, vector, `t${i}`));
    store.save();
    store.close();
    const manifestFile = join(dir, MANIFEST_FILE);
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    expect(manifest.artefacts[VECTOR_DATA].format).toBe(2);
    manifest.artefacts[VECTOR_DATA].format = 1;
    writeFileSync(manifestFile, JSON.stringify(manifest));
    const reopened = VectorStore.open(options);
    expect(reopened.status).toEqual({ state: 'rebuilt', reason: `${VECTOR_DATA} format 1 ≠ 2` });
    expect(reopened.size).toBe(0);
  });
});

describe('an index folder whose graph hnswlib wrote', () => {
  /** `fixtures/hnswlib-12x8.bin`: hnswlib-node 3.0.0's graph of VECTORS at labels 0…11, label 3 deleted. */
  const GRAPH = readFileSync(new URL('./fixtures/hnswlib-12x8.bin', import.meta.url));

  function legacyFolder(graph: Buffer): string {
    const dir = tempDir();
    const folder = IndexFolder.open(dir);
    const entries: SavedEntry[] = VECTORS.flatMap((_, label) => (label === 3 ? [] : [[`s${label}`, `t${label}`, label, -1] as const]));
    const sum = new Float64Array(DIMENSIONS);
    folder.commit(
      [
        folder.write(VECTOR_DATA, graph, { format: 1, meta: { kind: 'hnsw' } }),
        folder.write(VECTOR_ENTRIES, EntryTable.encode('hnsw', entries, sum), { format: 2 }),
      ],
      { model: 'm1', dimensions: DIMENSIONS },
    );
    return dir;
  }

  it('is rebuilt, its vectors read out of the graph by tag so nothing is embedded again', () => {
    const store = VectorStore.open({ kind: 'hnsw', model: 'm1', dimensions: DIMENSIONS, folder: legacyFolder(GRAPH) });
    expect(store.status).toEqual({ state: 'rebuilt', reason: `${VECTOR_DATA} format 1 ≠ 2` });
    expect(store.size).toBe(0);
    expect(store.hasTag('t3')).toBe(false);
    for (const label of [0, 5, 11]) expect(Array.from(store.vectorOfTag(`t${label}`)!)).toEqual(Array.from(VECTORS[label]!));
  });

  it('salvages nothing from a graph of another layout', () => {
    const garbled = Buffer.from(GRAPH);
    garbled.fill(0x40, 200, 400);
    const store = VectorStore.open({ kind: 'exact', model: 'm1', dimensions: DIMENSIONS, folder: legacyFolder(garbled) });
    expect(store.status).toMatchObject({ state: 'rebuilt' });
    expect(store.hasTag('t0')).toBe(false);
  });
});
