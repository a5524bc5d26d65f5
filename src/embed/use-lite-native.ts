import { availableParallelism } from 'node:os';
import { throwIfAborted } from '../errors.js';
import { loadOnce } from '../util/load-once.js';
import { USE_LITE_MAX_TOKENS } from './use-lite-graph.js';
import { loadOnnxRuntime, type OrtSession } from './onnxruntime.js';
import type { EmbedKind } from '../types.js';
import { forgetUseLiteGraph, loadUseLiteGraph, type UseLiteGraph, type UseLiteGraphOptions } from './use-lite-graph-cache.js';

/**
 * USE-lite on onnxruntime (native CPU kernels): the bundled weights rebuilt as an ONNX graph
 * (see use-lite-graph.ts) and fed by our own copy of the model's tokenizer. Same vectors as the
 * TF.js WASM runtime to within 1e-6, at a fraction of the cost: about 2 ms instead of 11–15 ms
 * for a one-sentence query here.
 */

/** At most this many texts per onnxruntime call. */
const BATCH_SIZE = 32;
/**
 * A batch is padded to its longest text, so a batch may hold at most this much padding
 * relative to its real tokens (plus a few tokens' slack). A message embedded together with
 * its own sentences would otherwise pay for every sentence at the whole message's length.
 */
const MAX_PADDING_RATIO = 0.25;
const PADDING_SLACK_TOKENS = 8;
const YIELD_EVERY_MS = 20;
/**
 * At most this many padded tokens (texts × the longest one's tokens) per call when storing
 * vectors: two texts at USE-lite's 128-token cap. A call is synchronous native work on this
 * thread (onnxruntime-node runs it there), so no timer fires while it runs. Under five cold
 * hooks on two cores a full batch of 32 long texts took 1–2.5 s: it ran past the hook's budget
 * and its watchdog's grace, and the watchdog killed the hook (docs/cold-start.md, "Calls a
 * timer can get between"). A fixed bound, not one timed: a text's vector differs in its last
 * float bits with the batch it runs in, and the stored vectors must not depend on the load.
 */
export const MAX_CALL_TOKENS = 2 * 128;

/**
 * Splits texts of the given lengths (sorted ascending) into consecutive batches: a batch
 * closes when it is full, when the next, longer text would pad it past the padding budget, or
 * when its padded tokens would pass `maxTokens` (a batch holds at least one text). Returns
 * positions into `lengths`.
 */
export function paddedBatches(lengths: readonly number[], maxTokens = Number.POSITIVE_INFINITY): number[][] {
  const batches: number[][] = [];
  let batch: number[] = [];
  let tokens = 0;
  for (const [i, length] of lengths.entries()) {
    const padded = (batch.length + 1) * Math.max(1, length);
    const full = batch.length === BATCH_SIZE || padded > maxTokens;
    if (batch.length > 0 && (full || padded > (tokens + length) * (1 + MAX_PADDING_RATIO) + PADDING_SLACK_TOKENS)) {
      batches.push(batch);
      batch = [];
      tokens = 0;
    }
    batch.push(i);
    tokens += length;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

export interface UseLiteRuntime {
  readonly name: 'onnxruntime' | 'tfjs-wasm';
  /**
   * One row per text, in order; rows are not normalised. Checks `signal` between batches.
   * `query` texts run on the query session when there is one (see {@link createNativeUseLiteRuntime}).
   */
  embed(texts: readonly string[], signal?: AbortSignal, kind?: EmbedKind): Promise<Float32Array[]>;
}

/** The passage session: one thread, so a search leaves the other cores to the agent around it. */
const SESSION_OPTIONS = {
  graphOptimizationLevel: 'all',
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
} as const;
/**
 * The query session skips onnxruntime's graph optimisations: with its weights as graph inputs
 * they fuse a few nodes and no longer fold or pack anything, so they cost about 5 ms of a cold
 * session's 10–12 for no faster run, and its vectors stay within the same float rounding of the
 * packed session's (docs/cold-start.md, ninth round). onnxruntime warns on stderr of every
 * weight that is also a graph input, which the query model's are on purpose: errors only.
 */
const QUERY_SESSION_OPTIONS = { ...SESSION_OPTIONS, graphOptimizationLevel: 'disabled', logSeverityLevel: 3 } as const;

/**
 * A call with at least this many texts (an index build: `sync` passes hundreds per call) runs
 * on a second session with {@link bulkThreads} threads, made at the first such call. Its
 * vectors are bit-identical to the passage session's (640 registry texts compared).
 */
export const BULK_MIN_TEXTS = 64;
/** A cap for large machines: the agent around us needs cores too (and past the core count threads only contend). */
const BULK_MAX_THREADS = 4;

/** Threads for the bulk session: one per core, at most {@link BULK_MAX_THREADS}; 1 means no bulk session. */
export function bulkThreads(cores: number = availableParallelism()): number {
  return Math.max(1, Math.min(BULK_MAX_THREADS, cores));
}

export interface NativeUseLiteOptions {
  /**
   * Queries on their own session, made from the query model (use-lite-graph.ts `queryGraph`):
   * made in about half the time, its vectors within float rounding of the stored ones. `false`
   * runs them on the passage session, as the stored vectors were (tests compare the two).
   * @default true
   */
  readonly querySession?: boolean;
}

/**
 * Loads onnxruntime and a session (its graph from the on-disk cache when there, see
 * use-lite-graph-cache.ts); rejects if the native binding is unavailable here. `graphCache`
 * is the cache's options (`{ cacheDir: null }` rebuilds the graph every time). Texts embedded
 * as `query` run on the query session, made first, since a search (a hook) embeds nothing
 * else; everything else, what the store keeps, on the passage session, made at its first text,
 * so stored vectors stay those of the packed graph whoever computes them.
 */
export async function createNativeUseLiteRuntime(graphCache: UseLiteGraphOptions = {}, options: NativeUseLiteOptions = {}): Promise<UseLiteRuntime> {
  // The graph's files are read on the thread pool while the runtime loads on this thread.
  const [graph, ort] = await Promise.all([loadUseLiteGraph(graphCache), Promise.resolve().then(loadOnnxRuntime)]);
  const models = (loaded: UseLiteGraph) => ({ model: loaded.model, queryModel: options.querySession === false ? undefined : loaded.queryModel });
  // The passage and bulk sessions are made from the same graph: the cached model file, or (caching off) its bytes.
  let { model, queryModel } = models(graph);
  const firstSession = () =>
    queryModel === undefined ? ort.InferenceSession.create(model, SESSION_OPTIONS) : ort.InferenceSession.create(queryModel, QUERY_SESSION_OPTIONS);
  let querySession: OrtSession;
  try {
    querySession = await firstSession();
  } catch (error) {
    if (graph.source !== 'cache') throw error;
    // A cached file that passed its checks but not onnxruntime's: drop it and rebuild once.
    forgetUseLiteGraph(graphCache.cacheDir);
    ({ model, queryModel } = models(await loadUseLiteGraph(graphCache)));
    querySession = await firstSession();
  }
  const { tokenizer } = graph;
  const threads = bulkThreads();
  // A passage session that could not be made is tried again at the next call.
  const passage = queryModel === undefined ? () => Promise.resolve(querySession) : loadOnce(() => ort.InferenceSession.create(model, SESSION_OPTIONS));
  let bulkSession: Promise<OrtSession> | undefined;
  // A bulk session that cannot be made leaves the work to the passage session.
  const sessionFor = (texts: number, kind: EmbedKind): Promise<OrtSession> | OrtSession => {
    if (kind === 'query') return querySession;
    if (threads === 1 || texts < BULK_MIN_TEXTS) return passage();
    bulkSession ??= ort.InferenceSession.create(model, { ...SESSION_OPTIONS, intraOpNumThreads: threads }).catch(passage);
    return bulkSession;
  };

  async function run(on: OrtSession, rows: readonly number[][]): Promise<Float32Array[]> {
    const length = Math.max(1, ...rows.map((row) => row.length));
    const ids = new BigInt64Array(rows.length * length);
    const mask = new Float32Array(rows.length * length);
    rows.forEach((row, b) => {
      for (let i = 0; i < row.length; i += 1) {
        ids[b * length + i] = BigInt(row[i]!);
        mask[b * length + i] = 1;
      }
    });
    const output = await on.run({
      ids: new ort.Tensor('int64', ids, [rows.length, length]),
      mask: new ort.Tensor('float32', mask, [rows.length, length]),
    });
    const data = output['embedding']!.data as Float32Array;
    const width = data.length / rows.length;
    return rows.map((_, b) => data.slice(b * width, (b + 1) * width));
  }

  return {
    name: 'onnxruntime',
    async embed(texts, signal, kind = 'passage') {
      const encoded = texts.map((text) => tokenizer.encode(text).slice(0, USE_LITE_MAX_TOKENS));
      const runOn = await sessionFor(texts.length, kind);
      const order = encoded.map((_, index) => index).sort((a, b) => encoded[a]!.length - encoded[b]!.length);
      const out = new Array<Float32Array>(texts.length);
      let yieldedAt = performance.now();
      // A query's few texts finish before the bound matters; they stay in the batches their vectors were measured in.
      const maxTokens = kind === 'query' ? Number.POSITIVE_INFINITY : MAX_CALL_TOKENS;
      for (const indices of paddedBatches(
        order.map((index) => encoded[index]!.length),
        maxTokens,
      )) {
        // Each call blocks the event loop while it runs; when indexing, let timers and sockets
        // in now and then (a query's few calls finish before it matters).
        if (performance.now() - yieldedAt > YIELD_EVERY_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          yieldedAt = performance.now();
        }
        throwIfAborted(signal);
        const rows = await run(
          runOn,
          indices.map((i) => encoded[order[i]!]!),
        );
        indices.forEach((i, row) => {
          out[order[i]!] = rows[row]!;
        });
      }
      return out;
    },
  };
}
