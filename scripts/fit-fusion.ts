/**
 * Fits the fusion's evidence gate (`lexicalEvidence`) and the boundary weights (`boundaries`)
 * against the hand-set fusion, in one run, on the same cached candidates (`ranking-cases.ts`):
 *
 * 1. fusion: four families (the hand-set formula; with the evidence gate; with a coverage share;
 *    with both), each fitted on the train splits of MetaTool, Seal-Tools and the library
 *    requests by exhaustive grid on mean hit@1 (suites weigh the same; mean MRR breaks ties);
 *    the family best on dev is chosen;
 * 2. boundaries: with that fusion, (penalty, instead boost) fitted likewise on the train splits
 *    of the library and boundary requests, kept if better on their dev splits (MetaTool and
 *    Seal-Tools are reported: their tools draw few boundaries);
 * 3. both reported on test against the hand-set fusion.
 *
 *   npx tsx scripts/fit-fusion.ts [--sample 1000]
 *
 * Deterministic: seeded split (eval-suites.ts), every-n-th sampling, exhaustive grids, ties to the
 * earlier grid point. Decision and numbers: docs/retrieval.md.
 */
import { parseArgs } from 'node:util';
import type { SuiteName } from './eval-suites.js';
import { CASE_SUITES, HAND_SET, rankingCases, rankMetrics, type RankingCase, type Reordering } from './ranking-cases.js';

const { values } = parseArgs({ strict: true, options: { sample: { type: 'string', default: '1000' }, model: { type: 'string', default: 'use-lite' } } });

const cases = await rankingCases(CASE_SUITES, ['train', 'dev', 'test'], Number(values.sample), values.model);

function group(split: string, suite: SuiteName): RankingCase[] {
  return cases.filter((c) => c.split === split && c.suite === suite);
}

/** Mean hit@1 and mean MRR over `suites` on `split`. */
function objective(split: string, suites: readonly SuiteName[], params: Reordering): [number, number] {
  const rows = suites.map((suite) => rankMetrics(group(split, suite), params)).filter((m) => m.n > 0);
  return [rows.reduce((sum, m) => sum + m.hit1, 0) / rows.length, rows.reduce((sum, m) => sum + m.mrr, 0) / rows.length];
}

const better = (a: [number, number], b: [number, number]): boolean => a[0] > b[0] + 1e-12 || (Math.abs(a[0] - b[0]) <= 1e-12 && a[1] > b[1] + 1e-12);

/** The grid point best on train (ties: the earlier point). */
function fitOnTrain(grid: readonly Reordering[], suites: readonly SuiteName[]): Reordering {
  let best = grid[0]!;
  let bestScore = objective('train', suites, best);
  for (const params of grid.slice(1)) {
    const score = objective('train', suites, params);
    if (better(score, bestScore)) {
      best = params;
      bestScore = score;
    }
  }
  return best;
}

/** Each family fitted on train, then the family best on dev (ties: the earlier, simpler family). */
function chooseOnDev(families: readonly [string, readonly Reordering[]][], suites: readonly SuiteName[], label: (p: Reordering) => string): Reordering {
  let chosen: Reordering | undefined;
  let chosenDev: [number, number] = [Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
  for (const [name, grid] of families) {
    const fitted = fitOnTrain(grid, suites);
    const train = objective('train', suites, fitted);
    const dev = objective('dev', suites, fitted);
    console.log(`  ${name}: ${label(fitted)}: train hit@1 ${train[0].toFixed(4)} MRR ${train[1].toFixed(4)} | dev ${dev[0].toFixed(4)} / ${dev[1].toFixed(4)}`);
    if (chosen === undefined || better(dev, chosenDev)) {
      chosen = fitted;
      chosenDev = dev;
    }
  }
  return chosen!;
}

const gateLabel = (p: Reordering): string =>
  `coverage share ${p.coverageShare}, gate margin ${p.lexicalEvidence.margin} coverage ${p.lexicalEvidence.coverage} share ${p.lexicalEvidence.denseShare}${p.lexicalEvidence.keepAbove ? ' keep above' : ''}`;
const COVERAGE_SHARES = [0.05, 0.1, 0.2, 0.3, 0.5];
const gateGrid = (coverageShare: number): Reordering[] => {
  const grid: Reordering[] = [];
  for (const margin of [1.1, 1.25, 1.5, 2, 3])
    for (const coverage of [0, 0.5, 0.75]) {
      for (const denseShare of [0, 0.35, 0.5]) grid.push({ ...HAND_SET, coverageShare, lexicalEvidence: { margin, coverage, denseShare, keepAbove: false } });
      grid.push({ ...HAND_SET, coverageShare, lexicalEvidence: { margin, coverage, denseShare: HAND_SET.denseShare, keepAbove: true } });
    }
  return grid;
};
console.log('fusion (fitted on train: metatool, seal, library; chosen on dev):');
const gated = chooseOnDev(
  [
    ['hand-set', [HAND_SET]],
    ['evidence gate', gateGrid(0).filter((p) => !p.lexicalEvidence.keepAbove)],
    ['keep a clear BM25 first above weaker matches', gateGrid(0).filter((p) => p.lexicalEvidence.keepAbove)],
    ['coverage share', COVERAGE_SHARES.map((coverageShare) => ({ ...HAND_SET, coverageShare }))],
    ['coverage share + gate', COVERAGE_SHARES.flatMap(gateGrid)],
  ],
  ['metatool', 'seal', 'library'],
  gateLabel,
);
console.log(`chosen: ${gateLabel(gated)}`);

const boundaryLabel = (p: Reordering): string => `penalty ${p.boundaries.penalty} instead ${p.boundaries.insteadBoost}`;
const bounded: Reordering[] = [];
for (const penalty of [0.05, 0.1, 0.2, 0.3, 0.5])
  for (const insteadBoost of [0, 0.05, 0.1, 0.2, 0.3]) bounded.push({ ...gated, boundaries: { penalty, insteadBoost } });
console.log('boundaries (fitted on train: library, boundaries; chosen on dev):');
const fitted = chooseOnDev(
  [
    ['without', [gated]],
    ['with', bounded],
  ],
  ['library', 'boundaries'],
  boundaryLabel,
);
console.log(`chosen: ${boundaryLabel(fitted)}`);

const fmt = (params: Reordering, split: string, suite: SuiteName): string => {
  const m = rankMetrics(group(split, suite), params);
  return `${m.hit1.toFixed(3)} / ${m.hit5.toFixed(3)} / ${m.mrr.toFixed(3)}`;
};
const variants: [string, Reordering][] = [
  ['hand-set', HAND_SET],
  ['+ gate', gated],
  ['+ boundaries only', { ...HAND_SET, boundaries: fitted.boundaries }],
  ['+ gate + boundaries', fitted],
];
for (const split of ['train', 'dev', 'test'] as const) {
  console.log(`\n${split} (hit@1 / hit@5 / MRR, answerable queries)`);
  for (const suite of CASE_SUITES) {
    const n = rankMetrics(group(split, suite), HAND_SET).n;
    console.log(`${suite} (${n}): ${variants.map(([name, params]) => `${name} ${fmt(params, split, suite)}`).join(' | ')}`);
  }
}
console.log(
  `\ncoverageShare ${fitted.coverageShare} lexicalEvidence ${JSON.stringify(fitted.lexicalEvidence)} boundaries ${JSON.stringify(fitted.boundaries)}`,
);
