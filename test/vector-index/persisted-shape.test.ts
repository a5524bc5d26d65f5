import { createHash } from 'node:crypto';
import { serialize } from 'node:v8';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddingCache, embeddingCacheFile } from '../../src/embed/embedding-cache.js';
import { LexicalIndex } from '../../src/lexical/lexical-index.js';
import { lexicalFile, loadLexicalIndex, saveLexicalIndex } from '../../src/lexical/lexical-store.js';
import { MANIFEST_FILE, VectorStore } from '../../src/vector-index/store.js';
import { SKILLS, removeDir, runCli, tempDir as cliTempDir } from '../cli/helpers.js';
import { useTempDirs } from '../support/temp-dirs.js';
import { randomVectors } from './helpers.js';

const tempDir = useTempDirs('shape');
const base = { kind: 'exact', model: 'm1', dimensions: 8 } as const;

function savedStore(dir: string): void {
  const store = VectorStore.open({ ...base, dir });
  randomVectors(3, 8).forEach((vector, i) => store.index.upsert(`s${i}`, vector, `t${i}`));
  store.save();
}

describe('every persisted file is checked for shape; any doubt means rebuild', () => {
  it.each([
    ['null', 'manifest has the wrong shape (Invalid input: expected object, received null)'],
    ['[]', 'manifest has the wrong shape (Invalid input: expected object, received array)'],
    ['{"format":1}', 'manifest has the wrong shape (kind: Invalid option: expected one of "hnsw"|"exact")'],
  ])('vectors.json %s', (text, reason) => {
    const dir = tempDir();
    savedStore(dir);
    writeFileSync(join(dir, MANIFEST_FILE), text);
    expect(VectorStore.open({ ...base, dir }).status).toEqual({ state: 'rebuilt', reason });
  });

  it('vectors.json with a malformed entry', () => {
    const dir = tempDir();
    savedStore(dir);
    const manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as { entries: unknown[] };
    manifest.entries[1] = null;
    writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(manifest));
    expect(VectorStore.open({ ...base, dir }).status).toEqual({
      state: 'rebuilt',
      reason: 'manifest has the wrong shape (entries.1: expected [id, tag, label])',
    });
  });

  it('the lexical header or body as null', () => {
    const dir = tempDir();
    writeFileSync(lexicalFile(dir), 'null\n{}');
    expect(loadLexicalIndex(dir)).toEqual({ reason: 'header has the wrong shape (Invalid input: expected object, received null)' });
    saveLexicalIndex(dir, new LexicalIndex());
    const format = (JSON.parse(readFileSync(lexicalFile(dir), 'utf8').split('\n')[0]!) as { format: number }).format;
    const body = serialize(null);
    const digest = createHash('sha256').update(body).digest('hex');
    writeFileSync(lexicalFile(dir), Buffer.concat([Buffer.from(`${JSON.stringify({ format, sha256: digest })}\n`), body]));
    expect(loadLexicalIndex(dir)).toEqual({ reason: 'body has the wrong shape (not an object)' });
    const map = serialize({ entries: [], tree: new Map([['pdf', 1]]), documentIds: 'nope' });
    writeFileSync(
      lexicalFile(dir),
      Buffer.concat([Buffer.from(`${JSON.stringify({ format, sha256: createHash('sha256').update(map).digest('hex') })}\n`), map]),
    );
    expect(loadLexicalIndex(dir)).toEqual({ reason: 'body is unreadable: compact snapshot has the wrong shape' });
  });

  it('the embedding cache header as null', () => {
    const dir = tempDir();
    const file = embeddingCacheFile(dir, 'm1');
    const prefix = Buffer.alloc(8);
    prefix.write('SSEC', 0, 'latin1');
    prefix.writeUInt32LE(4, 4);
    writeFileSync(file, Buffer.concat([prefix, Buffer.from('null')]));
    expect(new EmbeddingCache({ model: 'm1', dimensions: 8, dir }).status).toBe('corrupt');
  });

  it('a folder where a persisted file belongs is replaced on the next save', () => {
    const dir = tempDir();
    mkdirSync(join(dir, MANIFEST_FILE, 'inside'), { recursive: true });
    mkdirSync(lexicalFile(dir));
    savedStore(dir);
    saveLexicalIndex(dir, new LexicalIndex());
    expect(statSync(join(dir, MANIFEST_FILE)).isFile()).toBe(true);
    expect(statSync(lexicalFile(dir)).isFile()).toBe(true);
    expect(VectorStore.open({ ...base, dir }).status).toEqual({ state: 'loaded', count: 3 });
  });
});

describe('a damaged index never stops the CLI: the next command rebuilds it', () => {
  const damages: [string, (dir: string) => void][] = [
    ['vectors.json is null', (dir) => writeFileSync(join(dir, MANIFEST_FILE), 'null')],
    ['lexical.json has a null header', (dir) => writeFileSync(lexicalFile(dir), 'null\nnull')],
    [
      'the embeddings header is null',
      (dir) => {
        const file = readdirSync(dir).find((name) => name.startsWith('embeddings-'))!;
        writeFileSync(join(dir, file), Buffer.concat([Buffer.from('SSEC'), Buffer.from([4, 0, 0, 0]), Buffer.from('null')]));
      },
    ],
    [
      'vectors.json is a folder',
      (dir) => {
        rmSync(join(dir, MANIFEST_FILE));
        mkdirSync(join(dir, MANIFEST_FILE));
      },
    ],
    [
      'lexical.json is a folder',
      (dir) => {
        rmSync(lexicalFile(dir));
        mkdirSync(lexicalFile(dir));
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
