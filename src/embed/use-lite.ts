import { availableParallelism } from 'node:os';
import { throwIfAborted } from '../errors.js';
import type { Embedder, EmbedKind, EmbedUse } from '../types.js';
import { loadOnce } from '../util/load-once.js';
import { loopTurns } from '../util/loop-turns.js';
import { raceAbort } from './abortable.js';
import { FasterSide } from './faster-side.js';
import { normalizeInPlace } from './normalize.js';
import { loadOnnxRuntime, type OrtSession } from './onnxruntime.js';
import { USE_LITE_MAX_TOKENS } from './use-lite-graph.js';
import { forgetUseLiteGraph, loadUseLiteGraph, type UseLiteGraph, type UseLiteGraphOptions } from './use-lite-graph-cache.js';

/**
 * Universal Sentence Encoder lite as @energetic-ai packages it, on onnxruntime's native kernels: the bundled weights as
 * an ONNX graph (use-lite-graph.ts) and our copy of its tokenizer; the TF.js graph is the tests' oracle.
 */
export const USE_LITE_ID = 'use-lite@0.2.0';
const USE_LITE_DIMENSIONS = 512;

/** At most this many texts per onnxruntime call. */
const BATCH_SIZE = 32;
/** Padding a batch may hold relative to its real tokens (plus a few tokens' slack): batches are padded to their longest text. */
const MAX_PADDING_RATIO = 0.25;
const PADDING_SLACK_TOKENS = 8;
/**
 * Padded tokens per call when storing vectors (two texts at the cap): a long call blocks this thread
 * past a hook's watchdog (docs/cold-start.md). Fixed, not timed: a vector's last bits depend on its batch.
 */
export const MAX_CALL_TOKENS = 2 * 128;

/**
 * Splits texts of ascending `lengths` into consecutive batches (positions into `lengths`), closing one
 * when full, past the padding budget, or past `maxTokens` padded tokens; each holds at least one text.
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
  /** One unnormalised row per text, in order; checks `signal` between batches. */
  embed(texts: readonly string[], signal?: AbortSignal, kind?: EmbedKind, use?: EmbedUse): Promise<Float32Array[]>;
}

/** The passage session: one thread, so a search leaves the other cores to the agent around it. */
export const SESSION_OPTIONS = {
  graphOptimizationLevel: 'all',
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
} as const;
/** The query session skips graph optimisations, slow to make and no faster with weights as inputs (docs/cold-start.md); it logs errors only, not a warning per input. */
const QUERY_SESSION_OPTIONS = { ...SESSION_OPTIONS, graphOptimizationLevel: 'disabled', logSeverityLevel: 3 } as const;

/** Calls with this many texts (index builds) may run on a bulk session of {@link bulkThreads} threads, bit-identical to the passage one. */
export const BULK_MIN_TEXTS = 64;
/** The agent around us needs cores too. */
const BULK_MAX_THREADS = 4;

/** One thread per core, at most {@link BULK_MAX_THREADS}; 1 means no bulk session. */
export function bulkThreads(cores: number = availableParallelism()): number {
  return Math.max(1, Math.min(BULK_MAX_THREADS, cores));
}

export interface NativeUseLiteOptions {
  /** Queries on their own, faster-made session (use-lite-graph.ts `queryGraph`); `false`: on the passage session. @default true */
  readonly querySession?: boolean;
}

/**
 * Loads onnxruntime and the graph (use-lite-graph-cache.ts); rejects where the binding cannot load. `query`
 * texts run on the query session, made first, and so do transient passages (never stored: a held change, whose
 * first hook would otherwise make the passage session for one text); what the store keeps, on the passage
 * session, made at its first text.
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
  const bulk = () => (bulkSession ??= ort.InferenceSession.create(model, { ...SESSION_OPTIONS, intraOpNumThreads: threads }).catch(passage));
  // Index calls go to the bulk session or the passage one, whichever ran faster lately (same vectors either way).
  const sides = new FasterSide();

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
    async embed(texts, signal, kind = 'passage', use = {}) {
      const encoded = texts.map((text) => tokenizer.encode(text).slice(0, USE_LITE_MAX_TOKENS));
      const single = kind === 'query' || use.transient === true ? querySession : threads === 1 || texts.length < BULK_MIN_TEXTS ? await passage() : undefined;
      const order = encoded.map((_, index) => index).sort((a, b) => encoded[a]!.length - encoded[b]!.length);
      const out = new Array<Float32Array>(texts.length);
      const turn = loopTurns();
      // A query's few texts finish before the bound matters; they stay in the batches their vectors were measured in.
      const maxTokens = kind === 'query' ? Number.POSITIVE_INFINITY : MAX_CALL_TOKENS;
      const lengths = order.map((index) => encoded[index]!.length);
      for (const indices of paddedBatches(lengths, maxTokens)) {
        // Each call blocks the event loop: when indexing, let timers and sockets in now and then.
        await turn();
        throwIfAborted(signal);
        const batch = indices.map((i) => encoded[order[i]!]!);
        let rows: Float32Array[];
        if (single !== undefined) rows = await run(single, batch);
        else {
          const side = sides.pick();
          const session = await (side === 0 ? bulk() : passage());
          const started = performance.now();
          rows = await run(session, batch);
          sides.record(side, batch.length * Math.max(1, ...batch.map((row) => row.length)), performance.now() - started);
        }
        indices.forEach((i, row) => {
          out[order[i]!] = rows[row]!;
        });
      }
      return out;
    },
  };
}

/** One runtime per process, shared by every embedder; a failed load is retried. */
const loadRuntime = loadOnce(() => createNativeUseLiteRuntime());

/** The default embedder, offline after `npm install`; the model loads at the first `embed`. `runtime`: one made elsewhere (benchmarks). */
export function createUseLiteEmbedder(options: { readonly runtime?: Promise<UseLiteRuntime> } = {}): Embedder {
  return {
    id: USE_LITE_ID,
    dimensions: USE_LITE_DIMENSIONS,
    multilingual: false,
    async embed(texts, signal, kind, use) {
      if (texts.length === 0) return [];
      const runtime = await raceAbort(options.runtime ?? loadRuntime(), signal);
      const rows = await raceAbort(runtime.embed(texts, signal, kind, use), signal);
      return rows.map(normalizeInPlace);
    },
    warm: async () => {
      await (options.runtime ?? loadRuntime()).catch(() => undefined);
    },
  };
}
