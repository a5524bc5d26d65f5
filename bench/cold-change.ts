/**
 * The first hook after one skill's description changed, at 24k registry skills, against the
 * hook with the catalog unchanged, both through the bin without a server, over an index built
 * by `skill-search index`. Each round times an unchanged call, rewrites one line of the tools
 * file (another line each round), then times the first call after it; before the next round the
 * detached indexer the changed call may leave is waited for (a user's next prompt comes seconds
 * later). Medians of {@link ROUNDS} rounds; `node -e 0` sampled between them.
 */
import type { Suite } from './context.js';
import { ColdRun, PROMPTS, againstTarget, indexerDone, median, outcomeOf, outcomes, runHook, type BinRun } from './cold-paths.js';
import { compare, type Measurement } from './results.js';

const ROUNDS = 5;
/** Issue 28: the first hook after one change ≤ 1.5× the unchanged hook. */
const TARGET = 1.5;

export const coldChangeSuite: Suite = async (context) => {
  const cold = await ColdRun.start(context);
  if (cold === undefined) return { skipped: 'needs the registry pool under the eval folder' };
  const size = cold.sizes.large;
  const catalog = await cold.indexed(size);
  // One call first, so the unchanged rounds start from what the previous prompt left.
  await runHook(catalog, cold.env, PROMPTS[0]);
  await indexerDone(catalog.indexDir);
  const unchanged: BinRun[] = [];
  const changed: BinRun[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const same = await runHook(catalog, cold.env, PROMPTS[(2 * round + 1) % PROMPTS.length]!);
    await indexerDone(catalog.indexDir);
    cold.floor.sample();
    cold.changeDescription(catalog, ((round + 1) * 7919) % size, round);
    const after = await runHook(catalog, cold.env, PROMPTS[(2 * round + 2) % PROMPTS.length]!);
    await indexerDone(catalog.indexDir);
    cold.floor.sample();
    context.log(
      `cold-change round ${round}: unchanged ${same.ms.toFixed(0)} ms (${outcomeOf(same)}), after one change ${after.ms.toFixed(0)} ms (${outcomeOf(after)})`,
    );
    unchanged.push(same);
    changed.push(after);
  }
  const group = `${size} lines`;
  const unchangedMs = median(unchanged.map((run) => run.ms));
  const row = (name: string, runs: readonly BinRun[], headline: boolean): Omit<Measurement, 'baseline' | 'ratio' | 'target'> => ({
    group,
    name,
    metric: 'median',
    value: median(runs.map((run) => run.ms)),
    unit: 'ms',
    samples: runs.length,
    better: 'lower',
    headline,
  });
  const floor = { name: 'node -e 0', value: cold.floor.median };
  const measurements: Measurement[] = [
    againstTarget(row('first hook after one description changed', changed, true), { name: 'unchanged hook', value: unchangedMs }, TARGET, [
      ...changed,
      ...unchanged,
    ]),
    againstTarget(row('hook, catalog unchanged', unchanged, false), floor, 4, unchanged),
    compare(row('first hook after one description changed', changed, false), floor),
  ];
  return {
    measurements,
    notes: [
      `unchanged: ${outcomes(unchanged)}; after a change: ${outcomes(changed)}`,
      `node -e 0 median ${cold.floor.median.toFixed(0)} ms over ${cold.floor.samples} runs; ${ROUNDS} rounds, one line's description rewritten per round`,
    ],
  };
};
