import { throwIfAborted } from '../errors.js';
import { buildUseLiteOnnx, USE_LITE_MAX_TOKENS } from './use-lite-graph.js';
import { UseLiteTokenizer } from './use-lite-tokenizer.js';
import { readUseLiteFiles } from './use-lite-weights.js';

/**
 * USE-lite on onnxruntime (native CPU kernels): the bundled weights rebuilt as an ONNX graph
 * (see use-lite-graph.ts) and fed by our own copy of the model's tokenizer. Same vectors as the
 * TF.js WASM runtime to within 1e-6, at a fraction of the cost: about 2 ms instead of 11–15 ms
 * for a one-sentence query here.
 */

/** Texts per onnxruntime call when indexing; sorted by length first, so padding stays small. */
const BATCH_SIZE = 32;

interface OrtTensorConstructor {
  new (type: 'int64', data: BigInt64Array, dims: readonly number[]): unknown;
  new (type: 'float32', data: Float32Array, dims: readonly number[]): unknown;
}

interface OrtSession {
  run(feeds: Record<string, unknown>): Promise<Record<string, { readonly data: unknown; readonly dims: readonly number[] }>>;
}

interface OrtModule {
  readonly InferenceSession: { create(model: Uint8Array, options: Record<string, unknown>): Promise<OrtSession> };
  readonly Tensor: OrtTensorConstructor;
}

export interface UseLiteRuntime {
  readonly name: 'onnxruntime' | 'tfjs-wasm';
  /** One row per text, in order; rows are not normalised. Checks `signal` between batches. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

async function importOnnxRuntime(): Promise<OrtModule> {
  const loaded = (await import('onnxruntime-node')) as unknown as OrtModule & { default?: OrtModule };
  // A CommonJS package: depending on the loader its API sits on the namespace or on `default`.
  return typeof loaded.InferenceSession === 'function' || typeof loaded.InferenceSession === 'object' ? loaded : loaded.default!;
}

/** Loads onnxruntime and builds the session; rejects if the native binding is unavailable here. */
export async function createNativeUseLiteRuntime(): Promise<UseLiteRuntime> {
  const [ort, files] = await Promise.all([importOnnxRuntime(), readUseLiteFiles()]);
  const session = await ort.InferenceSession.create(buildUseLiteOnnx(files), {
    graphOptimizationLevel: 'all',
    // One thread: a query is a few small matrix products, and an idle pool would spin on a
    // core the agent around us needs more.
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const tokenizer = new UseLiteTokenizer(files.vocabulary);

  async function run(rows: readonly number[][]): Promise<Float32Array[]> {
    const length = Math.max(1, ...rows.map((row) => row.length));
    const ids = new BigInt64Array(rows.length * length);
    const mask = new Float32Array(rows.length * length);
    rows.forEach((row, b) => {
      for (let i = 0; i < row.length; i += 1) {
        ids[b * length + i] = BigInt(row[i]!);
        mask[b * length + i] = 1;
      }
    });
    const output = await session.run({
      ids: new ort.Tensor('int64', ids, [rows.length, length]),
      mask: new ort.Tensor('float32', mask, [rows.length, length]),
    });
    const data = output['embedding']!.data as Float32Array;
    const width = data.length / rows.length;
    return rows.map((_, b) => data.slice(b * width, (b + 1) * width));
  }

  return {
    name: 'onnxruntime',
    async embed(texts, signal) {
      const encoded = texts.map((text) => tokenizer.encode(text).slice(0, USE_LITE_MAX_TOKENS));
      const order = encoded.map((_, index) => index).sort((a, b) => encoded[a]!.length - encoded[b]!.length);
      const out = new Array<Float32Array>(texts.length);
      for (let start = 0; start < order.length; start += BATCH_SIZE) {
        // Each call blocks the event loop while it runs; let timers and sockets in between.
        if (start > 0) await new Promise((resolve) => setImmediate(resolve));
        throwIfAborted(signal);
        const indices = order.slice(start, start + BATCH_SIZE);
        const rows = await run(indices.map((index) => encoded[index]!));
        indices.forEach((index, i) => {
          out[index] = rows[i]!;
        });
      }
      return out;
    },
  };
}
