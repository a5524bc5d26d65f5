/**
 * End-to-end query latency (`engine.search`, query embedding included) per mode at one
 * catalog size, against the lexical-only mode and against the same engine over the
 * brute-force exact index. Every iteration is a different query and the query cache is
 * off, so each dense or hybrid call pays the model.
 */
import type { Suite } from './context.js';
import { cycle, sizeLabel } from './context.js';
import { compare, runBench, type Measurement } from './results.js';
import type { SearchMode } from '../src/types.js';

/** The configured size closest to 10k: large enough to matter, cheap enough to build twice. */
export function querySize(sizes: readonly number[]): number {
  return [...sizes].sort((a, b) => Math.abs(Math.log(a / 10_000)) - Math.abs(Math.log(b / 10_000)))[0]!;
}

export const querySuite: Suite = async (context) => {
  const pool = context.pool(querySize(context.options.sizes));
  const group = sizeLabel(pool.skills.length);
  const key = `pool-${pool.skills.length}`;
  const hnsw = await context.engine(key, pool.skills, 'hnsw');
  const exact = await context.engine(key, pool.skills, 'exact');
  const queries = context.queries(context.options.quick ? 40 : 400);
  context.embedder.memo = false;

  const bench = context.bench({ iterations: context.options.quick ? 8 : 40 });
  const next = cycle(queries);
  const add = (name: string, engine: typeof hnsw.engine, mode: SearchMode): void => {
    bench.add(name, async () => {
      await engine.search(next(), { k: 10, mode });
    });
  };
  add('hybrid', hnsw.engine, 'hybrid');
  add('dense', hnsw.engine, 'dense');
  add('lexical', hnsw.engine, 'lexical');
  add('hybrid·exact', exact.engine, 'hybrid');
  add('dense·exact', exact.engine, 'dense');
  context.log(`query ${group}: timing 5 configurations`);
  const stats = await runBench(bench);
  const p50 = (name: string): number => stats.get(name)!.p50Ms;
  const row = (name: string, label: string, headline = false) =>
    ({ group, name: label, metric: 'p50', value: p50(name), unit: 'ms', samples: stats.get(name)!.samples, better: 'lower', headline }) as const;
  const measurements: Measurement[] = [
    compare(row('hybrid', 'hybrid search (HNSW)', true), { name: 'lexical-only search', value: p50('lexical') }),
    compare(row('dense', 'dense search (HNSW)'), { name: 'lexical-only search', value: p50('lexical') }),
    compare(row('hybrid', 'hybrid search (HNSW)', true), { name: 'hybrid over exact scan', value: p50('hybrid·exact') }),
    compare(row('dense', 'dense search (HNSW)'), { name: 'dense over exact scan', value: p50('dense·exact') }),
    { group, name: 'lexical-only search', metric: 'p50', value: p50('lexical'), unit: 'ms', samples: stats.get('lexical')!.samples },
  ];
  return {
    measurements,
    notes: [
      `${queries.length} labelled-set queries (≤ 200 chars), k=10, abstention on; each dense/hybrid call embeds its query with ${context.embedder.id} (the engine's query LRU is off: these are cold queries; a repeated query skips the embedding).`,
      `Engines: ${pool.skills.length} ${pool.origin} skills, built in ${(hnsw.syncMs / 1000).toFixed(1)} s (HNSW) / ${(exact.syncMs / 1000).toFixed(1)} s (exact) from cached embeddings.`,
    ],
  };
};
