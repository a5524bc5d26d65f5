/**
 * Fits the evidence re-ranker (`src/search/rerank.ts`) and writes `src/search/rerank-model.json`.
 *
 * Data: the hybrid candidates `ranking-cases.ts` caches for MetaTool, Seal-Tools and the library
 * requests (../shared/eval, sampled to `--sample` per split, seeded split `skill-search-split-1`),
 * seen as the engine ranks them (`asEngineSees`), ordered by the engine's hand-set fusion; the
 * re-ranker reorders that, then the boundaries apply (their weights as shipped), as in the engine.
 *
 * Fit (train splits): for each depth, a softmax over each answerable query's first `depth`
 * candidates, target spread evenly over its relevant ones (queries with none there are left out),
 * weights suite-balanced (each suite's queries weigh 1 in all), features standardised on those
 * rows; the fused ordering score's weight (`temperature`) unpenalised, the others with a ridge
 * penalty `l2` × the total weight, by Newton's method from zero. As `l2` grows the model becomes
 * the fused order. Choice (dev splits): the (depth, l2) with the best mean hit@1 over the three
 * suites, mean MRR breaking ties, against the fused order itself (kept when nothing beats it).
 * Reported: every split, the boundary requests and SkillsBench (never fitted on) beside.
 *
 * With `--folds K` the choice is instead K-fold cross-validation over the train and dev splits
 * together (seeded folds), scored by mean hit@1 + hit@5, and the choice is refitted on both; the
 * bundled model was chosen so (docs/retrieval.md, "The replay made exact").
 *
 *   npx tsx scripts/fit-rerank.ts [--sample 500] [--write] [--ablate] [--depths 3 --lexical-depths 1 --l2 0.01]
 *       [--folds 5 --feature-sets 'base|all' --pool-stays-top false,true]
 *
 * Deterministic: no randomness (seeded split, every-n-th sampling, Newton from zero, grid ties to
 * the earlier point). Decision and numbers: docs/retrieval.md.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { RERANK_FEATURES, rerankedOrders, rerankPool, rerankRows, type RerankFeature, type RerankModel } from '../src/search/rerank.js';
import { SPLIT_SEED, type Split, type SuiteName } from './eval-suites.js';
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
import { solve } from './solve.js';

const { values } = parseArgs({
  strict: true,
  options: {
    sample: { type: 'string', default: '500' },
    model: { type: 'string', default: 'use-lite' },
    write: { type: 'boolean', default: false },
    features: { type: 'string' },
    /** Narrow the grid (comma-separated values), e.g. to re-run the chosen point with --ablate. */
    depths: { type: 'string' },
    'lexical-depths': { type: 'string' },
    /** How many candidates by IDF-weighted coverage join the pool (`RerankModel.weightedDepth`). */
    'weighted-depths': { type: 'string' },
    l2: { type: 'string' },
    /** The dense order the fused list is built on: centred cosine (true), plain (false), or both in the grid. */
    centring: { type: 'string', default: 'true,false' },
    /** Suites fitted on (train) and chosen on (dev), each weighted alike. */
    suites: { type: 'string', default: 'metatool,seal,library' },
    /** After the choice, refit it without each feature group and report what each step gives. */
    ablate: { type: 'boolean', default: false },
    /**
     * Choose by `folds`-fold cross-validation over the train and dev splits together (seeded folds),
     * scoring mean hit@1 + hit@5, and refit the choice on both splits; 0: fit on train, choose on dev.
     */
    folds: { type: 'string', default: '0' },
    /**
     * Feature sets in the grid, `|`-separated, each comma-separated names or `all` (every feature), `base` (the 14 of the
     * third round: all but the shared-name and IDF ones) or `idf` (all but the shared-name ones).
     */
    'feature-sets': { type: 'string', default: 'all' },
    /** Splits the report prints (`train,dev` while choosing, so no test figure is seen before the choice). */
    'report-splits': { type: 'string', default: 'train,dev,test' },
    /** With `--folds`: where pool members the model puts after the first places go (`RerankModel.poolStaysTop`), both in the grid by default. */
    'pool-stays-top': { type: 'string', default: 'false,true' },
  },
});

const FIT_SUITES = values.suites.split(',') as SuiteName[];
const SUITE_DATA: Partial<Record<SuiteName, string>> = {
  metatool: `../shared/eval MetaTool (labelled, sample ${values.sample})`,
  seal: `../shared/eval Seal-Tools (sample ${values.sample})`,
  library: 'fixtures/eval/library-queries.jsonl over ../shared/eval/library',
  boundaries: 'eval/boundaries/library-boundaries.jsonl over ../shared/eval/library',
};
const CENTRINGS = values.centring.split(',').map((value) => value === 'true');
const REPORT_SUITES: readonly SuiteName[] = ['metatool', 'seal', 'library', 'boundaries', 'skillsbench'];
const list = (value: string | undefined, grid: number[]): number[] => (value === undefined ? grid : value.split(',').map(Number));
const DEPTHS = list(values.depths, [3, 5, 10]);
const LEXICAL_DEPTHS = list(values['lexical-depths'], [0, 1, 3]);
const WEIGHTED_DEPTHS = list(values['weighted-depths'], [0]);
const L2S = list(values.l2, [0.001, 0.01, 0.03, 0.1, 0.3, 1, 3]);
const FEATURES: readonly RerankFeature[] =
  values.features === undefined ? (Object.keys(RERANK_FEATURES) as RerankFeature[]) : (values.features.split(',') as RerankFeature[]);
const STAYS_TOP = values['pool-stays-top'].split(',').map((value) => value === 'true');
const FOLD_SEED = 'skill-search-rerank-folds-1';
const OUT = join(import.meta.dirname, '..', 'src', 'search', 'rerank-model.json');

const sample = Number(values.sample);
const cases = (await rankingCases(REPORT_SUITES, ['train', 'dev', 'test'], sample, values.model)).map((c) => asEngineSees(c));
const group = (split: Split, suite: SuiteName): RankingCase[] => cases.filter((c) => c.split === split && c.suite === suite);

/** One query's first `depth` fused candidates: ordering scores, feature rows, labels. */
interface Listing {
  readonly suite: SuiteName;
  readonly orders: number[];
  readonly rows: number[][];
  readonly labels: boolean[];
}

/** The re-ranker's pool of one case (see `rerankedOrders`), in fused order. */
function listing(c: RankingCase, centring: boolean, depth: number, lexicalDepth: number, weightedDepth: number, features: readonly RerankFeature[]): Listing {
  const orders = fused(c, centring);
  const rows = rowsFor(c, features);
  const index = rerankPool(rerankInput(c, orders), { depth, lexicalDepth, weightedDepth });
  return { suite: c.suite, orders: index.map((i) => orders[i]!), rows: index.map((i) => rows[i]!), labels: index.map((i) => c.labels[i]!) };
}

/** Every feature of each case's candidates, computed once (features do not read the ordering score). */
const allRows = new WeakMap<RankingCase, readonly (readonly number[])[]>();
const ALL_FEATURES = Object.keys(RERANK_FEATURES) as RerankFeature[];
function rowsFor(c: RankingCase, features: readonly RerankFeature[]): number[][] {
  let rows = allRows.get(c);
  if (rows === undefined) {
    rows = rerankRows(rerankInput(c, fused(c, true)), c.query.terms, ALL_FEATURES);
    allRows.set(c, rows);
  }
  const columns = features.map((name) => ALL_FEATURES.indexOf(name));
  return rows.map((row) => columns.map((j) => row[j]!));
}

/** A softmax over each listing, soft targets on its relevant candidates; parameter 0 is the ordering score's weight. */
function fit(listings: readonly Listing[], l2: number): { temperature: number; weights: number[]; mean: number[]; scale: number[] } {
  const d = listings[0]?.rows[0]?.length ?? 0;
  const suiteCount = new Map<SuiteName, number>();
  for (const l of listings) suiteCount.set(l.suite, (suiteCount.get(l.suite) ?? 0) + 1);
  const weightOf = (l: Listing): number => 1 / suiteCount.get(l.suite)!;
  // Standardise on every row fitted, each weighted like its query.
  const mean = new Array<number>(d).fill(0);
  const square = new Array<number>(d).fill(0);
  let total = 0;
  for (const l of listings) {
    const w = weightOf(l) / l.rows.length;
    for (const row of l.rows) {
      total += w;
      row.forEach((value, j) => {
        mean[j]! += w * value;
        square[j]! += w * value * value;
      });
    }
  }
  for (let j = 0; j < d; j += 1) mean[j]! /= total;
  const scale = square.map((s, j) => Math.sqrt(Math.max(0, s / total - mean[j]! ** 2)) || 1);
  const x = listings.map((l) => l.rows.map((row, i) => [l.orders[i]!, ...row.map((value, j) => (value - mean[j]!) / scale[j]!)]));
  const lambda = l2 * listings.reduce((sum, l) => sum + weightOf(l), 0);
  const loss = (b: readonly number[]): number => {
    let sum = 0;
    listings.forEach((l, q) => {
      const z = x[q]!.map((row) => row.reduce((acc, value, j) => acc + b[j]! * value, 0));
      const top = Math.max(...z);
      const log = top + Math.log(z.reduce((acc, value) => acc + Math.exp(value - top), 0));
      const relevant = l.labels.filter(Boolean).length;
      z.forEach((value, i) => {
        if (l.labels[i]) sum -= (weightOf(l) * (value - log)) / relevant;
      });
    });
    for (let j = 1; j <= d; j += 1) sum += (lambda / 2) * b[j]! ** 2;
    return sum;
  };
  let beta = new Array<number>(d + 1).fill(0);
  for (let iter = 0; iter < 100; iter += 1) {
    const grad = new Array<number>(d + 1).fill(0);
    const hess = Array.from({ length: d + 1 }, () => new Array<number>(d + 1).fill(0));
    listings.forEach((l, q) => {
      const w = weightOf(l);
      const rows = x[q]!;
      const z = rows.map((row) => row.reduce((sum, value, j) => sum + beta[j]! * value, 0));
      const top = Math.max(...z);
      const e = z.map((value) => Math.exp(value - top));
      const sum = e.reduce((a, b) => a + b, 0);
      const p = e.map((value) => value / sum);
      const relevant = l.labels.filter(Boolean).length;
      const mean = new Array<number>(d + 1).fill(0);
      rows.forEach((row, i) => row.forEach((value, j) => (mean[j]! += p[i]! * value)));
      rows.forEach((row, i) => {
        const t = l.labels[i] ? 1 / relevant : 0;
        for (let j = 0; j <= d; j += 1) {
          grad[j]! += w * (p[i]! - t) * row[j]!;
          for (let k = 0; k <= j; k += 1) hess[j]![k]! += w * p[i]! * (row[j]! - mean[j]!) * (row[k]! - mean[k]!);
        }
      });
    });
    for (let j = 0; j <= d; j += 1) for (let k = 0; k < j; k += 1) hess[k]![j] = hess[j]![k]!;
    for (let j = 1; j <= d; j += 1) {
      grad[j]! += lambda * beta[j]!;
      hess[j]![j]! += lambda;
    }
    hess[0]![0]! += 1e-9;
    const step = solve(hess, grad);
    // Newton's step, halved until the penalised loss does not rise.
    const current = loss(beta);
    let size = 1;
    let next = beta.map((value, j) => value - step[j]!);
    while (size > 1e-6 && !(loss(next) <= current + 1e-12)) {
      size /= 2;
      next = beta.map((value, j) => value - size * step[j]!);
    }
    beta = next;
    if (size * Math.max(...step.map(Math.abs)) < 1e-7) break;
  }
  return { temperature: beta[0]!, weights: beta.slice(1), mean, scale };
}

const round = (value: number): number => Number(value.toPrecision(6));

const FOLDS = Number(values.folds);
const fittable = (c: RankingCase): boolean => c.answerable && !c.namedRelevant;
const trainCases = FIT_SUITES.flatMap((suite) => group('train', suite)).filter(fittable);
/** With `--folds`: the train and dev cases the choice is cross-validated on and the chosen model refitted on. */
const poolCases = FIT_SUITES.flatMap((suite) => [...group('train', suite), ...group('dev', suite)]);
const fitCases = FOLDS > 0 ? poolCases.filter(fittable) : trainCases;
/** A case's fold, from a seeded hash of its suite and id (independent of which other cases were loaded). */
const foldOf = (c: RankingCase): number => createHash('sha256').update(`${FOLD_SEED}:${c.suite}:${c.id}`).digest().readUInt32BE(0) % FOLDS;
/** A fitted model and the dense order (`centring`) its fused list was built on. */
type Fitted = RerankModel & { readonly provenance: { readonly centring: boolean } };
function modelOf(
  centring: boolean,
  depth: number,
  lexicalDepth: number,
  l2: number,
  features: readonly RerankFeature[] = FEATURES,
  { cases = fitCases, staysTop = false, weightedDepth = 0 }: { cases?: readonly RankingCase[]; staysTop?: boolean; weightedDepth?: number } = {},
): Fitted {
  const listings = cases
    .map((c) => listing(c, centring, depth, lexicalDepth, weightedDepth, features))
    .filter((l) => l.labels.some(Boolean) && l.rows.length > 1);
  const fitted = fit(listings, l2);
  const data =
    FOLDS > 0
      ? `train and dev splits of ${FIT_SUITES.map((suite) => SUITE_DATA[suite] ?? suite).join('; ')}; each suite weighted alike; hybrid candidates from scripts/ranking-cases.ts (${values.model}); dense order, depth, features and l2 chosen by ${FOLDS}-fold cross-validation over them (folds seeded ${FOLD_SEED}); test split unseen`
      : `train split of ${FIT_SUITES.map((suite) => SUITE_DATA[suite] ?? suite).join('; ')}; each suite weighted alike; hybrid candidates from scripts/ranking-cases.ts (${values.model}); dense order, depth and l2 chosen on dev; test split unseen`;
  return {
    version: 1,
    provenance: {
      script: 'scripts/fit-rerank.ts',
      command: `npx tsx scripts/fit-rerank.ts ${process.argv.slice(2).join(' ')}`,
      splitSeed: SPLIT_SEED,
      ...(FOLDS > 0 ? { folds: FOLDS, foldSeed: FOLD_SEED } : {}),
      data,
      embedder: values.model,
      centring,
      l2,
      queries: listings.length,
      date: new Date().toISOString().slice(0, 10),
    },
    depth,
    lexicalDepth,
    ...(weightedDepth > 0 ? { weightedDepth } : {}),
    ...(staysTop ? { poolStaysTop: true } : {}),
    temperature: round(fitted.temperature),
    features,
    mean: fitted.mean.map(round),
    scale: fitted.scale.map(round),
    weights: fitted.weights.map(round),
  };
}

/** The fused ordering scores of each case (its candidates' indexing), before the re-ranker and boundaries, computed once. */
const fusedMemo = [new WeakMap<RankingCase, readonly number[]>(), new WeakMap<RankingCase, readonly number[]>()];
function fused(c: RankingCase, centring: boolean): readonly number[] {
  const memo = fusedMemo[centring ? 1 : 0]!;
  let found = memo.get(c);
  if (found === undefined) {
    found = fusedOrders(c, { ...ENGINE_FUSION, centring });
    memo.set(c, found);
  }
  return found;
}

/** A setting replayed: the dense order and the re-ranker (none: the fused order alone). */
interface Setting {
  readonly centring: boolean;
  readonly model: RerankModel | undefined;
}
const MAIN: Setting = { centring: true, model: undefined };

/** Hit@1, hit@5 and MRR of `cases` under `setting`. */
function metrics(cases: readonly RankingCase[], setting: Setting): RankMetrics {
  return metricsOf(cases, (c) => firstRelevant(c, setting));
}

/** Where `setting` puts the case's first relevant candidate (−1: none among its candidates). */
function firstRelevant(c: RankingCase, { centring, model }: Setting): number {
  const orders = [...fused(c, centring)];
  if (model !== undefined)
    rerankedOrders(rerankInput(c, orders), c.query.terms, model, () => rowsFor(c, model.features)).forEach((order, i) => {
      orders[i] = order;
    });
  replayBoundaries(c, orders, ENGINE_FUSION.boundaries);
  const relevant = c.labels.map((_, i) => i).filter((i) => c.labels[i]);
  if (relevant.length === 0) return -1;
  return Math.min(...relevant.map((i) => orders.filter((order, j) => order > orders[i]! || (order === orders[i]! && j < i)).length));
}

function objective(split: Split, setting: Setting): [number, number] {
  const rows = FIT_SUITES.map((suite) => metrics(group(split, suite), setting));
  return [rows.reduce((s, m) => s + m.hit1, 0) / rows.length, rows.reduce((s, m) => s + m.mrr, 0) / rows.length];
}
const better = (a: [number, number], b: [number, number]): boolean => a[0] > b[0] + 1e-12 || (Math.abs(a[0] - b[0]) <= 1e-12 && a[1] > b[1] + 1e-12);
const show = ([hit1, mrr]: [number, number]): string => `${hit1.toFixed(4)} / ${mrr.toFixed(4)}`;

/** The shared-name features (offered in the third round, not chosen). */
const SHARED_NAME: readonly RerankFeature[] = ['nameSpecific', 'nameGeneric'];
/** The features read from each match's per-word IDF (`LexicalMatch.weightedCoverage`, `rarest`). */
const IDF_EVIDENCE: readonly RerankFeature[] = ['weighted', 'weightedGap', 'rarest', 'singleCommon'];
const FEATURE_SETS: readonly (readonly RerankFeature[])[] = values['feature-sets'].split('|').map((set) => {
  if (set === 'all') return FEATURES;
  if (set === 'base') return FEATURES.filter((name) => !SHARED_NAME.includes(name) && !IDF_EVIDENCE.includes(name));
  if (set === 'idf') return FEATURES.filter((name) => !SHARED_NAME.includes(name));
  return set.split(',') as RerankFeature[];
});

let chosen: Setting = MAIN;
if (FOLDS === 0) {
  let chosenDev: [number, number] = [Number.NEGATIVE_INFINITY, 0];
  for (const centring of CENTRINGS) {
    const plainSetting = { centring, model: undefined };
    const train = objective('train', plainSetting);
    const dev = objective('dev', plainSetting);
    console.log(`fused order, ${centring ? 'centred' : 'plain'}: train mean hit@1 / MRR ${show(train)} | dev ${show(dev)}`);
    if (better(dev, chosenDev)) [chosen, chosenDev] = [plainSetting, dev];
  }
  for (const centring of CENTRINGS) {
    for (const depth of DEPTHS) {
      for (const lexicalDepth of LEXICAL_DEPTHS) {
        for (const l2 of L2S) {
          const setting = { centring, model: modelOf(centring, depth, lexicalDepth, l2) };
          const train = objective('train', setting);
          const dev = objective('dev', setting);
          console.log(`${centring ? 'centred' : 'plain'} depth ${depth} + lexical ${lexicalDepth} l2 ${l2}: train ${show(train)} | dev ${show(dev)}`);
          if (better(dev, chosenDev)) [chosen, chosenDev] = [setting, dev];
        }
      }
    }
  }
} else {
  // Cross-validation: each setting fitted on all folds but one and scored on that one, its
  // held-out positions pooled over the folds; the score is the suites' mean hit@1 + hit@5, MRR
  // breaking ties, against the fused orders scored the same way.
  const folds = Array.from({ length: FOLDS }, (_, f) => ({
    fit: fitCases.filter((c) => foldOf(c) !== f),
    held: poolCases.filter((c) => foldOf(c) === f),
  }));
  const cvScore = (settingOf: (fold: number) => Setting): [number, number, string] => {
    const rows = FIT_SUITES.map((suite) => {
      const held = folds.flatMap(({ held }, f) => held.filter((c) => c.suite === suite).map((c) => ({ c, f })));
      const positions = new Map(held.map(({ c, f }) => [c, firstRelevant(c, settingOf(f))]));
      return metricsOf(
        held.map(({ c }) => c),
        (c) => positions.get(c)!,
      );
    });
    const mean = (pick: (m: RankMetrics) => number): number => rows.reduce((sum, m) => sum + pick(m), 0) / rows.length;
    const cells = rows.map((m) => `${m.hit1.toFixed(3)}/${m.hit5.toFixed(3)}`).join(' ');
    return [mean((m) => m.hit1 + m.hit5), mean((m) => m.mrr), cells];
  };
  let best: [number, number] = [Number.NEGATIVE_INFINITY, 0];
  let bestOf: (() => Setting) | undefined;
  for (const centring of CENTRINGS) {
    const setting = { centring, model: undefined };
    const [score, mrr, cells] = cvScore(() => setting);
    console.log(`fused order, ${centring ? 'centred' : 'plain'}: cv hit@1+hit@5 ${score.toFixed(4)} MRR ${mrr.toFixed(4)} (${cells})`);
    if (better([score, mrr], best)) [best, bestOf] = [[score, mrr], () => setting];
  }
  for (const centring of CENTRINGS) {
    for (const features of FEATURE_SETS) {
      for (const depth of DEPTHS) {
        for (const lexicalDepth of LEXICAL_DEPTHS) {
          for (const weightedDepth of WEIGHTED_DEPTHS) {
            for (const l2 of L2S) {
              const models = folds.map(({ fit }) => modelOf(centring, depth, lexicalDepth, l2, features, { cases: fit, weightedDepth }));
              for (const staysTop of lexicalDepth + weightedDepth > 0 ? STAYS_TOP : [false]) {
                const [score, mrr, cells] = cvScore((f) => ({ centring, model: { ...models[f]!, poolStaysTop: staysTop } }));
                const label = `${centring ? 'centred' : 'plain'} ${features.length} features depth ${depth} + lexical ${lexicalDepth} + weighted ${weightedDepth}${staysTop ? ' (pool stays top)' : ''} l2 ${l2}`;
                console.log(`${label}: cv hit@1+hit@5 ${score.toFixed(4)} MRR ${mrr.toFixed(4)} (${cells})`);
                if (better([score, mrr], best))
                  [best, bestOf] = [
                    [score, mrr],
                    () => ({ centring, model: modelOf(centring, depth, lexicalDepth, l2, features, { staysTop, weightedDepth }) }),
                  ];
              }
            }
          }
        }
      }
    }
  }
  chosen = bestOf!();
}
const chosenModel = chosen.model;
console.log(
  `chosen: ${chosen.centring ? 'centred' : 'plain'} dense order, ` +
    (chosenModel === undefined
      ? 'the fused order (no re-ranker beat it on dev)'
      : `depth ${chosenModel.depth} + lexical ${chosenModel.lexicalDepth} + weighted ${chosenModel.weightedDepth ?? 0} l2 ${String(chosenModel.provenance['l2'])}`),
);
if (chosenModel !== undefined)
  console.log(chosenModel.features.map((name, j) => `${name} ${chosenModel.weights[j]}`).join(', '), `temperature ${chosenModel.temperature}`);

const fmt = (split: Split, suite: SuiteName, setting: Setting): string => {
  const m = metrics(group(split, suite), setting);
  return `${m.hit1.toFixed(3)} / ${m.hit5.toFixed(3)} / ${m.mrr.toFixed(3)}`;
};
const REPORT_SPLITS = values['report-splits'].split(',') as Split[];
for (const split of REPORT_SPLITS) {
  console.log(`\n${split} (hit@1 / hit@5 / MRR, answerable queries): main (centred, fused) → chosen`);
  for (const suite of REPORT_SUITES) {
    const n = metrics(group(split, suite), MAIN).n;
    if (n > 0) console.log(`${suite} (${n}): ${fmt(split, suite, MAIN)} → ${fmt(split, suite, chosen)}`);
  }
}
if (values.ablate && chosenModel !== undefined) {
  const { depth, lexicalDepth } = chosenModel;
  const { centring } = chosen;
  const l2 = chosenModel.provenance['l2'] as number;
  const staysTop = chosenModel.poolStaysTop === true;
  const weightedDepth = chosenModel.weightedDepth ?? 0;
  const without = (drop: readonly RerankFeature[]): readonly RerankFeature[] => chosenModel.features.filter((name) => !drop.includes(name));
  const steps: [string, Setting][] = [
    ['fused order, centred (main)', MAIN],
    [`fused order, ${centring ? 'centred' : 'plain'}`, { centring, model: undefined }],
    [`depth ${depth}, no BM25 first from further down`, { centring, model: modelOf(centring, depth, 0, l2, chosenModel.features) }],
    [
      `depth ${depth} + BM25 firsts ${lexicalDepth}, none by weighted coverage`,
      { centring, model: modelOf(centring, depth, lexicalDepth, l2, chosenModel.features, { staysTop }) },
    ],
    ['chosen', chosen],
    ['without dense, plain', { centring, model: modelOf(centring, depth, lexicalDepth, l2, without(['dense', 'plain']), { staysTop, weightedDepth }) }],
    ['without plain', { centring, model: modelOf(centring, depth, lexicalDepth, l2, without(['plain']), { staysTop, weightedDepth }) }],
    [
      'without nameSpecific, nameGeneric',
      { centring, model: modelOf(centring, depth, lexicalDepth, l2, without(['nameSpecific', 'nameGeneric']), { staysTop, weightedDepth }) },
    ],
    ['without name, nameTerm', { centring, model: modelOf(centring, depth, lexicalDepth, l2, without(['name', 'nameTerm']), { staysTop, weightedDepth }) }],
    [
      'without weighted, weightedGap, rarest, singleCommon (IDF)',
      { centring, model: modelOf(centring, depth, lexicalDepth, l2, without(IDF_EVIDENCE), { staysTop, weightedDepth }) },
    ],
    [
      'without rarest, singleCommon',
      { centring, model: modelOf(centring, depth, lexicalDepth, l2, without(['rarest', 'singleCommon']), { staysTop, weightedDepth }) },
    ],
    ['without perTerm, matched', { centring, model: modelOf(centring, depth, lexicalDepth, l2, without(['perTerm', 'matched']), { staysTop, weightedDepth }) }],
    [
      'without coverage, coverageGap',
      { centring, model: modelOf(centring, depth, lexicalDepth, l2, without(['coverage', 'coverageGap']), { staysTop, weightedDepth }) },
    ],
    [
      'without lexicalFirst, lexicalMargin, lexicalRank',
      { centring, model: modelOf(centring, depth, lexicalDepth, l2, without(['lexicalFirst', 'lexicalMargin', 'lexicalRank']), { staysTop, weightedDepth }) },
    ],
  ];
  console.log(`\nsteps and ablations, hit@1 ${REPORT_SPLITS.join(' | ')} per suite (${REPORT_SUITES.join(', ')}):`);
  for (const [name, setting] of steps) {
    const cells = (split: Split): string =>
      REPORT_SUITES.map((suite) => (metrics(group(split, suite), setting).n === 0 ? '–' : metrics(group(split, suite), setting).hit1.toFixed(3))).join(' / ');
    console.log(`${name}: ${REPORT_SPLITS.map((split) => `${split} ${cells(split)}`).join(' | ')}`);
  }
}
if (values.write) {
  const model = chosenModel ?? { ...modelOf(chosen.centring, DEPTHS[0]!, 0, L2S[0]!), depth: 0 };
  writeFileSync(OUT, `${JSON.stringify(model, null, 1)}\n`);
  console.log(`\nwrote ${OUT}`);
}
