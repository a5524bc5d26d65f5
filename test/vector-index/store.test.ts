import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IndexFolder, MANIFEST_FILE } from '../../src/index-folder/index-folder.js';
import { LOG_MAX_ROWS, VECTOR_DATA, VECTOR_ENTRIES, VectorStore, type VectorStoreOptions } from '../../src/vector-index/store.js';
import { randomVectors } from './helpers.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('store');

const VECTORS = randomVectors(40, 16);

type Options = Omit<VectorStoreOptions, 'folder'> & { dir: string };

function open({ dir, ...options }: Options): VectorStore {
  return VectorStore.open({ ...options, folder: dir });
}

function saved(options: Options, count = 40): VectorStore {
  const store = open(options);
  for (let i = 0; i < count; i += 1) store.upsert(`s${i}`, VECTORS[i]!, `tag${i}`);
  store.save();
  return store;
}

function artefactFile(dir: string, name: string): string {
  return join(dir, IndexFolder.open(dir).entry(name)!.file);
}

function logFile(dir: string): string {
  return join(dir, IndexFolder.open(dir).entry(VECTOR_DATA)!.log);
}

describe.each(['hnsw', 'exact'] as const)('VectorStore (%s)', (kind) => {
  const base = { kind, model: 'm1', dimensions: 16 } as const;

  it('round-trips entries, tags, vectors and their mean', () => {
    const dir = tempDir();
    const store = saved({ ...base, dir });
    const reopened = open({ ...base, dir });
    expect(reopened.status).toEqual({ state: 'loaded', count: 40 });
    expect(reopened.index.tagOf('s7')).toBe('tag7');
    expect(reopened.index.search(VECTORS[13]!, 1)[0]).toMatchObject({ id: 's13' });
    expect(reopened.index.search(VECTORS[13]!, 1)[0]!.score).toBeCloseTo(1, 5);
    expect(Array.from(reopened.index.vectorOf('s21')!)).toEqual(Array.from(VECTORS[21]!));
    expect(Array.from(reopened.vectorOfTag('tag5')!)).toEqual(Array.from(VECTORS[5]!));
    expect(Array.from(reopened.mean())).toEqual(Array.from(store.mean()));
  });

  it('keeps the mean of the stored vectors as they change', () => {
    const store = saved({ ...base, dir: tempDir() });
    store.remove('s0');
    store.upsert('s1', VECTORS[0]!, 'moved');
    const expected = new Float64Array(16);
    for (const id of store.index.ids()) store.index.vectorOf(id)!.forEach((value, i) => (expected[i]! += value));
    store.mean().forEach((value, i) => expect(value).toBeCloseTo(expected[i]! / 39, 6));
  });

  it('keeps removals and label reuse across a save', () => {
    const dir = tempDir();
    const store = saved({ ...base, dir });
    store.remove('s0');
    store.remove('s1');
    store.upsert('new', VECTORS[39]!, 'n');
    store.save();
    const reopened = open({ ...base, dir });
    expect(reopened.index.size).toBe(39);
    expect(reopened.index.has('s0')).toBe(false);
    expect(reopened.hasTag('tag0')).toBe(false);
    expect(reopened.index.search(VECTORS[0]!, 40).map((m) => m.id)).not.toContain('s0');
    reopened.upsert('again', VECTORS[0]!, 'a');
    expect(reopened.index.search(VECTORS[0]!, 1)[0]).toMatchObject({ id: 'again' });
  });

  it('answers by tag after changes made before the first lookup by tag (its tag map is built on demand)', () => {
    const dir = tempDir();
    saved({ ...base, dir });
    const reopened = open({ ...base, dir });
    reopened.upsert('s2', VECTORS[30]!, 'retagged');
    reopened.upsert('s3', VECTORS[3]!, 'tag4');
    reopened.remove('s5');
    expect(reopened.hasTag('tag2')).toBe(false);
    expect(reopened.hasTag('tag5')).toBe(false);
    expect(Array.from(reopened.vectorOfTag('retagged')!)).toEqual(Array.from(VECTORS[30]!));
    reopened.remove('s4');
    expect(Array.from(reopened.vectorOfTag('tag4')!)).toEqual(Array.from(VECTORS[3]!));
    reopened.remove('s3');
    expect(reopened.hasTag('tag4')).toBe(false);
  });

  it('starts fresh as "created" when nothing was saved yet', () => {
    expect(open({ ...base, dir: tempDir() }).status).toEqual({ state: 'created' });
  });

  it.each([
    ['another model', { model: 'm2' }, 'model m1 ≠ m2'],
    ['other dimensions', { dimensions: 8 }, 'dimensions 16 ≠ 8'],
  ])('rebuilds for %s', (_, change, reason) => {
    const dir = tempDir();
    saved({ ...base, dir });
    const reopened = open({ ...base, ...change, dir });
    expect(reopened.status).toEqual({ state: 'rebuilt', reason });
    expect(reopened.index.size).toBe(0);
  });

  it('rebuilds when the layout version or an artefact format differs', () => {
    const dir = tempDir();
    saved({ ...base, dir });
    const manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as { format: number; artefacts: Record<string, { format: number }> };
    manifest.artefacts[VECTOR_ENTRIES]!.format = 999;
    writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(manifest));
    expect(open({ ...base, dir }).status).toEqual({ state: 'rebuilt', reason: 'vector-entries format 999 ≠ 2' });
    writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify({ ...manifest, format: 1 }));
    expect(open({ ...base, dir }).status).toEqual({ state: 'rebuilt', reason: 'index.json layout 1 ≠ 2' });
  });

  it('rebuilds when the data file is truncated', () => {
    const dir = tempDir();
    saved({ ...base, dir });
    const file = artefactFile(dir, VECTOR_DATA);
    writeFileSync(file, readFileSync(file).subarray(0, 100));
    expect(open({ ...base, dir }).status).toMatchObject({ state: 'rebuilt', reason: expect.stringMatching(/fails its checksum$/) });
  });

  it('rebuilds when a byte of the data file changed', () => {
    const dir = tempDir();
    saved({ ...base, dir });
    const file = artefactFile(dir, VECTOR_DATA);
    const bytes = readFileSync(file);
    bytes[bytes.length >> 1]! ^= 0x01;
    writeFileSync(file, bytes);
    expect(open({ ...base, dir }).status).toMatchObject({ state: 'rebuilt', reason: expect.stringMatching(/fails its checksum$/) });
  });

  it('rebuilds when the data file is missing or the manifest is garbage', () => {
    const dir = tempDir();
    saved({ ...base, dir });
    rmSync(artefactFile(dir, VECTOR_DATA));
    expect(open({ ...base, dir }).status).toMatchObject({ state: 'rebuilt', reason: expect.stringMatching(/is missing$/) });
    writeFileSync(join(dir, MANIFEST_FILE), '{"format":2,"artefacts":');
    expect(open({ ...base, dir }).status).toEqual({ state: 'rebuilt', reason: 'index.json is not valid JSON' });
  });

  it('still loads the previous index when a crash left a new data file without its manifest', () => {
    const dir = tempDir();
    saved({ ...base, dir }, 10);
    // What a writer killed between the data rename and the manifest rename leaves behind.
    writeFileSync(join(dir, `${VECTOR_DATA}-0123456789abcdef.bin`), 'half of a newer index');
    writeFileSync(join(dir, 'index.json.123.abcd.tmp'), '{"format":2');
    expect(open({ ...base, dir }).status).toEqual({ state: 'loaded', count: 10 });
  });
});

describe('VectorStore kind switch', () => {
  it('rebuilds when the saved index is of the other kind', () => {
    const dir = tempDir();
    saved({ kind: 'exact', model: 'm1', dimensions: 16, dir });
    expect(open({ kind: 'hnsw', model: 'm1', dimensions: 16, dir }).status).toEqual({ state: 'rebuilt', reason: 'index kind exact ≠ hnsw' });
  });
});

describe.each(['hnsw', 'exact'] as const)('VectorStore delta log (%s)', (kind) => {
  const base = { kind, model: 'm1', dimensions: 16 } as const;

  it('appends a few changes to the log, leaves the base files and manifest as written, and replays the log on open', () => {
    const dir = tempDir();
    const store = saved({ ...base, dir });
    const data = readFileSync(artefactFile(dir, VECTOR_DATA));
    const manifest = readFileSync(join(dir, MANIFEST_FILE), 'utf8');
    store.remove('s0');
    store.upsert('s1', VECTORS[30]!, 'tag1b');
    store.save();
    store.upsert('new', VECTORS[0]!, 'tagN');
    store.save();
    expect(readFileSync(artefactFile(dir, VECTOR_DATA)).equals(data)).toBe(true);
    expect(readFileSync(join(dir, MANIFEST_FILE), 'utf8')).toBe(manifest);
    const reopened = open({ ...base, dir });
    expect(reopened.status).toEqual({ state: 'loaded', count: 40 });
    expect(reopened.index.has('s0')).toBe(false);
    expect(reopened.index.tagOf('s1')).toBe('tag1b');
    expect(Array.from(reopened.index.vectorOf('s1')!)).toEqual(Array.from(VECTORS[30]!));
    expect(reopened.index.search(VECTORS[0]!, 1)[0]).toMatchObject({ id: 'new' });
    Array.from(reopened.mean()).forEach((value, i) => expect(value).toBeCloseTo(store.mean()[i]!, 6));
  });

  it('replays the records before a torn one, and the next save appends after them', () => {
    const dir = tempDir();
    const store = saved({ ...base, dir });
    store.upsert('a', VECTORS[1]!, 'ta');
    store.save();
    store.upsert('b', VECTORS[2]!, 'tb');
    store.save();
    const log = logFile(dir);
    const bytes = readFileSync(log);
    writeFileSync(log, bytes.subarray(0, bytes.length - 3));
    const reopened = open({ ...base, dir });
    expect(reopened.index.has('a')).toBe(true);
    expect(reopened.index.has('b')).toBe(false);
    reopened.upsert('c', VECTORS[3]!, 'tc');
    reopened.save();
    const again = open({ ...base, dir });
    expect([again.index.has('a'), again.index.has('b'), again.index.has('c')]).toEqual([true, false, true]);
  });

  it('compact() folds a log into new base files that a reopen reads alone, and without a log rewrites nothing', () => {
    const dir = tempDir();
    const store = saved({ ...base, dir });
    const firstData = artefactFile(dir, VECTOR_DATA);
    store.compact();
    expect(artefactFile(dir, VECTOR_DATA)).toBe(firstData);
    store.upsert('s1', VECTORS[30]!, 'tag1b');
    store.remove('s2');
    store.save();
    store.upsert('s3', VECTORS[31]!, 'tag3b');
    // Unsaved changes are saved first, then everything folded into the base.
    store.compact();
    expect(IndexFolder.open(dir).readLog(VECTOR_DATA)).toEqual([]);
    expect(artefactFile(dir, VECTOR_DATA)).not.toBe(firstData);
    const reopened = open({ ...base, dir });
    expect(reopened.index.size).toBe(39);
    expect(reopened.index.has('s2')).toBe(false);
    expect(reopened.index.tagOf('s1')).toBe('tag1b');
    expect(Array.from(reopened.index.vectorOf('s3')!)).toEqual(Array.from(VECTORS[31]!));
    // A removal alone is a record too.
    reopened.remove('s4');
    reopened.save();
    expect(IndexFolder.open(dir).readLog(VECTOR_DATA)).toHaveLength(1);
    reopened.compact();
    expect(IndexFolder.open(dir).readLog(VECTOR_DATA)).toEqual([]);
    expect(open({ ...base, dir }).index.has('s4')).toBe(false);
  });

  it(`compacts the log into new base files past ${LOG_MAX_ROWS} rows`, () => {
    const dir = tempDir();
    const store = saved({ ...base, dir });
    const firstLog = logFile(dir);
    for (let i = 0; i <= LOG_MAX_ROWS; i += 1) {
      store.upsert(`s${i % 40}`, VECTORS[(i + 1) % 40]!, `round${i}`);
      store.save();
    }
    expect(logFile(dir)).not.toBe(firstLog);
    expect(readdirSync(dir)).not.toContain(firstLog.split('/').pop());
    const reopened = open({ ...base, dir });
    expect(reopened.index.tagOf(`s${LOG_MAX_ROWS % 40}`)).toBe(`round${LOG_MAX_ROWS}`);
    expect(reopened.index.size).toBe(40);
  });
});
