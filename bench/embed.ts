/**
 * Embedding cost: one query at a time (what a user's message pays) against a batch of 32
 * (what indexing pays per sentence). Always the raw model, never the cache.
 */
import type { Suite } from './context.js';
import { cycle } from './context.js';
import { compare, runBench } from './results.js';

const BATCH = 32;

export const embedSuite: Suite = async (context) => {
  const model = context.embedder.inner;
  const queries = context.queries(context.options.quick ? 40 : 256);
  const loadStart = performance.now();
  await model.embed(['warm up the model']);
  const firstCallMs = performance.now() - loadStart;

  const nextQuery = cycle(queries);
  const batches: string[][] = [];
  for (let i = 0; i + BATCH <= Math.max(queries.length, BATCH); i += BATCH) {
    batches.push(Array.from({ length: BATCH }, (_, j) => queries[(i + j) % queries.length]!));
  }
  const nextBatch = cycle(batches);
  const bench = context.bench({ iterations: context.options.quick ? 5 : 20 });
  bench.add('embed 1 query', async () => {
    await model.embed([nextQuery()]);
  });
  bench.add(`embed batch of ${BATCH}`, async () => {
    await model.embed(nextBatch());
  });
  const stats = await runBench(bench);
  const single = stats.get('embed 1 query')!;
  const batch = stats.get(`embed batch of ${BATCH}`)!;
  const perSentence = batch.meanMs / BATCH;
  return {
    measurements: [
      { group: model.id, name: 'first call (model load + 1 sentence)', metric: 'once', value: firstCallMs, unit: 'ms' },
      { group: model.id, name: 'embed 1 query', metric: 'p50', value: single.p50Ms, unit: 'ms', samples: single.samples },
      {
        ...compare(
          {
            group: model.id,
            name: 'batched embedding, per sentence',
            metric: 'mean',
            value: perSentence,
            unit: 'ms',
            samples: batch.samples,
            better: 'lower',
            headline: true,
          },
          { name: 'one query alone', value: single.meanMs },
        ),
      },
      { group: model.id, name: `throughput in batches of ${BATCH}`, metric: 'mean', value: (1000 * BATCH) / batch.meanMs, unit: 'per-s' },
    ],
    notes: [`${queries.length} distinct labelled-set queries of ≤ 200 characters, cycled; the cache is bypassed.`],
  };
};
