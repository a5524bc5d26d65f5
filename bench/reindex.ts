/**
 * Keeping the index current (SPEC §3): re-syncing after one skill changed, and reopening a
 * persisted index and answering one query (a cold CLI call), against rebuilding everything — once with the model
 * embedding every skill (what a naive rebuild pays) and once from cached embeddings.
 */
import { SkillSearchEngine } from '../src/search/index.js';
import type { Embedder, Skill } from '../src/types.js';
import type { BenchContext, Suite } from './context.js';
import { NO_QUERY_CACHE, sizeLabel } from './context.js';
import { compare, runBench, type Measurement } from './results.js';
import { edited } from './scaling.js';

async function fullBuild(
  context: BenchContext,
  embedder: Embedder,
  skills: readonly Skill[],
  label: string,
): Promise<{ engine: SkillSearchEngine; ms: number; indexDir: string }> {
  const indexDir = context.tempDir(`reindex-${label}`);
  const started = performance.now();
  const engine = await SkillSearchEngine.open({ embedder, indexDir, ...NO_QUERY_CACHE });
  await engine.sync(skills);
  return { engine, ms: performance.now() - started, indexDir };
}

export const reindexSuite: Suite = async (context) => {
  const pool = context.pool(context.options.quick ? 200 : 1000);
  const skills = pool.skills;
  const group = sizeLabel(skills.length);
  await context.primeSkills(skills, `${group} pool`);

  context.log(`reindex ${group}: full build, every skill through the model`);
  const cold = await fullBuild(context, context.embedder.inner, skills, 'cold');
  await cold.engine.close();
  context.log(`reindex ${group}: full build from cached embeddings`);
  const warm = await fullBuild(context, context.embedder, skills, 'warm');

  const current = [...skills];
  let round = 0;
  const bench = context.bench({ iterations: context.options.quick ? 3 : 10, time: 1, warmupIterations: 1 });
  bench.add('one change', async () => {
    round++;
    const at = (round * 7919) % current.length;
    current[at] = edited(skills[at]!, round);
    await warm.engine.sync(current);
  });
  context.log(`reindex ${group}: one change at a time`);
  const one = (await runBench(bench)).get('one change')!;
  await warm.engine.close();

  context.log(`reindex ${group}: reopen the persisted index`);
  const firstQuery = context.queries(1)[0] ?? 'extract tables from a pdf';
  const started = performance.now();
  const reopened = await SkillSearchEngine.open({ embedder: context.embedder.inner, indexDir: warm.indexDir, ...NO_QUERY_CACHE });
  const resync = await reopened.sync(current);
  // Vectors may load lazily at the first dense or hybrid search: a cold CLI call pays that too.
  await reopened.search(firstQuery, { k: 10 });
  const reopenMs = performance.now() - started;
  await reopened.close();

  const coldBase = { name: 'full rebuild, model embeds all', value: cold.ms };
  const warmBase = { name: 'full rebuild, cached embeddings', value: warm.ms };
  const measurements: Measurement[] = [
    { group, name: 'full rebuild, model embeds all', metric: 'once', value: cold.ms, unit: 'ms' },
    compare({ group, name: 'full rebuild, cached embeddings', metric: 'once', value: warm.ms, unit: 'ms', better: 'lower' }, coldBase),
    compare(
      { group, name: 'reindex after one change', metric: 'mean', value: one.meanMs, unit: 'ms', samples: one.samples, better: 'lower', headline: true },
      coldBase,
    ),
    compare({ group, name: 'reindex after one change', metric: 'mean', value: one.meanMs, unit: 'ms', samples: one.samples, better: 'lower' }, warmBase),
    compare(
      { group, name: 'cold start: reopen + sync + first hybrid query', metric: 'once', value: reopenMs, unit: 'ms', better: 'lower', headline: true },
      coldBase,
    ),
  ];
  return {
    measurements,
    notes: [`${skills.length} ${pool.origin} skills persisted to a temp folder. Reopen re-embedded ${resync.embedded} skills (expected 0).`],
  };
};
