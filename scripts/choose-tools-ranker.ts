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
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { RERANK_FEATURES, rerankedOrders, rerankPool, rerankRows, type RerankFeature, type RerankModel } from '../src/search/rerank.js';
import { loadSuite, SPLIT_SEED, type Split, type SuiteName } from './eval-suites.js';
import {
  asEngineSees,
  ENGINE_FUSION,
  fusedOrders,
  metricsOf,
  rankingCases,
  replayBoundaries,
  rerankInput,
  type RankingCase,
  type RankMetrics,
} from './ranking-cases.js';
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

/**
 * The incumbent: `kinds.tools` as the eighth round fitted it and this round found it (the bundled file at 0ab3f4d, before
 * this round's `--write` replaced it), so a rerun after the write replays the same choice.
 */
const INCUMBENT_COMMIT = '0ab3f4d';
const TODAY = (
  JSON.parse(execFileSync('git', ['show', `${INCUMBENT_COMMIT}:src/search/rerank-model.json`], { cwd: join(import.meta.dirname, '..'), encoding: 'utf8' })) as {
    kinds: { tools: RerankModel };
  }
).kinds.tools;

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
          console.log(
            `${label}: "${text.get(`${suite}:${c.id}`)}" terms ${c.query.terms.size}, relevant ${c.labels.filter(Boolean).length}\n  fused first ${show(firstFused)}\n  today first ${show(firstToday)}`,
          );
        }
      }
    }
  }
  process.exit(0);
}

// ---- The grid on dev (docs/retrieval.md, "Tool lists back to …": the adoption rule this applies). ----

const round = (value: number): number => Number(value.toPrecision(6));
const ALL_FEATURES = Object.keys(RERANK_FEATURES) as RerankFeature[];
/** Today's ten features (the fifth round's `compact` set). */
const COMPACT: readonly RerankFeature[] = TODAY.features;
/** `fit-rerank.ts`' `idf` set: every feature but the shared-name and agreement ones (18). */
const IDF: readonly RerankFeature[] = ALL_FEATURES.filter((name) => !['nameSpecific', 'nameGeneric', 'nameCoverage', 'agree'].includes(name));

/** Every feature of each case's candidates, computed once (features do not read the ordering score). */
const allRows = new WeakMap<RankingCase, readonly (readonly number[])[]>();
function rowsFor(c: RankingCase, features: readonly RerankFeature[]): number[][] {
  let rows = allRows.get(c);
  if (rows === undefined) {
    rows = rerankRows(rerankInput(c, fused(c)), c.query.terms, ALL_FEATURES);
    allRows.set(c, rows);
  }
  const columns = features.map((name) => ALL_FEATURES.indexOf(name));
  return rows.map((row) => columns.map((j) => row[j]!));
}

/** A model's fit: its pool, features, penalty, loss, and the fit weight of each suite (Seal-Tools' apart). */
interface Recipe {
  readonly features: readonly RerankFeature[];
  readonly depth: number;
  readonly lexicalDepth: number;
  readonly weightedDepth: number;
  readonly l2: number;
  readonly objective: Objective;
  readonly sealWeight: number;
}
/** The suite a case is fitted as: the library sets join `library`. */
const fitSuite = (c: RankingCase): SuiteName => (c.suite.startsWith('library') ? 'library' : c.suite);
function fit(recipe: Recipe, fitted: readonly RankingCase[], data: string): RerankModel {
  const listings: FitListing<SuiteName>[] = fitted
    .filter((c) => c.answerable && !c.namedRelevant)
    .map((c) => {
      const orders = fused(c);
      const rows = rowsFor(c, recipe.features);
      const pool = rerankPool(rerankInput(c, orders), recipe);
      return { suite: fitSuite(c), orders: pool.map((i) => orders[i]!), rows: pool.map((i) => rows[i]!), labels: pool.map((i) => c.labels[i]!) };
    })
    .filter((l) => l.labels.some(Boolean) && l.rows.length > 1);
  const weights = fitListings(listings, recipe.l2, recipe.objective, new Map<SuiteName, number>([['seal', recipe.sealWeight]]));
  return {
    version: 1,
    provenance: {
      script: 'scripts/choose-tools-ranker.ts',
      kind: 'tools',
      command: `npx tsx scripts/choose-tools-ranker.ts ${process.argv.slice(2).join(' ')}`.trim(),
      splitSeed: SPLIT_SEED,
      objective: recipe.objective,
      data,
      embedder: 'use-lite',
      centring: true,
      l2: recipe.l2,
      sealWeight: recipe.sealWeight,
      queries: listings.length,
      date: new Date().toISOString().slice(0, 10),
    },
    depth: recipe.depth,
    lexicalDepth: recipe.lexicalDepth,
    ...(recipe.weightedDepth > 0 ? { weightedDepth: recipe.weightedDepth } : {}),
    temperature: round(weights.temperature),
    features: recipe.features,
    mean: weights.mean.map(round),
    scale: weights.scale.map(round),
    weights: weights.weights.map(round),
  };
}

/** Dev hit@1, hit@5, MRR of `model` on `suite` (`firstRelevant` with the feature rows cached). */
function devMetrics(suite: SuiteName, model: RerankModel | undefined): RankMetrics {
  return metricsOf(group(suite, 'dev'), (c) => {
    const orders = [...fused(c)];
    if (model !== undefined)
      rerankedOrders(rerankInput(c, orders), c.query.terms, model, () => rowsFor(c, model.features)).forEach((order, i) => (orders[i] = order));
    replayBoundaries(c, orders, ENGINE_FUSION.boundaries);
    return byOrder(orders).findIndex((i) => c.labels[i]);
  });
}

// T′: today's recipe refitted on train only (the eighth round's data less dev); with train + dev it must give today's weights.
const LIBRARY_SETS: readonly SuiteName[] = ['library-r2', 'library-r3', 'library-r4', 'library-r5'];
const libraryTrain = (await rankingCases(['library'], ['train', 'dev'], SAMPLE)).map((c) => asEngineSees(c));
const librarySets = (await rankingCases(LIBRARY_SETS, ['train', 'dev', 'test'], SAMPLE)).map((c) => asEngineSees(c));
const TODAY_RECIPE: Recipe = { features: COMPACT, depth: 3, lexicalDepth: 3, weightedDepth: 0, l2: 0.03, objective: 'softmax', sealWeight: 1 };
const recipeCases = (splits: readonly Split[]): RankingCase[] => [
  ...cases.filter((c) => splits.includes(c.split)),
  ...libraryTrain.filter((c) => splits.includes(c.split)),
  ...librarySets,
];
const todayRefit = fit(TODAY_RECIPE, recipeCases(['train', 'dev']), 'check');
const same = todayRefit.weights.every((w, j) => w === TODAY.weights[j]) && todayRefit.temperature === TODAY.temperature;
console.log(
  `today's recipe refitted on its own data (train + dev): ${same ? "today's weights to the last digit" : `differs: ${todayRefit.weights.join(', ')} t ${todayRefit.temperature}`}`,
);
const TODAY_TRAIN = fit(TODAY_RECIPE, recipeCases(['train']), 'train splits of MetaTool, Seal-Tools, library; every split of r2–r5');

/** A candidate on dev: its label, the model scored (none: F), what ships, simplicity (smaller first, compared in order). */
interface Candidate {
  readonly label: string;
  readonly model: RerankModel | undefined;
  readonly simplicity: readonly number[];
  readonly ship: () => RerankModel;
  hit1?: number[];
  hit5?: number[];
}
const candidates: Candidate[] = [
  {
    label: 'F: the hand-set fusion (no re-ranker)',
    model: undefined,
    simplicity: [0, 0, 0, 0],
    ship: () => ({ ...TODAY, depth: 0, provenance: { ...TODAY.provenance, depth: 'set to 0 by scripts/choose-tools-ranker.ts: the hand-set fusion alone' } }),
  },
  { label: "T′: today's recipe refitted on train (today's model)", model: TODAY_TRAIN, simplicity: [10, 6, -0.03, 0], ship: () => TODAY },
  ...[0.25, 0.5, 1, 2].map((minLead) => ({
    label: `L: today's model, lead ${minLead}`,
    model: { ...TODAY_TRAIN, minLead },
    simplicity: [10, 6, -0.03, -minLead],
    ship: () => ({ ...TODAY, minLead }),
  })),
];
const TRAIN_DATA = 'train split of ../shared/eval MetaTool (labelled, sample 500) and Seal-Tools (sample 500)';
for (const features of [COMPACT, IDF])
  for (const depth of [3, 5])
    for (const weightedDepth of [0, 2])
      for (const l2 of [0.01, 0.03, 0.1, 0.3, 1])
        for (const objective of ['softmax', 'pairwise'] as const)
          for (const sealWeight of [1, 2]) {
            const recipe: Recipe = { features, depth, lexicalDepth: 3, weightedDepth, l2, objective, sealWeight };
            const model = fit(
              recipe,
              cases.filter((c) => c.split === 'train'),
              TRAIN_DATA,
            );
            for (const minLead of [0, 0.5, 1])
              candidates.push({
                label: `R: ${features === COMPACT ? 'compact' : 'idf'} (${features.length}) ${depth} + 3 + ${weightedDepth}, l2 ${l2}, ${objective}, Seal-Tools weight ${sealWeight}, lead ${minLead}`,
                model: minLead > 0 ? { ...model, minLead } : model,
                simplicity: [features.length, depth + 3 + weightedDepth, -l2, -minLead],
                ship: () => {
                  const final = fit(
                    recipe,
                    cases,
                    `train and dev splits of ../shared/eval MetaTool (labelled, sample 500) and Seal-Tools (sample 500); Seal-Tools weighted ${sealWeight}, MetaTool 1; hybrid candidates from scripts/ranking-cases.ts (use-lite); chosen on dev (train fit) by the rule in docs/retrieval.md, "Tool lists back to …"; test split unseen`,
                  );
                  return minLead > 0 ? { ...final, minLead } : final;
                },
              });
          }

for (const candidate of candidates) {
  const rows = SUITES.map((suite) => devMetrics(suite, candidate.model));
  candidate.hit1 = rows.map((m) => m.hit1);
  candidate.hit5 = rows.map((m) => m.hit5);
}
const [fusion, today] = candidates as [Candidate, Candidate];
const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
const eligible = (c: Candidate): boolean =>
  c.hit1!.every((h, s) => h >= fusion.hit1![s]! - 1e-9) && c.hit5!.every((h, s) => h >= fusion.hit5![s]! - 1e-9) && mean(c.hit1!) >= mean(today.hit1!) - 1e-9;
const margin = (c: Candidate): number => Math.min(...c.hit1!.map((h, s) => h - fusion.hit1![s]!));
const cell = (c: Candidate): string =>
  `${SUITES.map((suite, s) => `${suite} ${c.hit1![s]!.toFixed(3)} / ${c.hit5![s]!.toFixed(3)}`).join(', ')}; worst-set margin ${margin(c) >= 0 ? '+' : ''}${margin(c).toFixed(4)}${eligible(c) ? '' : ' [not eligible]'}`;
console.log(`\ndev (hit@1 / hit@5, answerable; sample 500), ${candidates.length} candidates:`);
for (const c of candidates) console.log(`${c.label}: ${cell(c)}`);

const simpler = (a: readonly number[], b: readonly number[]): boolean => {
  const j = a.findIndex((value, k) => value !== b[k]);
  return j >= 0 && a[j]! < b[j]!;
};
/** The rule's order: the larger worst-set margin, then the higher mean hit@1 + hit@5, then the simpler; the earlier on exact ties. */
const before = (a: Candidate, b: Candidate): boolean => {
  if (Math.abs(margin(a) - margin(b)) > 1e-9) return margin(a) > margin(b);
  const score = (c: Candidate): number => mean(c.hit1!) + mean(c.hit5!);
  if (Math.abs(score(a) - score(b)) > 1e-9) return score(a) > score(b);
  return simpler(a.simplicity, b.simplicity);
};
const pool = candidates.filter(eligible);
const chosen = pool.length === 0 ? undefined : pool.reduce((best, c) => (before(c, best) ? c : best));
console.log(`\neligible: ${pool.length} of ${candidates.length}; chosen: ${chosen === undefined ? "none (today's model stays)" : chosen.label}`);
if (chosen !== undefined) console.log(`  ${cell(chosen)}`);

if (values.write && chosen !== undefined && chosen !== today) {
  const file = join(import.meta.dirname, '..', 'src', 'search', 'rerank-model.json');
  const bundled = JSON.parse(readFileSync(file, 'utf8')) as { version: number; kinds: Record<string, RerankModel> };
  bundled.kinds['tools'] = chosen.ship();
  writeFileSync(file, `${JSON.stringify(bundled, null, 1)}\n`);
  console.log(`wrote kinds.tools of ${file}`);
}
