import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { serialize } from 'node:v8';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IndexFolder, MANIFEST_FILE } from '../../src/index-folder/index-folder.js';
import { LEXICAL_FORMAT_VERSION, LexicalIndex } from '../../src/lexical/lexical-index.js';
import { LEXICAL_ARTEFACT, loadLexicalIndex, saveLexicalIndex } from '../../src/lexical/lexical-store.js';
import { VECTOR_DATA, VECTOR_ENTRIES, VectorStore } from '../../src/vector-index/store.js';
import { SKILLS, removeDir, runCli, tempDir as cliTempDir } from '../cli/helpers.js';
import { useTempDirs } from '../support/temp-dirs.js';
import { randomVectors } from './helpers.js';

const tempDir = useTempDirs('shape');
const base = { kind: 'exact', model: 'm1', dimensions: 8 } as const;

function savedStore(dir: string): void {
  const store = VectorStore.open({ ...base, folder: dir });
  randomVectors(3, 8).forEach((vector, i) => store.upsert(`s${i}`, vector, `t${i}`));
  store.save();
}

/** Replaces an artefact's contents through the folder, so its checksum holds and only the shape check can catch it. */
function rewrite(dir: string, name: string, bytes: Buffer, format: number): void {
  const folder = IndexFolder.open(dir);
  folder.commit([folder.write(name, bytes, { format })]);
}

describe('every persisted file is checked for shape; any doubt means rebuild', () => {
  it.each([
    ['null', 'index.json has the wrong shape (Invalid input: expected object, received null)'],
    ['[]', 'index.json has the wrong shape (Invalid input: expected object, received array)'],
    ['{"format":2}', 'index.json has the wrong shape (artefacts: Invalid input: expected record, received undefined)'],
  ])('index.json %s', (text, reason) => {
    const dir = tempDir();
    savedStore(dir);
    writeFileSync(join(dir, MANIFEST_FILE), text);
    expect(VectorStore.open({ ...base, folder: dir }).status).toEqual({ state: 'rebuilt', reason });
  });

  it('an artefact entry of the wrong shape', () => {
    const dir = tempDir();
    savedStore(dir);
    const manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as { artefacts: Record<string, unknown> };
    manifest.artefacts[VECTOR_DATA] = { file: '../../etc/passwd' };
    writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(manifest));
    expect(VectorStore.open({ ...base, folder: dir }).status).toMatchObject({
      state: 'rebuilt',
      reason: expect.stringMatching(/^index\.json has the wrong shape \(artefacts\.vector-data\.file: /),
    });
  });

  it('vector entries of the JSON format (1) with a malformed entry, or not JSON', () => {
    const dir = tempDir();
    savedStore(dir);
    const entries = { kind: 'exact', entries: [['s0', 't0', 0, -1], null, ['s2', 't2', 2, -1]], sum: new Array(8).fill(0) };
    rewrite(dir, VECTOR_ENTRIES, Buffer.from(JSON.stringify(entries)), 1);
    expect(VectorStore.open({ ...base, folder: dir }).status).toEqual({
      state: 'rebuilt',
      reason: 'vector-entries has the wrong shape (entries.1: expected [id, tag, label, offset])',
    });
    rewrite(dir, VECTOR_ENTRIES, Buffer.from('null'), 1);
    expect(VectorStore.open({ ...base, folder: dir }).status).toEqual({
      state: 'rebuilt',
      reason: 'vector-entries has the wrong shape (Invalid input: expected object, received null)',
    });
  });

  it('vector entries whose table does not decode', () => {
    const dir = tempDir();
    savedStore(dir);
    const folder = IndexFolder.open(dir);
    const table = readFileSync(folder.path(folder.entry(VECTOR_ENTRIES)!.file));
    rewrite(dir, VECTOR_ENTRIES, Buffer.from('null'), 2);
    expect(VectorStore.open({ ...base, folder: dir }).status).toEqual({ state: 'rebuilt', reason: 'vector-entries is unreadable: not an entry table' });
    rewrite(dir, VECTOR_ENTRIES, table.subarray(0, table.length - 1), 2);
    expect(VectorStore.open({ ...base, folder: dir }).status).toEqual({
      state: 'rebuilt',
      reason: 'vector-entries is unreadable: the texts do not end with the table',
    });
  });

  it('the lexical body truncated, or with a key list or flat buffer that does not fit', () => {
    const dir = tempDir();
    saveLexicalIndex(dir, new LexicalIndex());
    rewrite(dir, LEXICAL_ARTEFACT, Buffer.from([1, 2]), LEXICAL_FORMAT_VERSION);
    expect(loadLexicalIndex(dir)).toEqual({ reason: 'lexical body is unreadable: shorter than its header' });
    const head = Buffer.alloc(8);
    head.writeUInt32LE(1000, 0);
    rewrite(dir, LEXICAL_ARTEFACT, head, LEXICAL_FORMAT_VERSION);
    expect(loadLexicalIndex(dir)).toEqual({ reason: 'lexical body is unreadable: the key list runs past the end' });
    const keys = Buffer.alloc(8);
    keys.writeUInt32LE(2, 0);
    keys.write('[]', 4);
    rewrite(dir, LEXICAL_ARTEFACT, Buffer.concat([keys, serialize(null)]), LEXICAL_FORMAT_VERSION);
    expect(loadLexicalIndex(dir)).toEqual({ reason: expect.stringMatching(/^lexical body is unreadable: skill-search: flat lexical index: .*header/) });
    rewrite(dir, LEXICAL_ARTEFACT, serialize(null), LEXICAL_FORMAT_VERSION - 1);
    expect(loadLexicalIndex(dir)).toEqual({ reason: `lexical format ${LEXICAL_FORMAT_VERSION - 1} ≠ ${LEXICAL_FORMAT_VERSION}` });
  });

  it('a folder where the manifest belongs is replaced on the next save', () => {
    const dir = tempDir();
    mkdirSync(join(dir, MANIFEST_FILE, 'inside'), { recursive: true });
    savedStore(dir);
    saveLexicalIndex(dir, new LexicalIndex());
    expect(statSync(join(dir, MANIFEST_FILE)).isFile()).toBe(true);
    expect(VectorStore.open({ ...base, folder: dir }).status).toEqual({ state: 'loaded', count: 3 });
    expect('index' in loadLexicalIndex(dir)).toBe(true);
  });
});

describe('a damaged index never stops the CLI: the next command rebuilds it', () => {
  const artefactPath = (dir: string, name: string) => join(dir, IndexFolder.open(dir).entry(name)!.file);
  const damages: [string, (dir: string) => void][] = [
    ['index.json is null', (dir) => writeFileSync(join(dir, MANIFEST_FILE), 'null')],
    ['the lexical file is garbage', (dir) => writeFileSync(artefactPath(dir, LEXICAL_ARTEFACT), 'null\nnull')],
    ['the vector entries are garbage', (dir) => writeFileSync(artefactPath(dir, VECTOR_ENTRIES), 'null')],
    ['the vector data is gone', (dir) => rmSync(artefactPath(dir, VECTOR_DATA))],
    [
      'index.json is a folder',
      (dir) => {
        rmSync(join(dir, MANIFEST_FILE));
        mkdirSync(join(dir, MANIFEST_FILE));
      },
    ],
    [
      'the lexical file is a folder',
      (dir) => {
        const file = artefactPath(dir, LEXICAL_ARTEFACT);
        rmSync(file);
        mkdirSync(file);
      },
    ],
  ];

  it.each(damages)('%s', async (_what, damage) => {
    const cache = cliTempDir();
    try {
      const indexDir = join(cache, 'index');
      const flags = ['query', '--skills-dir', SKILLS, '--model', 'hash', '--index-dir', indexDir, 'fill a pdf form'];
      const healthy = await runCli(flags, cache);
      expect(healthy.code).toBe(0);
      damage(indexDir);
      expect(await runCli(flags, cache)).toEqual(healthy);
      expect(await runCli(flags, cache)).toEqual(healthy);
    } finally {
      removeDir(cache);
    }
  });
});
