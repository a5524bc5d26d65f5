/**
 * Concurrent readers during a write: at 24k registry skills, over an index built by
 * `skill-search index`, one skill's description changes and `skill-search index` rewrites the
 * index while waves of {@link READERS} hooks run at once (through the bin, no server), wave after
 * wave until the indexer exits. None may fail and none may skip; their median wall time is set
 * against `node -e 0` sampled between the rounds.
 */
import type { Suite } from './context.js';
import { ColdRun, PROMPTS, indexerDone, median, outcomeOf, outcomes, runHook, type BinRun } from './cold-paths.js';
import { compare, type Measurement } from './results.js';

/** Hooks started together in each wave. */
const READERS = 4;
/** Index rewrites, each after a change of its own. */
const ROUNDS = 2;

export const coldReadersSuite: Suite = async (context) => {
  const cold = await ColdRun.start(context);
  if (cold === undefined) return { skipped: 'needs the registry pool under the eval folder' };
  const size = cold.sizes.large;
  const catalog = await cold.indexed(size);
  const readers: BinRun[] = [];
  let overlapped = 0;
  for (let round = 0; round < ROUNDS; round++) {
    cold.changeDescription(catalog, ((round + 11) * 104_729) % size, 100 + round);
    let writing = true;
    const writer = cold.index(catalog).finally(() => (writing = false));
    let waves = 0;
    // At least one wave, started with the writer; more while it still writes.
    do {
      const wave = await Promise.all(Array.from({ length: READERS }, (_, i) => runHook(catalog, cold.env, PROMPTS[(waves * READERS + i) % PROMPTS.length]!)));
      readers.push(...wave);
      waves += 1;
      if (writing) overlapped += wave.length;
    } while (writing);
    const written = await writer;
    await indexerDone(catalog.indexDir);
    cold.floor.sample();
    context.log(`cold-readers round ${round}: index rewrote in ${written.ms.toFixed(0)} ms; ${waves} waves of ${READERS} hooks: ${outcomes(readers)}`);
  }
  const bad = readers.filter((run) => {
    const outcome = outcomeOf(run);
    return outcome === 'failed' || outcome === 'skipped';
  });
  const group = `${size} lines`;
  const measurements: Measurement[] = [
    {
      group,
      name: `hooks that failed or skipped while \`index\` rewrote (${READERS} at once)`,
      metric: 'count',
      value: bad.length,
      unit: 'count',
      samples: readers.length,
      better: 'lower',
      target: { text: '0', met: bad.length === 0 },
    },
    compare(
      {
        group,
        name: `hook during an index rewrite, ${READERS} at once`,
        metric: 'median',
        value: median(readers.map((run) => run.ms)),
        unit: 'ms',
        samples: readers.length,
        better: 'lower',
      },
      { name: 'node -e 0', value: cold.floor.median },
    ),
  ];
  const firstBad = bad[0];
  return {
    measurements,
    notes: [
      `${readers.length} hooks over ${ROUNDS} rewrites, ${overlapped} of them started while the indexer still ran: ${outcomes(readers)}`,
      ...(firstBad === undefined ? [] : [`first failure: ${firstBad.stderr.trim().split('\n')[0] ?? ''}`]),
    ],
  };
};
