/**
 * What the background prefetch costs a turn (SPEC §5): the time `start()` holds the turn,
 * and the wait at `collect()` after the model streamed and tools ran, against simply
 * awaiting the same search before the turn (the blocking design the prefetch replaces).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SkillPrefetcher } from '../src/prefetch/prefetcher.js';
import type { Suite } from './context.js';
import { cycle, sizeLabel } from './context.js';
import { percentile } from './metrics.js';
import { compare, runBench, type Measurement } from './results.js';
import { querySize } from './query.js';

/** A conservative time between the user message and the end of tool calls. */
const STREAM_MS = 300;

export const prefetchSuite: Suite = async (context) => {
  const pool = context.pool(querySize(context.options.sizes));
  const group = sizeLabel(pool.skills.length);
  const { engine } = await context.engine(`pool-${pool.skills.length}`, pool.skills, 'hnsw');
  const queries = context.queries(context.options.quick ? 30 : 200);
  context.embedder.memo = false;
  const next = cycle(queries);

  const bench = context.bench({ iterations: context.options.quick ? 8 : 40 });
  bench.add('blocking', async () => {
    await engine.search(next(), { k: 10 });
  });
  context.log(`prefetch ${group}: blocking baseline`);
  const blocking = (await runBench(bench)).get('blocking')!;

  const prefetcher = new SkillPrefetcher({ searcher: engine });
  const turns = context.options.quick ? 8 : 40;
  const startMs: number[] = [];
  const addedStreaming: number[] = [];
  const addedImmediate: number[] = [];
  context.log(`prefetch ${group}: ${turns} turns with ${STREAM_MS} ms of streaming, ${turns} collected at once`);
  for (let i = 0; i < turns; i++) {
    const before = performance.now();
    const handle = prefetcher.start({ userMessage: next() });
    startMs.push(performance.now() - before);
    await sleep(STREAM_MS);
    await handle.collect();
    addedStreaming.push(handle.timing.addedMs ?? Number.NaN);
  }
  for (let i = 0; i < turns; i++) {
    const handle = prefetcher.start({ userMessage: next() });
    await handle.collect();
    addedImmediate.push(handle.timing.addedMs ?? Number.NaN);
  }
  await prefetcher.idle();
  const baseline = { name: 'blocking search', value: blocking.p50Ms };
  const measurements: Measurement[] = [
    { group, name: 'blocking search before the turn', metric: 'p50', value: blocking.p50Ms, unit: 'ms', samples: blocking.samples },
    compare(
      {
        group,
        name: 'prefetch start() on the turn',
        metric: 'p50',
        value: percentile(startMs, 50),
        unit: 'ms',
        samples: turns,
        better: 'lower',
        headline: true,
      },
      baseline,
    ),
    compare(
      {
        group,
        name: `prefetch wait at collect, ${STREAM_MS} ms stream`,
        metric: 'p50',
        value: percentile(addedStreaming, 50),
        unit: 'ms',
        samples: turns,
        better: 'lower',
        headline: true,
      },
      baseline,
    ),
    compare(
      {
        group,
        name: `prefetch wait at collect, ${STREAM_MS} ms stream`,
        metric: 'p99',
        value: percentile(addedStreaming, 99),
        unit: 'ms',
        samples: turns,
        better: 'lower',
      },
      { name: 'blocking search p99', value: blocking.p99Ms },
    ),
    compare(
      {
        group,
        name: 'prefetch collected at once (no stream)',
        metric: 'p50',
        value: percentile(addedImmediate, 50),
        unit: 'ms',
        samples: turns,
        better: 'lower',
      },
      baseline,
    ),
  ];
  return {
    measurements,
    notes: [
      `The stream is a ${STREAM_MS} ms timer (model output is I/O); search runs meanwhile on the same thread. "Collected at once" is the worst case: no overlap, only the prefetch's bookkeeping on top of the search.`,
    ],
  };
};
