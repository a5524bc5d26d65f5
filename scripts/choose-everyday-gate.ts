/**
 * Chooses the everyday-message gate (`EngineOptions.everydayGate`, `everyday-gate.ts`) on the
 * train splits and reports it on dev, over the cached hybrid candidates (`ranking-cases.ts`)
 * ordered as the engine's defaults order them, with the bundled relevance model and the
 * `balanced` threshold and shown cut. Deterministic: no sampling beyond the suites' own.
 *
 * Rule (train): among the gates under which, on every suite's train split, no answerable request
 * loses a relevant skill from its shown list and at most one in 500 more answerable requests is
 * shown nothing, the one abstaining on the most no-skill messages (mean share over the suites
 * that have them; ties: the lower cosine, then fewer matched words). Dev is reported, not chosen on.
 *
 *   npx tsx scripts/choose-everyday-gate.ts [--sample 500]
 */
import { parseArgs } from 'node:util';
import { shownCount, thresholdFor } from '../src/search/abstention.js';
import { lacksSpecificEvidence, type EverydayGate } from '../src/search/everyday-gate.js';
import { ENGINE_DEFAULTS } from '../src/search/index.js';
import { BUNDLED_RERANK } from '../src/search/rerank.js';
import { relevance } from '../src/search/relevance.js';
import type { SuiteName } from './eval-suites.js';
import { asEngineSees, rankingCases, reorder, reorderedLabels, type RankingCase, type Reordering } from './ranking-cases.js';

const { values } = parseArgs({ strict: true, options: { sample: { type: 'string', default: '500' }, model: { type: 'string', default: 'use-lite' } } });

const K = ENGINE_DEFAULTS.k;
const DEPTH = 10;
const SUITES: readonly SuiteName[] = ['metatool', 'seal', 'library', 'library-r2'];
const model = ENGINE_DEFAULTS.relevance.models.hybrid;
const threshold = thresholdFor(ENGINE_DEFAULTS.relevance, 'hybrid', ENGINE_DEFAULTS.abstain);
const ordering: Reordering = { ...ENGINE_DEFAULTS, ...(ENGINE_DEFAULTS.evidenceRerank ? { rerank: BUNDLED_RERANK } : {}) };

interface Case {
  readonly c: RankingCase;
  readonly ranked: ReturnType<typeof reorder>;
  readonly count: number;
  readonly labels: boolean[];
}

const cases: Case[] = (await rankingCases(SUITES, ['train', 'dev'], Number(values.sample), values.model)).map((raw) => {
  const c = asEngineSees(raw);
  const ranked = reorder(c, ordering).slice(0, DEPTH);
  const count = shownCount(relevance(model, ranked, c.query), threshold, ENGINE_DEFAULTS.shownCut, K);
  return { c, ranked, count, labels: reorderedLabels(c, ranked) };
});

interface Metrics {
  answerable: number;
  shown5: number;
  blank: number;
  negatives: number;
  abstained: number;
}

function measure(rows: readonly Case[], gate: EverydayGate): Metrics {
  const m: Metrics = { answerable: 0, shown5: 0, blank: 0, negatives: 0, abstained: 0 };
  for (const { c, ranked, count, labels } of rows) {
    const shown = lacksSpecificEvidence(ranked, c.query.terms.size, gate) ? 0 : count;
    if (!c.answerable) {
      // A message naming a skill shows it whatever the gate says.
      if (c.named) continue;
      m.negatives += 1;
      if (shown === 0) m.abstained += 1;
      continue;
    }
    m.answerable += 1;
    if (c.namedRelevant) {
      m.shown5 += 1;
      continue;
    }
    if (shown === 0 && !c.named) m.blank += 1;
    if (labels.slice(0, shown).includes(true)) m.shown5 += 1;
  }
  return m;
}

const OFF: EverydayGate = { cosine: 0, matchedTerms: 0 };
const gates: EverydayGate[] = [];
for (let cosine = 0.2; cosine <= 0.5 + 1e-9; cosine += 0.02)
  for (const matchedTerms of [0, 1, 2]) gates.push({ cosine: Number(cosine.toFixed(2)), matchedTerms });

const rowsOf = (split: string, suite: SuiteName): Case[] => cases.filter((row) => row.c.split === split && row.c.suite === suite);
const line = (m: Metrics): string => `shown@5 ${m.shown5}/${m.answerable} blank ${m.blank} abstained ${m.abstained}/${m.negatives}`;
const report = (split: string, gate: EverydayGate): string => SUITES.map((suite) => `${suite} ${line(measure(rowsOf(split, suite), gate))}`).join(' | ');

const before = SUITES.map((suite) => measure(rowsOf('train', suite), OFF));
let chosen = OFF;
let chosenScore = Number.NEGATIVE_INFINITY;
console.log(`train, threshold ${threshold}, k ${K}\noff: ${report('train', OFF)}`);
for (const gate of gates) {
  const metrics = SUITES.map((suite) => measure(rowsOf('train', suite), gate));
  const within = metrics.every((m, i) => m.shown5 >= before[i]!.shown5 && m.blank - before[i]!.blank <= Math.max(1, m.answerable / 500));
  const withNegatives = metrics.filter((m) => m.negatives > 0);
  const score = withNegatives.reduce((sum, m) => sum + m.abstained / m.negatives, 0) / Math.max(1, withNegatives.length);
  console.log(`${JSON.stringify(gate)}${within ? '' : ' (drops answerable)'}: ${report('train', gate)}`);
  if (within && score > chosenScore + 1e-12) {
    chosen = gate;
    chosenScore = score;
  }
}
console.log(`\nchosen on train: ${JSON.stringify(chosen)}`);
console.log(`dev off:    ${report('dev', OFF)}`);
console.log(`dev chosen: ${report('dev', chosen)}`);
