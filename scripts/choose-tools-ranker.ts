/**
 * The re-ranker of tool lists (`kinds.tools` in `src/search/rerank-model.json`) chosen again (issue #31, thirteenth
 * round, tools): replays the cached hybrid candidates of MetaTool and Seal-Tools (`ranking-cases.ts`, sample 500,
 * seeded split `skill-search-split-1`) under today's tools model, the hand-set fusion alone (the ranking before #31),
 * and refits fitted on the train splits, and scores them on dev. The rule that picks one is in docs/retrieval.md
 * ("Tool lists back to …"); this script only applies it.
 *
 *   npx tsx scripts/choose-tools-ranker.ts --flips            # per request: what today's model changes against the fusion
 *   npx tsx scripts/choose-tools-ranker.ts [--write]           # the grid on dev, the rule's choice (written with --write)
 *
 * Deterministic: no randomness (seeded split, every-n-th sampling, Newton from zero, grid ties to the earlier point).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BUNDLED_RERANKERS, rerankedOrders, rerankPool, rerankRows, type RerankFeature, type RerankModel } from '../src/search/rerank.js';
import { loadSuite, SPLIT_SEED, type Split, type SuiteName } from './eval-suites.js';
import { asEngineSees, ENGINE_FUSION, fusedOrders, metricsOf, rankingCases, replayBoundaries, rerankInput, type RankingCase, type RankMetrics } from './ranking-cases.js';
import { fitListings, type FitListing, type Objective } from './rerank-fit.js';

const { values } = parseArgs({
  strict: true,
  options: {
    flips: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
  },
});

const SUITES: readonly SuiteName[] = ['metatool', 'seal'];
const SAMPLE = 500;
const cases = (await rankingCases(SUITES, ['train', 'dev'], SAMPLE)).map((c) => asEngineSees(c));
for (const c of cases) if (c.kind !== 'tools') throw new Error(`${c.suite}: its catalogue reads as ${c.kind}, not tools`);
const group = (suite: SuiteName, split: Split): RankingCase[] => cases.filter((c) => c.suite === suite && c.split === split);

/** The fused ordering scores of a case, computed once. */
const fusedMemo = new WeakMap<RankingCase, readonly number[]>();
function fused(c: RankingCase): readonly number[] {
  let found = fusedMemo.get(c);
  if (found === undefined) {
    found = fusedOrders(c, ENGINE_FUSION);
    fusedMemo.set(c, found);
  }
  return found;
}

/** The candidates' ordering scores under `model` (none: the hand-set fusion), boundaries applied, as the engine gives them. */
function ordersOf(c: RankingCase, model: RerankModel | undefined): number[] {
  const orders = [...fused(c)];
  if (model !== undefined) rerankedOrders(rerankInput(c, orders), c.query.terms, model).forEach((order, i) => (orders[i] = order));
  replayBoundaries(c, orders, ENGINE_FUSION.boundaries);
  return orders;
}
const byOrder = (orders: readonly number[]): number[] => orders.map((_, i) => i).sort((a, b) => orders[b]! - orders[a]! || a - b);
/** Where `model` puts the case's first relevant candidate (−1: none among its candidates). */
function firstRelevant(c: RankingCase, model: RerankModel | undefined): number {
  const ranked = byOrder(ordersOf(c, model));
  return ranked.findIndex((i) => c.labels[i]);
}
const metrics = (list: readonly RankingCase[], model: RerankModel | undefined): RankMetrics => metricsOf(list, (c) => firstRelevant(c, model));

const TODAY = BUNDLED_RERANKERS.tools;

if (values.flips) {
  const text = new Map<string, string>();
  for (const suite of SUITES)
    for (const split of ['train', 'dev'] as const)
      for (const q of (await loadSuite(suite, { splits: [split], sample: SAMPLE }))!.queries) text.set(`${suite}:${q.id}`, q.query);
  const features: RerankFeature[] = ['dense', 'lexical', 'coverage', 'name', 'weighted', 'rarest', 'lexicalMargin', 'denseOnly'];
  for (const suite of SUITES) {
    for (const split of ['train', 'dev'] as const) {
      const list = group(suite, split).filter((c) => c.answerable && !c.namedRelevant);
      const won: RankingCase[] = [];
      const lost: RankingCase[] = [];
      for (const c of list) {
        const before = firstRelevant(c, undefined) === 0;
        const after = firstRelevant(c, TODAY) === 0;
        if (after && !before) won.push(c);
        if (before && !after) lost.push(c);
      }
      console.log(`\n## ${suite} ${split}: ${list.length} answerable; today's model against the fusion: hit@1 won ${won.length} / lost ${lost.length}`);
      for (const [label, flipped] of [
        ['won', won],
        ['lost', lost],
      ] as const) {
        for (const c of flipped) {
          const rows = rerankRows(rerankInput(c, fused(c)), c.query.terms, features);
          const firstFused = byOrder(ordersOf(c, undefined))[0]!;
          const firstToday = byOrder(ordersOf(c, TODAY))[0]!;
          const show = (i: number): string =>
            `${c.candidates[i]!.name}${c.labels[i] ? ' (right)' : ''} [${features.map((f, j) => `${f} ${rows[i]![j]!.toFixed(2)}`).join(' ')}]`;
          console.log(`${label}: "${text.get(`${suite}:${c.id}`)}" terms ${c.query.terms.size}, relevant ${c.labels.filter(Boolean).length}\n  fused first ${show(firstFused)}\n  today first ${show(firstToday)}`);
        }
      }
    }
  }
  process.exit(0);
}
