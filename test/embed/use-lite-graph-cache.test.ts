import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadUseLiteGraph } from '../../src/embed/use-lite-graph-cache.js';
import { USE_LITE_GRAPH_FORMAT } from '../../src/embed/use-lite-graph.js';
import { createNativeUseLiteRuntime } from '../../src/embed/use-lite-native.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('use-lite-graph');

function graphPath(dir: string): string {
  const name = readdirSync(dir).find((file) => file.endsWith('.onnx'));
  if (name === undefined) throw new Error(`no graph in ${dir}`);
  return join(dir, name);
}

describe('USE-lite graph cache', () => {
  it('builds and saves the graph once, then hands onnxruntime the saved file', async () => {
    const cacheDir = tempDir();
    const first = await loadUseLiteGraph({ cacheDir });
    expect(first.source).toBe('built');
    expect(graphPath(cacheDir)).toMatch(new RegExp(`use-lite-[0-9a-f]{16}-g${USE_LITE_GRAPH_FORMAT}\\.onnx$`));
    const second = await loadUseLiteGraph({ cacheDir });
    expect(second).toMatchObject({ source: 'cache', model: graphPath(cacheDir) });
    expect(readFileSync(graphPath(cacheDir)).equals(Buffer.from(first.model as Uint8Array))).toBe(true);
    expect(readdirSync(cacheDir).filter((name) => name.includes('.tmp'))).toEqual([]);
  });

  it('rebuilds a file with a damaged head or tail, a truncated one, or one of another format', async () => {
    const cacheDir = tempDir();
    const built = await loadUseLiteGraph({ cacheDir });
    const file = graphPath(cacheDir);

    for (const at of [10, -10]) {
      const flipped = Buffer.from(readFileSync(file));
      const index = at < 0 ? flipped.length + at : at;
      flipped[index] = flipped[index]! ^ 0xff;
      writeFileSync(file, flipped);
      const rebuilt = await loadUseLiteGraph({ cacheDir });
      expect(rebuilt.source).toBe('built');
      expect(Buffer.from(rebuilt.model as Uint8Array).equals(Buffer.from(built.model as Uint8Array))).toBe(true);
      expect((await loadUseLiteGraph({ cacheDir })).source).toBe('cache');
    }

    writeFileSync(file, readFileSync(file).subarray(0, 1000));
    expect((await loadUseLiteGraph({ cacheDir })).source).toBe('built');

    const sidecar = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as Record<string, unknown>;
    writeFileSync(`${file}.json`, JSON.stringify({ ...sidecar, format: USE_LITE_GRAPH_FORMAT + 1 }));
    expect((await loadUseLiteGraph({ cacheDir })).source).toBe('built');
    expect((await loadUseLiteGraph({ cacheDir })).source).toBe('cache');
  });

  it('never fails a load over the cache: off, or not writable', async () => {
    expect((await loadUseLiteGraph({ cacheDir: null })).source).toBe('uncached');
    const notADir = join(tempDir(), 'file');
    writeFileSync(notADir, 'x');
    expect((await loadUseLiteGraph({ cacheDir: notADir })).source).toBe('uncached');
  });

  it('a runtime on the cached graph gives the vectors of a rebuilt one', async () => {
    const cacheDir = tempDir();
    const rebuilt = await createNativeUseLiteRuntime({ cacheDir: null });
    await createNativeUseLiteRuntime({ cacheDir });
    const cached = await createNativeUseLiteRuntime({ cacheDir });
    const text = ['extract the tables from this pdf'];
    const [a] = await rebuilt.embed(text);
    const [b] = await cached.embed(text);
    expect(Array.from(b!)).toEqual(Array.from(a!));
  });
});
