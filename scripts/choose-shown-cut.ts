/**
 * Chooses how many hits a search shows (`shownCut`, `abstention.ts`) on the dev splits, from the
 * relevance model's probabilities over the cached candidates (`ranking-cases.ts`) ordered as the
 * engine's defaults order them. A rule only decides what follows a first hit that passed the
 * abstention threshold, so blank and abstention rates are the same under all of them.
 *
 * Rule: among the cuts whose average list length grows by at most `--budget` hits over the
 * threshold alone on every suite's dev split, the one with the best mean shown hit@5 (ties: the
 * shorter lists). Test reported once.
 *
 *   npx tsx scripts/choose-shown-cut.ts [--sample 500] [--budget 1]
 */
import { parseArgs } from 'node:util';
import { relevanceFor, shownCount, thresholdFor, type ShownCut } from '../src/search/abstention.js';
import { ENGINE_DEFAULTS } from '../src/search/index.js';
import { BUNDLED_RERANKERS } from '../src/search/rerank.js';
import { relevance } from '../src/search/relevance.js';
import type { SuiteName } from './eval-suites.js';
import { asEngineSees, CASE_SUITES, rankingCases, reorder, reorderedLabels, type RankingCase, type Reordering } from './ranking-cases.js';

const { values } = parseArgs({
  strict: true,
  options: { sample: { type: 'string', default: '500' }, budget: { type: 'string', default: '1' }, model: { type: 'string', default: 'use-lite' } },
});

const K = ENGINE_DEFAULTS.k;
const DEPTH = 10;
/** The bundled hybrid relevance model and `balanced` threshold of a case's catalogue kind. */
const modelOf = (c: RankingCase) => relevanceFor(ENGINE_DEFAULTS.relevance, c.kind).models.hybrid;
const thresholdOf = (c: RankingCase) => thresholdFor(relevanceFor(ENGINE_DEFAULTS.relevance, c.kind), 'hybrid', ENGINE_DEFAULTS.abstain);
const ordering: Reordering = { ...ENGINE_DEFAULTS, ...(ENGINE_DEFAULTS.evidenceRerank ? { rerank: BUNDLED_RERANKERS } : {}) };

interface Scored {
  readonly c: RankingCase;
  readonly scores: number[];
  readonly labels: boolean[];
}

const cases = (await rankingCases(CASE_SUITES, ['dev', 'test'], Number(values.sample), values.model)).map((c) => asEngineSees(c));
const scored: Scored[] = cases.map((c) => {
  const ranked = reorder(c, ordering).slice(0, DEPTH);
  return { c, scores: relevance(modelOf(c), ranked, c.query), labels: reorderedLabels(c, ranked) };
});

interface ShownMetrics {
  n: number;
  shown1: number;
  shown5: number;
  blank: number;
  length: number;
  precision: number;
  abstained: number;
  negatives: number;
}

function measure(rows: readonly Scored[], cut: ShownCut): ShownMetrics {
  const m: ShownMetrics = { n: 0, shown1: 0, shown5: 0, blank: 0, length: 0, precision: 0, abstained: 0, negatives: 0 };
  let shownTotal = 0;
  let relevantShown = 0;
  for (const { c, scores, labels } of rows) {
    const count = shownCount(scores, thresholdOf(c), cut, K);
    if (!c.answerable) {
      m.negatives += 1;
      if (count === 0 && !c.named) m.abstained += 1;
      continue;
    }
    m.n += 1;
    if (c.namedRelevant) {
      m.shown1 += 1;
      m.shown5 += 1;
      m.length += 1;
      shownTotal += 1;
      relevantShown += 1;
      continue;
    }
    const shown = labels.slice(0, count);
    if (count === 0) m.blank += 1;
    if (shown[0] === true) m.shown1 += 1;
    if (shown.includes(true)) m.shown5 += 1;
    m.length += count;
    shownTotal += count;
    relevantShown += shown.filter(Boolean).length;
  }
  const d = Math.max(1, m.n);
  return { ...m, shown1: m.shown1 / d, shown5: m.shown5 / d, blank: m.blank / d, length: m.length / d, precision: relevantShown / Math.max(1, shownTotal) };
}

const cuts: ShownCut[] = [{ relative: 1, floor: 1 }];
for (const relative of [0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8]) for (const floor of [0, 0.25, 0.5]) cuts.push({ relative, floor });
const label = (cut: ShownCut): string => (cut.relative >= 1 && cut.floor >= 1 ? 'threshold alone (before)' : `relative ${cut.relative} floor ${cut.floor}`);
const suites: SuiteName[] = ['metatool', 'seal', 'library'];
const rowsOf = (split: string, suite: SuiteName): Scored[] => scored.filter((s) => s.c.split === split && s.c.suite === suite);
const line = (m: ShownMetrics): string =>
  `shown@1 ${m.shown1.toFixed(3)} shown@5 ${m.shown5.toFixed(3)} len ${m.length.toFixed(2)} prec ${m.precision.toFixed(2)} blank ${m.blank.toFixed(3)} abstain ${m.abstained}/${m.negatives}`;

const budget = Number(values.budget);
const before = suites.map((suite) => measure(rowsOf('dev', suite), cuts[0]!).length);
let chosen = cuts[0]!;
let chosenScore = Number.NEGATIVE_INFINITY;
let chosenLength = Number.POSITIVE_INFINITY;
console.log(`dev, threshold per catalogue kind, k ${K}`);
for (const cut of cuts) {
  const metrics = suites.map((suite) => measure(rowsOf('dev', suite), cut));
  const score = metrics.reduce((sum, m) => sum + m.shown5, 0) / metrics.length;
  const length = metrics.reduce((sum, m) => sum + m.length, 0) / metrics.length;
  const within = metrics.every((m, i) => m.length <= before[i]! + budget);
  console.log(`${label(cut)}${within ? '' : ' (over budget)'}: ${suites.map((suite, i) => `${suite} ${line(metrics[i]!)}`).join(' | ')}`);
  if (within && (score > chosenScore + 1e-12 || (Math.abs(score - chosenScore) <= 1e-12 && length < chosenLength))) {
    chosen = cut;
    chosenScore = score;
    chosenLength = length;
  }
}
console.log(`\nchosen on dev: ${label(chosen)} ${JSON.stringify(chosen)}`);
for (const suite of [...suites, 'boundaries'] as SuiteName[]) {
  console.log(`test ${suite}: before ${line(measure(rowsOf('test', suite), cuts[0]!))}`);
  console.log(`test ${suite}: chosen ${line(measure(rowsOf('test', suite), chosen))}`);
}
