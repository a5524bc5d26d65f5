/**
 * Learned fusion against the hand-set one, in the same run, on the same candidates: (1) a
 * logistic model over each hybrid candidate's normalised dense and lexical scores (split by
 * query length, as the hand-set ramp is), coverage and raw cosine; (2) the hand-set formula's
 * one weight, the dense share, chosen by MRR on the train split. Fitted on train, compared on
 * dev and test by hit@1, hit@5 and MRR of the re-ordered candidates.
 *
 *   npx tsx scripts/fit-fusion.ts [--sample 1000]
 *
 * Deterministic (seeded split, every-n-th sampling, Newton from zero). Decision and numbers:
 * docs/retrieval.md.
 */
import { parseArgs } from 'node:util';
import { resolveEmbedder } from '../src/embed/index.js';
import { ENGINE_DEFAULTS, SkillSearchEngine } from '../src/search/index.js';
import type { RankedEvidence } from '../src/search/relevance.js';
import { evalIndexDir, loadSuite, queryVectorsFile, type Split, type SuiteName } from './eval-suites.js';
import { rememberVectors } from './query-vectors.js';

const { values } = parseArgs({ strict: true, options: { sample: { type: 'string', default: '1000' }, model: { type: 'string', default: 'use-lite' } } });

interface Case {
  readonly suite: SuiteName;
  readonly split: Split;
  /** Per candidate: feature row, hand-set order score, relevant. */
  readonly rows: number[][];
  readonly handSet: number[];
  readonly labels: boolean[];
  /** Per candidate: [normalised dense, relative BM25, long-query ramp t]. */
  readonly parts: number[][];
}

const FEATURES = ['dense·short', 'dense·long', 'lexical·short', 'lexical·long', 'coverage', 'cosine'] as const;

/** Per candidate: [min-max centred cosine, BM25 relative to the best, long-query ramp t in [0, 1]] as fusion.ts computes them. */
function partsOf(ranked: readonly RankedEvidence[], terms: number): number[][] {
  const long = Math.min(1, Math.max(0, (terms - ENGINE_DEFAULTS.longQuery.terms) / ENGINE_DEFAULTS.longQuery.terms));
  const centered = ranked.map((hit) => hit.centered ?? 0);
  const min = Math.min(...centered);
  const span = Math.max(...centered) - min;
  const best = Math.max(0, ...ranked.map((hit) => hit.lexical ?? 0));
  return ranked.map((hit) => [span > 0 ? ((hit.centered ?? 0) - min) / span : 1, best > 0 ? (hit.lexical ?? 0) / best : 0, long]);
}

function rowsOf(ranked: readonly RankedEvidence[], terms: number): number[][] {
  return partsOf(ranked, terms).map(([dense, lexical, long], i) => {
    const hit = ranked[i]!;
    return [dense! * (1 - long!), dense! * long!, lexical! * (1 - long!), lexical! * long!, (hit.lexical ?? 0) > 0 ? (hit.coverage ?? 0) : 0, hit.cosine ?? 0];
  });
}

async function collect(): Promise<Case[]> {
  const base = resolveEmbedder(values.model);
  const cases: Case[] = [];
  for (const name of ['metatool', 'seal', 'library'] as const) {
    for (const split of ['train', 'dev', 'test'] as const) {
      const suite = await loadSuite(name, { splits: [split], sample: Number(values.sample) });
      if (suite === undefined) continue;
      const embedder = rememberVectors(base, queryVectorsFile(base));
      const engine = await SkillSearchEngine.open({
        embedder,
        indexDir: evalIndexDir(name, base),
        queryCacheSize: 0,
        keepLexical: 0,
      });
      await engine.sync(suite.skills);
      for (const query of suite.queries) {
        if (query.relevant.length === 0) continue;
        const { ranked } = await engine.rank(query.query, { mode: 'hybrid', k: 200 });
        const wanted = new Set(query.relevant);
        cases.push({
          suite: name,
          split,
          rows: rowsOf(ranked.ranked, ranked.query.terms.size),
          handSet: ranked.ranked.map((hit) => hit.order),
          labels: ranked.ranked.map((hit) => wanted.has(hit.id) || wanted.has(hit.name)),
          parts: partsOf(ranked.ranked, ranked.query.terms.size),
        });
      }
      embedder.save();
      await engine.close();
      console.error(`${name} ${split}: done`);
    }
  }
  return cases;
}

function fit(cases: readonly Case[]): number[] {
  const train = cases.filter((c) => c.split === 'train');
  const perSuite = new Map<SuiteName, number>();
  for (const c of train) perSuite.set(c.suite, (perSuite.get(c.suite) ?? 0) + 1);
  const d = FEATURES.length + 1;
  let beta = new Array<number>(d).fill(0);
  for (let iter = 0; iter < 30; iter += 1) {
    const grad = new Array<number>(d).fill(0);
    const hess = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (const c of train) {
      const w = 1 / perSuite.get(c.suite)! / Math.max(1, c.rows.length);
      c.rows.forEach((features, i) => {
        const row = [1, ...features];
        const p = 1 / (1 + Math.exp(-row.reduce((sum, x, j) => sum + x * beta[j]!, 0)));
        for (let j = 0; j < d; j += 1) {
          grad[j]! += w * (p - (c.labels[i] ? 1 : 0)) * row[j]!;
          for (let l = 0; l < d; l += 1) hess[j]![l]! += w * p * (1 - p) * row[j]! * row[l]!;
        }
      });
    }
    for (let j = 1; j < d; j += 1) {
      grad[j]! += 1e-4 * beta[j]!;
      hess[j]![j]! += 1e-4;
    }
    // Gaussian elimination.
    const m = hess.map((row, i) => [...row, grad[i]!]);
    for (let c = 0; c < d; c += 1) {
      for (let r = c + 1; r < d; r += 1) {
        const f = m[r]![c]! / m[c]![c]!;
        for (let j = c; j <= d; j += 1) m[r]![j]! -= f * m[c]![j]!;
      }
    }
    const step = new Array<number>(d).fill(0);
    for (let r = d - 1; r >= 0; r -= 1) step[r] = (m[r]![d]! - m[r]!.slice(r + 1, d).reduce((sum, x, j) => sum + x * step[r + 1 + j]!, 0)) / m[r]![r]!;
    beta = beta.map((b, j) => b - step[j]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return beta;
}

function metrics(cases: readonly Case[], order: (c: Case) => number[]): { hit1: number; hit5: number; mrr: number } {
  let hit1 = 0;
  let hit5 = 0;
  let mrr = 0;
  for (const c of cases) {
    const s = order(c);
    const ranks = c.labels.map((_, i) => i).sort((a, b) => s[b]! - s[a]! || a - b);
    const first = ranks.findIndex((i) => c.labels[i]);
    if (first === 0) hit1 += 1;
    if (first >= 0 && first < 5) hit5 += 1;
    if (first >= 0) mrr += 1 / (first + 1);
  }
  const n = Math.max(1, cases.length);
  return { hit1: hit1 / n, hit5: hit5 / n, mrr: mrr / n };
}

function score(cases: readonly Case[], order: (c: Case) => number[]): string {
  const m = metrics(cases, order);
  return `hit@1 ${m.hit1.toFixed(3)} hit@5 ${m.hit5.toFixed(3)} MRR ${m.mrr.toFixed(3)}`;
}

/** The hand-set formula with dense share `share` for short queries (ramping to 0 for long ones). */
const withShare =
  (share: number) =>
  (c: Case): number[] =>
    c.parts.map(([dense, lexical, t]) => share * (1 - t!) * dense! + (1 - share * (1 - t!)) * lexical!);

const cases = await collect();
const beta = fit(cases);
console.log(`learned: bias ${beta[0]!.toFixed(3)}, ${FEATURES.map((name, j) => `${name} ${beta[j + 1]!.toFixed(3)}`).join(', ')}`);
const learned = (c: Case): number[] => c.rows.map((row) => row.reduce((sum, x, j) => sum + x * beta[j + 1]!, 0));
// Mean MRR over the three suites (each suite weighs the same), on train.
const trainBySuite = (['metatool', 'seal', 'library'] as const).map((suite) => cases.filter((c) => c.split === 'train' && c.suite === suite));
const shares = [0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9];
const trainMrr = shares.map((share) => trainBySuite.reduce((sum, group) => sum + metrics(group, withShare(share)).mrr, 0) / trainBySuite.length);
shares.forEach((share, i) => console.log(`train dense share ${share}: mean MRR ${trainMrr[i]!.toFixed(4)}`));
const bestShare = shares[trainMrr.indexOf(Math.max(...trainMrr))]!;
console.log(`fitted dense share: ${bestShare} (hand-set ${ENGINE_DEFAULTS.denseShare})`);
for (const split of ['dev', 'test'] as const) {
  for (const suite of ['metatool', 'seal', 'library'] as const) {
    const group = cases.filter((c) => c.split === split && c.suite === suite);
    console.log(
      `${split} ${suite} (${group.length}): hand-set ${score(group, (c) => c.handSet)} | share ${bestShare} ${score(group, withShare(bestShare))} | logistic ${score(group, learned)}`,
    );
  }
}
