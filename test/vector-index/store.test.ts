import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MANIFEST_FILE, VectorStore, type VectorStoreOptions } from '../../src/vector-index/store.js';
import { DELTA_FILE } from '../../src/vector-index/store-delta.js';
import { randomVectors } from './helpers.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('store');

const VECTORS = randomVectors(40, 16);

function saved(options: Omit<VectorStoreOptions, 'dir'> & { dir: string }, count = 40): VectorStore {
  const store = VectorStore.open(options);
  for (let i = 0; i < count; i += 1) store.index.upsert(`s${i}`, VECTORS[i]!, `tag${i}`);
  store.save();
  return store;
}

function dataFile(dir: string): string {
  const name = readdirSync(dir).find((file) => file.startsWith('vectors-') && file.endsWith('.bin'));
  return join(dir, name!);
}

describe.each(['hnsw', 'exact'] as const)('VectorStore (%s)', (kind) => {
  const base = { kind, model: 'm1', dimensions: 16 } as const;

  it('round-trips entries, tags and vectors', () => {
    const dir = tempDir();
    saved({ ...base, dir });
    const reopened = VectorStore.open({ ...base, dir });
    expect(reopened.status).toEqual({ state: 'loaded', count: 40 });
    expect(reopened.index.tagOf('s7')).toBe('tag7');
    expect(reopened.index.search(VECTORS[13]!, 1)[0]).toMatchObject({ id: 's13' });
    expect(reopened.index.search(VECTORS[13]!, 1)[0]!.score).toBeCloseTo(1, 5);
  });

  it('keeps removals and label reuse across a save', () => {
    const dir = tempDir();
    const store = saved({ ...base, dir });
    store.index.remove('s0');
    store.index.remove('s1');
    store.index.upsert('new', VECTORS[39]!, 'n');
    store.save();
    const reopened = VectorStore.open({ ...base, dir });
    expect(reopened.index.size).toBe(39);
    expect(reopened.index.has('s0')).toBe(false);
    expect(reopened.index.search(VECTORS[0]!, 40).map((m) => m.id)).not.toContain('s0');
    reopened.index.upsert('again', VECTORS[0]!, 'a');
    expect(reopened.index.search(VECTORS[0]!, 1)[0]).toMatchObject({ id: 'again' });
    expect(readdirSync(dir).filter((file) => file.endsWith('.bin'))).toHaveLength(1);
  });

  it('starts fresh as "created" when nothing was saved yet', () => {
    expect(VectorStore.open({ ...base, dir: tempDir() }).status).toEqual({ state: 'created' });
  });

  it.each([
    ['another model', { model: 'm2' }, 'model m1 ≠ m2'],
    ['other dimensions', { dimensions: 8 }, 'dimensions 16 ≠ 8'],
  ])('rebuilds for %s', (_, change, reason) => {
    const dir = tempDir();
    saved({ ...base, dir });
    const reopened = VectorStore.open({ ...base, ...change, dir });
    expect(reopened.status).toEqual({ state: 'rebuilt', reason });
    expect(reopened.index.size).toBe(0);
  });

  it('rebuilds when the format version differs', () => {
    const dir = tempDir();
    saved({ ...base, dir });
    const manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify({ ...manifest, format: 999 }));
    expect(VectorStore.open({ ...base, dir }).status).toEqual({ state: 'rebuilt', reason: 'format 999 ≠ 1' });
  });

  it('rebuilds when the data file is truncated', () => {
    const dir = tempDir();
    saved({ ...base, dir });
    const file = dataFile(dir);
    writeFileSync(file, readFileSync(file).subarray(0, 100));
    const reopened = VectorStore.open({ ...base, dir });
    expect(reopened.status).toMatchObject({ state: 'rebuilt', reason: expect.stringMatching(/fails its checksum$/) });
  });

  it('rebuilds when a byte of the data file changed', () => {
    const dir = tempDir();
    saved({ ...base, dir });
    const file = dataFile(dir);
    const bytes = readFileSync(file);
    bytes[bytes.length >> 1]! ^= 0x01;
    writeFileSync(file, bytes);
    expect(VectorStore.open({ ...base, dir }).status).toMatchObject({ state: 'rebuilt', reason: expect.stringMatching(/fails its checksum$/) });
  });

  it('rebuilds when the data file is missing or the manifest is garbage', () => {
    const dir = tempDir();
    saved({ ...base, dir });
    rmSync(dataFile(dir));
    expect(VectorStore.open({ ...base, dir }).status).toMatchObject({ state: 'rebuilt', reason: expect.stringMatching(/is missing$/) });
    writeFileSync(join(dir, MANIFEST_FILE), '{"format":1,"kind":');
    expect(VectorStore.open({ ...base, dir }).status).toEqual({ state: 'rebuilt', reason: 'manifest is not valid JSON' });
  });

  it('still loads the previous index when a crash left a new data file without its manifest', () => {
    const dir = tempDir();
    saved({ ...base, dir }, 10);
    // What a writer killed between the data rename and the manifest rename leaves behind.
    writeFileSync(join(dir, 'vectors-' + kind + '-0123456789abcdef.bin'), 'half of a newer index');
    writeFileSync(join(dir, 'vectors.json.123.abcd.tmp'), '{"format":1');
    const reopened = VectorStore.open({ ...base, dir });
    expect(reopened.status).toEqual({ state: 'loaded', count: 10 });
  });
});

describe('VectorStore kind switch', () => {
  it('rebuilds when the saved index is of the other kind', () => {
    const dir = tempDir();
    saved({ kind: 'exact', model: 'm1', dimensions: 16, dir });
    expect(VectorStore.open({ kind: 'hnsw', model: 'm1', dimensions: 16, dir }).status).toEqual({ state: 'rebuilt', reason: 'index kind exact ≠ hnsw' });
  });
});

describe.each(['hnsw', 'exact'] as const)('VectorStore deltas (%s)', (kind) => {
  const base = { kind, model: 'm1', dimensions: 16 } as const;

  it('saves a few changes as a delta, leaves the data file and manifest as written, and replays the delta on open', () => {
    const dir = tempDir();
    const store = saved({ ...base, dir });
    const data = readFileSync(dataFile(dir));
    const manifest = readFileSync(join(dir, MANIFEST_FILE), 'utf8');
    store.index.remove('s0');
    store.index.upsert('s1', VECTORS[30]!, 'tag1b');
    store.index.upsert('new', VECTORS[0]!, 'tagN');
    store.save();
    expect(readFileSync(dataFile(dir)).equals(data)).toBe(true);
    expect(readFileSync(join(dir, MANIFEST_FILE), 'utf8')).toBe(manifest);
    expect(readdirSync(dir)).toContain(DELTA_FILE);
    const reopened = VectorStore.open({ ...base, dir });
    expect(reopened.status).toEqual({ state: 'loaded', count: 40 });
    expect(reopened.index.has('s0')).toBe(false);
    expect(reopened.index.tagOf('s1')).toBe('tag1b');
    expect(reopened.index.search(VECTORS[0]!, 1)[0]).toMatchObject({ id: 'new' });
  });

  it('ignores a damaged delta (the base loads) and drops the delta at the next full save', () => {
    const dir = tempDir();
    const store = saved({ ...base, dir });
    store.index.upsert('new', VECTORS[0]!, 'tagN');
    store.save();
    const delta = join(dir, DELTA_FILE);
    const bytes = readFileSync(delta);
    bytes[bytes.length - 1]! ^= 0xff;
    writeFileSync(delta, bytes);
    const reopened = VectorStore.open({ ...base, dir });
    expect(reopened.status).toEqual({ state: 'loaded', count: 40 });
    expect(reopened.index.has('new')).toBe(false);
    for (let i = 0; i < 20; i += 1) reopened.index.remove(`s${i}`);
    reopened.save();
    expect(readdirSync(dir)).not.toContain(DELTA_FILE);
    expect(VectorStore.open({ ...base, dir }).status).toEqual({ state: 'loaded', count: 20 });
  });
});
