import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BULK_MIN_TEXTS, MAX_CALL_TOKENS, createNativeUseLiteRuntime, paddedBatches } from '../../src/embed/use-lite.js';

/**
 * An onnxruntime call is synchronous work on the main thread: no timer fires while it runs, so
 * each call must stay short enough for a hook's budget timer to get in between (a call of 32
 * long texts took 1–2.5 s under five cold hooks on two cores, and the watchdog killed them).
 */
describe('paddedBatches under a token bound', () => {
  it('no batch holds more padded tokens than the bound, unless it is one text', () => {
    const lengths = Array.from({ length: 90 }, (_, i) => 1 + Math.floor(i * 1.5)).sort((a, b) => a - b);
    for (const bound of [1, 50, 200, 512]) {
      const batches = paddedBatches(lengths, bound);
      expect(batches.flat()).toEqual(lengths.map((_, i) => i));
      for (const batch of batches) {
        if (batch.length > 1) expect(batch.length * lengths[batch.at(-1)!]!).toBeLessThanOrEqual(bound);
      }
    }
    expect(paddedBatches([128, 128, 128, 128, 128], 256)).toEqual([[0, 1], [2, 3], [4]]);
    expect(paddedBatches([300], 10)).toEqual([[0]]);
  });
});

describe('USE-lite on onnxruntime', () => {
  afterEach(() => vi.restoreAllMocks());

  const ort = () => createRequire(import.meta.url)('onnxruntime-node') as { InferenceSession: { prototype: { run: (...args: unknown[]) => unknown } } };
  const shapes = (run: { mock: { calls: unknown[][] } }) => run.mock.calls.map(([feeds]) => (feeds as { ids: { dims: readonly number[] } }).ids.dims);

  it('runs an index build in short calls, and the same texts always in the same calls', async () => {
    const runtime = await createNativeUseLiteRuntime();
    const texts = Array.from({ length: 96 }, (_, i) => `skill ${i}: ${'reads files, writes reports and checks them twice; '.repeat(12 - (i % 5))}`);
    expect(texts.length).toBeGreaterThanOrEqual(BULK_MIN_TEXTS);
    const run = vi.spyOn(ort().InferenceSession.prototype, 'run');
    const first = await runtime.embed(texts);
    const calls = shapes(run);
    expect(calls.length).toBeGreaterThan(1);
    for (const [rows, length] of calls) if (rows! > 1) expect(rows! * length!).toBeLessThanOrEqual(MAX_CALL_TOKENS);
    expect(calls.reduce((sum, [rows]) => sum + rows!, 0)).toBe(texts.length);
    // The calls depend on the texts alone, never on timing: the stored vectors are the same bit for bit.
    run.mockClear();
    expect(await runtime.embed(texts)).toEqual(first);
    expect(shapes(run)).toEqual(calls);
  }, 60_000);

  it('runs a query in one call', async () => {
    const runtime = await createNativeUseLiteRuntime();
    const run = vi.spyOn(ort().InferenceSession.prototype, 'run');
    await runtime.embed(['merge two PDF files', 'and then split them again by chapter', 'keeping the bookmarks'], undefined, 'query');
    expect(shapes(run)).toHaveLength(1);
  }, 60_000);
});
