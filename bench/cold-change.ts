/**
 * The first hook after one skill's description changed, at 24k registry skills, against the
 * hook with the catalog unchanged, both through the bin without a server, over an index built
 * by `skill-search index`: once over a tools file, once over a home's `~/.claude/skills` holding
 * them as SKILL.md folders (the default sources, no source flag). Each round times an unchanged
 * call, rewrites one skill's description (another skill each round: a line of the tools file, a
 * SKILL.md saved as an editor does), then times the first call after it; before the next round the
 * detached indexer the changed call may leave is waited for (a user's next prompt comes seconds
 * later). Medians of {@link ROUNDS} rounds; `node -e 0` sampled between them.
 */
import type { Suite } from './context.js';
import {
  ColdRun,
  PROMPTS,
  againstTarget,
  indexerDone,
  median,
  outcomeOf,
  outcomes,
  runHook,
  suggestionsOf,
  type BinRun,
  type CatalogKind,
} from './cold-paths.js';
import { compare, type Measurement } from './results.js';

const ROUNDS = 5;
/** Issue 28: the first hook after one change ≤ 1.5× the unchanged hook. */
const TARGET = 1.5;

/** {@link ROUNDS} rounds of an unchanged hook and the first hook after one change, over `kind`'s catalog of `size` skills. */
async function timeChanges(cold: ColdRun, size: number, kind: CatalogKind): Promise<{ measurements: Measurement[]; notes: string[] }> {
  const catalog = await cold.indexed(size, kind);
  const env = cold.envOf(catalog);
  const group = kind === 'tools' ? `${size} lines` : `${size} SKILL.md folders`;
  // One call first, so the unchanged rounds start from what the previous prompt left.
  await runHook(catalog, env, PROMPTS[0]);
  await indexerDone(catalog.indexDir);
  const unchanged: BinRun[] = [];
  const changed: BinRun[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const same = await runHook(catalog, env, PROMPTS[(2 * round + 1) % PROMPTS.length]!);
    await indexerDone(catalog.indexDir);
    cold.floor.sample();
    cold.changeDescription(catalog, ((round + 1) * 7919) % size, round);
    const after = await runHook(catalog, env, PROMPTS[(2 * round + 2) % PROMPTS.length]!);
    await indexerDone(catalog.indexDir);
    cold.floor.sample();
    cold.context.log(
      `cold-change ${group} round ${round}: unchanged ${same.ms.toFixed(0)} ms (${outcomeOf(same)}, ${suggestionsOf(same)} suggestions), after one change ${after.ms.toFixed(0)} ms (${outcomeOf(after)}, ${suggestionsOf(after)} suggestions)`,
    );
    unchanged.push(same);
    changed.push(after);
  }
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
  return {
    measurements: [
      againstTarget(row('first hook after one description changed', changed, kind === 'tools'), { name: 'unchanged hook', value: unchangedMs }, TARGET, [
        ...changed,
        ...unchanged,
      ]),
      againstTarget(row('hook, catalog unchanged', unchanged, false), floor, 4, unchanged),
      compare(row('first hook after one description changed', changed, false), floor),
    ],
    notes: [
      `${group}: unchanged: ${outcomes(unchanged)}, suggestions ${unchanged.map(suggestionsOf).join(', ')}; after a change: ${outcomes(changed)}, suggestions ${changed.map(suggestionsOf).join(', ')}`,
    ],
  };
}

export const coldChangeSuite: Suite = async (context) => {
  const cold = await ColdRun.start(context);
  if (cold === undefined) return { skipped: 'needs the registry pool under the eval folder' };
  const measurements: Measurement[] = [];
  const notes: string[] = [];
  for (const kind of ['tools', 'skills'] as const) {
    const timed = await timeChanges(cold, cold.sizes.large, kind);
    measurements.push(...timed.measurements);
    notes.push(...timed.notes);
  }
  notes.push(
    `node -e 0 median ${cold.floor.median.toFixed(0)} ms over ${cold.floor.samples} runs; ${ROUNDS} rounds per catalog, one skill's description rewritten per round`,
  );
  return { measurements, notes };
};
