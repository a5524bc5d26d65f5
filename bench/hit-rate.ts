/**
 * Retrieval quality on labelled sets, every mode in one run: hybrid against its own two
 * halves (lexical-only, dense-only), and the HNSW engine against the same engine over the
 * brute-force exact index (so any loss from approximate search shows as a ratio below 1).
 * Two views per mode, as `skill-search eval` reports them: ranking with abstention off (top 10
 * as ranked), and what a user is shown with abstention on (`shown`: hit@1, hit@5 and blank over
 * the answerable queries); queries labelled `relevant: []` are scored with abstention on
 * (correct when nothing is shown).
 */
import type { SearchMode } from '../src/types.js';
import type { BenchContext, Suite } from './context.js';
import type { EvalSet } from './corpus.js';
import { scoreShown } from '../src/eval/metrics.js';
import { scoreOutcomes, type QueryOutcome, type RankedItem } from './metrics.js';
import { compare, type HitRateRow, type Measurement } from './results.js';

const K = 10;

interface ModeSpec {
  readonly label: string;
  readonly mode: SearchMode;
  readonly ann: 'hnsw' | 'exact';
}

const MODES: readonly ModeSpec[] = [
  { label: 'lexical', mode: 'lexical', ann: 'hnsw' },
  { label: 'dense', mode: 'dense', ann: 'hnsw' },
  { label: 'hybrid', mode: 'hybrid', ann: 'hnsw' },
  { label: 'dense·exact', mode: 'dense', ann: 'exact' },
  { label: 'hybrid·exact', mode: 'hybrid', ann: 'exact' },
];

interface LabelledSet extends EvalSet {
  /** Judge relevance by id only (distractor pools reuse real names like `pdf`). */
  readonly byIdOnly?: boolean;
}

async function evaluate(context: BenchContext, set: LabelledSet): Promise<HitRateRow[]> {
  const rows: HitRateRow[] = [];
  const engines = {
    hnsw: (await context.engine(`set-${set.name}`, set.skills, 'hnsw')).engine,
    exact: (await context.engine(`set-${set.name}`, set.skills, 'exact')).engine,
  };
  for (const spec of MODES) {
    const engine = engines[spec.ann];
    const started = performance.now();
    const outcomes: QueryOutcome[] = [];
    const shownOutcomes: QueryOutcome[] = [];
    for (const query of set.queries) {
      const toItem = (hit: { skill: { id: string; name: string } }): RankedItem =>
        set.byIdOnly ? { id: hit.skill.id, name: hit.skill.id } : { id: hit.skill.id, name: hit.skill.name };
      const shown = await engine.search(query.query, { k: K, mode: spec.mode });
      shownOutcomes.push({ relevant: query.relevant, ranked: shown.map(toItem) });
      if (query.relevant.length === 0) {
        outcomes.push({ relevant: [], ranked: shown.map(toItem), suggested: shown.length });
      } else {
        const ranked = await engine.search(query.query, { k: K, mode: spec.mode, abstain: false });
        outcomes.push({ relevant: query.relevant, ranked: ranked.map(toItem) });
      }
    }
    const metrics = scoreOutcomes(outcomes);
    const shown = scoreShown(shownOutcomes);
    context.log(
      `hit-rate ${set.name} ${spec.label}: hit@1 ${metrics.hitAt1.toFixed(3)} hit@5 ${metrics.hitAt5.toFixed(3)}; shown hit@1 ${shown.hitAt1.toFixed(3)} hit@5 ${shown.hitAt5.toFixed(3)} blank ${shown.blank.toFixed(3)} (${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
    rows.push({ set: set.name, origin: set.origin, mode: spec.label, skills: engine.size, metrics, shown });
  }
  return rows;
}

export const hitRateSuite: Suite = async (context) => {
  const sets: LabelledSet[] = [...context.evalSets()];
  const bench = sets.find((set) => set.name === 'skillsbench');
  if (bench) {
    // The realistic case: a handful of relevant skills hidden among a large registry.
    const size = Math.min(context.options.quick ? 1000 : 10_000, Math.max(...context.options.sizes));
    const pool = context.pool(size);
    sets.push({
      ...bench,
      name: `skillsbench+${pool.skills.length}`,
      skills: [...bench.skills, ...pool.skills],
      byIdOnly: true,
    });
  }
  context.embedder.memo = true;
  const hitRates: HitRateRow[] = [];
  const measurements: Measurement[] = [];
  try {
    for (const set of sets) {
      const rows = await evaluate(context, set);
      hitRates.push(...rows);
      const hit5 = (label: string): number => rows.find((row) => row.mode === label)!.metrics.hitAt5;
      const row = {
        group: set.name,
        name: 'hybrid (HNSW)',
        metric: 'hit@5',
        value: hit5('hybrid'),
        unit: 'fraction',
        better: 'higher',
        headline: true,
      } as const;
      measurements.push(
        compare(row, { name: 'lexical-only', value: hit5('lexical') }),
        compare(row, { name: 'dense-only', value: hit5('dense') }),
        compare(row, { name: 'hybrid over the exact scan', value: hit5('hybrid·exact') }),
      );
    }
  } finally {
    context.embedder.memo = false;
  }
  const notes = sets.map(
    (set) =>
      `${set.name}: ${set.skills.length} skills, ${set.queries.length} of ${set.totalQueries} queries (deterministic sample)${set.origin === 'synthetic' ? ', synthetic' : ''}.`,
  );
  return { measurements, hitRates, notes };
};
