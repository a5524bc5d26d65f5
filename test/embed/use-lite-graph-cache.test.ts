import { cpSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadUseLiteGraph } from '../../src/embed/use-lite-graph-cache.js';
import { buildUseLiteOnnxSplit, USE_LITE_GRAPH_FORMAT } from '../../src/embed/use-lite-graph.js';
import { createNativeUseLiteRuntime } from '../../src/embed/use-lite.js';
import { UseLiteTokenizer } from '../../src/embed/use-lite-tokenizer.js';
import { readUseLiteFiles, useLiteModelDir } from '../../src/embed/use-lite-weights.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('use-lite-graph');

function graphPath(dir: string): string {
  const name = readdirSync(dir).find((file) => file.endsWith('.onnx'));
  if (name === undefined) throw new Error(`no graph in ${dir}`);
  return join(dir, name);
}

describe('USE-lite graph cache', () => {
  it('builds and saves the graph once, then hands onnxruntime the saved files', async () => {
    const cacheDir = tempDir();
    const first = await loadUseLiteGraph({ cacheDir });
    const file = graphPath(cacheDir);
    expect(first).toMatchObject({ source: 'built', model: file, queryModel: `${file}.query` });
    expect(file).toMatch(new RegExp(`use-lite-[0-9a-f]{16}-g${USE_LITE_GRAPH_FORMAT}\\.onnx$`));
    expect(await loadUseLiteGraph({ cacheDir })).toMatchObject({ source: 'cache', model: file, queryModel: `${file}.query` });
    // Small model files (the query model's too) naming the weights in the data file beside them.
    for (const model of [file, `${file}.query`]) {
      expect(statSync(model).size).toBeLessThan(256 * 1024);
      expect(readFileSync(model).includes(Buffer.from(basename(`${file}.data`)))).toBe(true);
    }
    expect(statSync(`${file}.data`).size).toBeGreaterThan(20 * 1024 * 1024);
    expect(readFileSync(file).includes(Buffer.from(basename(`${file}.data`)))).toBe(true);
    expect(readdirSync(cacheDir).filter((name) => name.includes('.tmp'))).toEqual([]);
  });

  it('lets the event loop turn while it builds and saves the graph, so a hook budget timer can fire', async () => {
    const cacheDir = tempDir();
    // Checked on every turn of the loop: a turn after the data file is saved and before the model
    // file is means the save is not one synchronous step (nor the hashing, building and saving).
    const seen = { dataBeforeModel: false };
    let done = false;
    const check = () => {
      if (done) return;
      const names = readdirSync(cacheDir);
      if (names.some((name) => name.endsWith('.onnx.data')) && !names.some((name) => name.endsWith('.onnx'))) seen.dataBeforeModel = true;
      setImmediate(check);
    };
    setImmediate(check);
    const loaded = await loadUseLiteGraph({ cacheDir }).finally(() => (done = true));
    expect(loaded.source).toBe('built');
    expect(seen.dataBeforeModel).toBe(true);
  });

  it('yields to the event loop inside the graph build', async () => {
    const files = await readUseLiteFiles();
    let turned = false;
    setImmediate(() => (turned = true));
    const built = await buildUseLiteOnnxSplit(files, 'model.data');
    expect(turned).toBe(true);
    expect(built.data.byteLength).toBeGreaterThan(20 * 1024 * 1024);
  });

  it('hands back a tokenizer from the saved table that encodes as one built from the vocabulary', async () => {
    const cacheDir = tempDir();
    const built = await loadUseLiteGraph({ cacheDir });
    const cached = await loadUseLiteGraph({ cacheDir });
    expect(cached.source).toBe('cache');
    const fresh = new UseLiteTokenizer((await readUseLiteFiles()).vocabulary);
    for (const text of ['extract the tables from this pdf', 'Ünïcödé ﬁ 東京 🙂', '', 'README.md __init__ naïve']) {
      expect(cached.tokenizer.encode(text)).toEqual(fresh.encode(text));
      expect(built.tokenizer.encode(text)).toEqual(fresh.encode(text));
    }
  });

  it('rebuilds when any file has a damaged head or tail or is truncated, or the sidecar names another format', async () => {
    const cacheDir = tempDir();
    await loadUseLiteGraph({ cacheDir });
    const model = graphPath(cacheDir);
    const saved = new Map([model, `${model}.data`, `${model}.tokenizer`, `${model}.query`].map((file) => [file, readFileSync(file)]));

    for (const [file, original] of saved) {
      for (const at of [10, -10]) {
        const flipped = Buffer.from(original);
        const index = at < 0 ? flipped.length + at : at;
        flipped[index] = flipped[index]! ^ 0xff;
        writeFileSync(file, flipped);
        expect((await loadUseLiteGraph({ cacheDir })).source, `${basename(file)} at ${at}`).toBe('built');
        for (const [other, bytes] of saved) expect(readFileSync(other).equals(bytes)).toBe(true);
        expect((await loadUseLiteGraph({ cacheDir })).source).toBe('cache');
      }
      writeFileSync(file, original.subarray(0, 1000));
      expect((await loadUseLiteGraph({ cacheDir })).source).toBe('built');
    }

    const sidecar = JSON.parse(readFileSync(`${model}.json`, 'utf8')) as Record<string, unknown>;
    writeFileSync(`${model}.json`, JSON.stringify({ ...sidecar, format: USE_LITE_GRAPH_FORMAT + 1 }));
    expect((await loadUseLiteGraph({ cacheDir })).source).toBe('built');
    expect((await loadUseLiteGraph({ cacheDir })).source).toBe('cache');
  });

  it('never fails a load over the cache: off, or not writable', async () => {
    expect((await loadUseLiteGraph({ cacheDir: null })).source).toBe('uncached');
    const notADir = join(tempDir(), 'file');
    writeFileSync(notADir, 'x');
    expect((await loadUseLiteGraph({ cacheDir: notADir })).source).toBe('uncached');
  });

  it('a runtime on the cached files gives the vectors of a model handed over as bytes', async () => {
    const cacheDir = tempDir();
    const rebuilt = await createNativeUseLiteRuntime({ cacheDir: null });
    await createNativeUseLiteRuntime({ cacheDir });
    const cached = await createNativeUseLiteRuntime({ cacheDir });
    const text = ['extract the tables from this pdf'];
    const [a] = await rebuilt.embed(text);
    const [b] = await cached.embed(text);
    expect(Array.from(b!)).toEqual(Array.from(a!));
  });
  it('keys the cache on the weights by their stat: model.json is not reread while every file keeps its stat', async () => {
    const cacheDir = tempDir();
    const modelDir = tempDir();
    cpSync(useLiteModelDir(), modelDir, { recursive: true });
    const manifest = join(modelDir, 'model.json');
    expect((await loadUseLiteGraph({ cacheDir, modelDir })).source).toBe('built');

    // model.json unparseable, and the memo given its new stat (as if it had kept its stat):
    // every listed file matches, so nothing reads it.
    const original = readFileSync(manifest);
    writeFileSync(manifest, ' '.repeat(original.length));
    const memoFile = join(cacheDir, 'weights.json');
    const memo = JSON.parse(readFileSync(memoFile, 'utf8')) as { stats: string[]; sha256: string };
    const stat = statSync(manifest);
    memo.stats[0] = `${manifest}:${stat.size}:${stat.mtimeMs}:${stat.ino}`;
    writeFileSync(memoFile, JSON.stringify(memo));
    expect((await loadUseLiteGraph({ cacheDir, modelDir })).source).toBe('cache');

    // A weight file touched: the memo is stale, model.json is read again and the same hash found.
    writeFileSync(manifest, original);
    const vocabulary = join(modelDir, 'vocab.json');
    const later = new Date(Date.now() + 60_000);
    utimesSync(vocabulary, later, later);
    expect((await loadUseLiteGraph({ cacheDir, modelDir })).source).toBe('cache');
    const rewritten = JSON.parse(readFileSync(memoFile, 'utf8')) as { stats: string[]; sha256: string };
    expect(rewritten.sha256).toBe(memo.sha256);
    expect(rewritten.stats.find((line) => line.startsWith(`${vocabulary}:`))).toContain(`:${statSync(vocabulary).mtimeMs}:`);
  });
  it("takes no other model folder's memo: two folders sharing a cache each get the graph of their own weights", async () => {
    const cacheDir = tempDir();
    const [first, second] = [tempDir(), tempDir()];
    for (const dir of [first, second]) cpSync(useLiteModelDir(), dir, { recursive: true });
    // The second folder's weights differ in one byte.
    const shard = join(second, 'group1-shard7of7');
    const bytes = readFileSync(shard);
    bytes[100] = bytes[100]! ^ 0x01;
    writeFileSync(shard, bytes);
    const a = await loadUseLiteGraph({ cacheDir, modelDir: first });
    const b = await loadUseLiteGraph({ cacheDir, modelDir: second });
    expect(b.source).toBe('built');
    expect(b.model).not.toBe(a.model);
  });
});
