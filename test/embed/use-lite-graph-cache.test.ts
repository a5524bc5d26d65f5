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
  it('builds and saves the graph once, then reads the same bytes from disk', async () => {
    const cacheDir = tempDir();
    const first = await loadUseLiteGraph({ cacheDir });
    expect(first.source).toBe('built');
    expect(graphPath(cacheDir)).toMatch(new RegExp(`use-lite-[0-9a-f]{16}-g${USE_LITE_GRAPH_FORMAT}\\.onnx$`));
    const second = await loadUseLiteGraph({ cacheDir });
    expect(second.source).toBe('cache');
    expect(Buffer.from(second.bytes).equals(Buffer.from(first.bytes))).toBe(true);
    expect(readdirSync(cacheDir).filter((name) => name.includes('.tmp-'))).toEqual([]);
  });

  it('rebuilds a corrupted, truncated or foreign-format file', async () => {
    const cacheDir = tempDir();
    const built = await loadUseLiteGraph({ cacheDir });
    const file = graphPath(cacheDir);

    const flipped = Buffer.from(readFileSync(file));
    const middle = flipped.length >> 1;
    flipped[middle] = flipped[middle]! ^ 0xff;
    writeFileSync(file, flipped);
    const afterFlip = await loadUseLiteGraph({ cacheDir });
    expect(afterFlip.source).toBe('built');
    expect(Buffer.from(afterFlip.bytes).equals(Buffer.from(built.bytes))).toBe(true);
    expect((await loadUseLiteGraph({ cacheDir })).source).toBe('cache');

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
