/**
 * How many cores an onnxruntime session of USE-lite uses, by how its graph is handed over (a
 * file path or the bytes) and how many intra-op threads it asks for: texts per second and
 * cores used (CPU time over wall time) over timed runs of one padded batch (docs/cold-build.md,
 * Threads). Each configuration runs in a fresh process, configurations alternated per round.
 *
 * Usage: npx tsx scripts/measure-session-threads.ts [--rounds 2] [--runs 20]
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadUseLiteGraph } from '../src/embed/use-lite-graph-cache.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '2' },
    runs: { type: 'string', default: '20' },
    child: { type: 'string' },
  },
});
const BATCH = 32;
const TOKENS = 60;
const CONFIGS = ['path:1', 'bytes:1', 'path:2'] as const;

interface OrtModule {
  InferenceSession: {
    create(model: string | Uint8Array, options: Record<string, unknown>): Promise<{ run(feeds: Record<string, unknown>): Promise<unknown> }>;
  };
  Tensor: new (type: string, data: BigInt64Array | Float32Array, dims: number[]) => unknown;
}

async function child(config: string): Promise<{ textsPerSecond: number; cores: number }> {
  const [source, threads] = config.split(':') as [string, string];
  const graph = await loadUseLiteGraph();
  if (typeof graph.model !== 'string') throw new Error('run once more: the graph was not in the cache yet');
  const loaded = (await import('onnxruntime-node')) as unknown as OrtModule & { default?: OrtModule };
  const ort = loaded.default ?? loaded;
  const model = source === 'bytes' ? new Uint8Array(readFileSync(graph.model)) : graph.model;
  const session = await ort.InferenceSession.create(model, {
    graphOptimizationLevel: 'all',
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  // Ordinary vocabulary ids (the first few are control symbols).
  const ids = BigInt64Array.from({ length: BATCH * TOKENS }, (_, i) => BigInt(6 + ((i * 37) % 7000)));
  const mask = new Float32Array(BATCH * TOKENS).fill(1);
  const feeds = () => ({ ids: new ort.Tensor('int64', ids, [BATCH, TOKENS]), mask: new ort.Tensor('float32', mask, [BATCH, TOKENS]) });
  await session.run(feeds());
  const runs = Number(values.runs);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let run = 0; run < runs; run++) await session.run(feeds());
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { textsPerSecond: (runs * BATCH * 1000) / wallMs, cores: (cpu.user + cpu.system) / 1000 / wallMs };
}

if (values.child !== undefined) {
  console.log(JSON.stringify(await child(values.child)));
} else {
  const results = new Map<string, string[]>(CONFIGS.map((config) => [config, []]));
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const config of round % 2 === 0 ? CONFIGS : [...CONFIGS].reverse()) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--child', config, '--runs', values.runs], { encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`${config} exited ${String(run.status)}: ${run.stderr}`);
      const { textsPerSecond, cores } = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { textsPerSecond: number; cores: number };
      results.get(config)!.push(`${textsPerSecond.toFixed(0)} texts/s on ${cores.toFixed(2)} cores`);
    }
  }
  for (const [config, runs] of results) {
    const [source, threads] = config.split(':');
    console.log(`graph as a ${source === 'path' ? 'file path' : 'buffer'}, ${threads} thread(s) asked: ${runs.join('; ')}`);
  }
}
