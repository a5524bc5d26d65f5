/**
 * The engine at each catalog size (1k / 10k / 24k by default): index build from cached
 * embeddings, end-to-end hybrid and lexical query latency, and reindexing after one skill
 * changed — each against its value at the smallest size, so the growth is the result.
 */
import type { Suite } from './context.js';
import { cycle, sizeLabel } from './context.js';
import { compare, runBench, type Measurement, type ScalingPoint, type TaskStats } from './results.js';
import type { Skill } from '../src/types.js';
import { toSkill } from './corpus.js';

/** The same skill with a changed description, so its content hash and vector change. */
export function edited(skill: Skill, round: number): Skill {
  return toSkill(
    { id: skill.id, name: skill.name, description: `${skill.description} (revision ${round})`, ...(skill.whenToUse ? { whenToUse: skill.whenToUse } : {}) },
    skill.path.replace(/^tools:|#.*$/g, ''),
  );
}

export const scalingSuite: Suite = async (context) => {
  const measurements: Measurement[] = [];
  const scaling: ScalingPoint[] = [];
  const queries = context.queries(context.options.quick ? 30 : 300);
  context.embedder.memo = false;
  let smallest: { size: number; build: number; hybrid: TaskStats; lexical: TaskStats; reindex: TaskStats } | undefined;
  for (const requested of context.options.sizes) {
    const pool = context.pool(requested);
    const size = pool.skills.length;
    const group = sizeLabel(size);
    const opened = await context.engine(`pool-${size}`, pool.skills, 'hnsw');
    const { engine } = opened;

    const next = cycle(queries);
    const skills = [...pool.skills];
    let round = 0;
    const bench = context.bench({ iterations: context.options.quick ? 6 : 30 });
    bench.add('hybrid', async () => {
      await engine.search(next(), { k: 10 });
    });
    bench.add('lexical', async () => {
      await engine.search(next(), { k: 10, mode: 'lexical' });
    });
    const reindex = context.bench({ iterations: context.options.quick ? 3 : 5, time: 1, warmupIterations: 1 });
    reindex.add('reindex', async () => {
      round++;
      const at = (round * 7919) % skills.length;
      skills[at] = edited(pool.skills[at]!, round);
      await engine.sync(skills);
    });
    context.log(`scaling ${group}: timing queries and one-change reindex`);
    const stats = await runBench(bench);
    const reindexStats = (await runBench(reindex)).get('reindex')!;
    await engine.sync(pool.skills);
    const current = { size, build: opened.syncMs, hybrid: stats.get('hybrid')!, lexical: stats.get('lexical')!, reindex: reindexStats };
    smallest ??= current;
    const base = sizeLabel(smallest.size);
    measurements.push(
      compare(
        { group, name: 'index build (cached embeddings)', metric: 'once', value: current.build, unit: 'ms', better: 'lower' },
        { name: base, value: smallest.build },
      ),
      compare(
        { group, name: 'hybrid query end to end', metric: 'p50', value: current.hybrid.p50Ms, unit: 'ms', samples: current.hybrid.samples, better: 'lower' },
        { name: base, value: smallest.hybrid.p50Ms },
      ),
      compare(
        { group, name: 'lexical query end to end', metric: 'p50', value: current.lexical.p50Ms, unit: 'ms', samples: current.lexical.samples, better: 'lower' },
        { name: base, value: smallest.lexical.p50Ms },
      ),
      compare(
        {
          group,
          name: 'reindex after one change',
          metric: 'mean',
          value: current.reindex.meanMs,
          unit: 'ms',
          samples: current.reindex.samples,
          better: 'lower',
          headline: size !== smallest.size,
        },
        { name: `${group} index build`, value: current.build },
      ),
    );
    scaling.push({ size, series: 'hybrid end to end (embed + search)', p50Ms: current.hybrid.p50Ms });
  }
  return {
    measurements,
    scaling,
    notes: ['Engines persist to a temp folder, as installed; the reindex includes re-embedding the changed skill and saving the index.'],
  };
};
