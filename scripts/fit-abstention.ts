/**
 * Fits the relevance models (`src/search/relevance-model.json`, `kinds.tools`): one logistic model per mode
 * over the features of `src/search/relevance.ts`, and the `strict` / `balanced` operating points.
 *
 *   npm run fit [-- --dry-run] [--sample 2000]
 *
 * Data: the train split (scripts/eval-suites.ts) of MetaTool (labelled + "no tool needed"),
 * Seal-Tools and our own library requests (fixtures/eval/library-queries.jsonl); operating
 * points chosen on the dev split; the test split is only reported, never used. Deterministic:
 * the split is a seeded hash, samples take every n-th query, and the fit is Newton's method
 * from zero weights (no random start). Query vectors are remembered under
 * $TMPDIR/skill-search-eval so a refit embeds nothing new.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveEmbedder } from '../src/embed/resolve.js';
import type { RelevanceModels } from '../src/search/abstention.js';
import { SkillSearchEngine } from '../src/search/index.js';
import {
  featureRows,
  MODE_FEATURES,
  ORDERING_FEATURES,
  relevance,
  type LogisticModel,
  type QueryEvidence,
  type RankedEvidence,
  type RelevanceModel,
} from '../src/search/relevance.js';
import { SEARCH_MODES, type SearchMode } from '../src/types.js';
import { EVAL_CACHE_ROOT, evalIndexDir, fileSafe, loadSuite, queryVectorsFile, SPLIT_SEED, type Split, type SuiteName } from './eval-suites.js';
import { rememberVectors } from './query-vectors.js';
import { fitLogistic, L2, round } from './logistic-fit.js';

const { values } = parseArgs({
  strict: true,
  options: {
    'dry-run': { type: 'boolean', default: false },
    sample: { type: 'string', default: '2000' },
    model: { type: 'string', default: 'use-lite' },
    /** Print how well each feature alone separates answerable from no-answer queries (train split). */
    analyse: { type: 'boolean', default: false },
  },
});

const FIT_SUITES: readonly SuiteName[] = ['metatool', 'seal', 'library'];
const DEPTH = 10;
/** Highest dev blank rate (answerable queries, worst suite) each operating point allows. */
const BLANK_BUDGET = { balanced: 0.04, strict: 0.15 } as const;
const OUT = join(import.meta.dirname, '..', 'src', 'search', 'relevance-model.json');

interface QueryCase {
  readonly suite: SuiteName;
  readonly split: Split;
  readonly answerable: boolean;
  /** The query named a skill exactly: it is always answered (by that skill). */
  readonly named: boolean;
  readonly namedRelevant: boolean;
  readonly ranked: RankedEvidence[];
  readonly query: QueryEvidence;
  /** Per ranked hit: whether it is relevant. */
  readonly labels: boolean[];
  /** Feature rows for the model being fitted (filled per mode). */
  rows: number[][];
}

const CACHE = join(EVAL_CACHE_ROOT, 'fit-cache');

function readCache(file: string): QueryCase[] | undefined {
  if (!existsSync(file)) return undefined;
  const raw = JSON.parse(readFileSync(file, 'utf8')) as (Omit<QueryCase, 'query'> & { query: Omit<QueryEvidence, 'terms'> & { terms: string[] } })[];
  return raw.map((c) => ({ ...c, query: { ...c.query, terms: new Set(c.query.terms) }, rows: [] }));
}

function writeCache(file: string, cases: readonly QueryCase[]): void {
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(file, JSON.stringify(cases.map((c) => ({ ...c, rows: [], query: { ...c.query, terms: [...c.query.terms] } }))));
}

async function collect(mode: SearchMode, cache: Map<string, QueryCase[]>): Promise<QueryCase[]> {
  const cases: QueryCase[] = [];
  const base = resolveEmbedder(values.model);
  for (const name of FIT_SUITES) {
    const key = `${name}:${mode}`;
    const file = join(CACHE, `${name}-${mode}-${values.sample}-${fileSafe(base)}.json`);
    const cached = cache.get(key) ?? readCache(file);
    if (cached !== undefined) {
      cache.set(key, cached);
      cases.push(...cached);
      continue;
    }
    const found: QueryCase[] = [];
    for (const split of ['train', 'dev', 'test'] as const) {
      const suite = await loadSuite(name, { splits: [split], sample: split === 'train' ? Number(values.sample) : Math.floor(Number(values.sample) / 2) });
      if (suite === undefined) continue;
      const embedder = rememberVectors(base, queryVectorsFile(base));
      const engine = await SkillSearchEngine.open({
        embedder,
        indexDir: evalIndexDir(name, base),
        queryCacheSize: 0,
      });
      await engine.sync(suite.skills);
      for (const query of suite.queries) {
        const { ranked, exact } = await engine.rank(query.query, { mode, k: DEPTH });
        const wanted = new Set(query.relevant);
        const names = new Map(suite.skills.map((skill) => [skill.id, skill.name]));
        found.push({
          suite: name,
          split,
          answerable: query.relevant.length > 0,
          named: exact.length > 0,
          namedRelevant: exact.some((id) => wanted.has(id) || wanted.has(names.get(id) ?? '')),
          ranked: [...ranked.ranked],
          query: ranked.query,
          labels: ranked.ranked.map((hit) => wanted.has(hit.id) || wanted.has(hit.name)),
          rows: [],
        });
      }
      embedder.save();
      await engine.close();
    }
    console.error(`${mode} ${name}: ${found.length} queries`);
    writeCache(file, found);
    cache.set(key, found);
    cases.push(...found);
  }
  return cases;
}

function suiteWeights(cases: readonly QueryCase[]): (c: QueryCase) => number {
  const perSuite = new Map<SuiteName, number>();
  for (const c of cases) perSuite.set(c.suite, (perSuite.get(c.suite) ?? 0) + 1);
  return (c) => 1 / perSuite.get(c.suite)!;
}

/** The answerable model on every train query, the hit model on the answerable ones. */
function fit(mode: SearchMode, cases: readonly QueryCase[]): RelevanceModel {
  const hitFeatures = MODE_FEATURES[mode];
  const queryFeatures = hitFeatures.filter((name) => !ORDERING_FEATURES.includes(name));
  const train = cases.filter((c) => c.split === 'train' && !c.named && c.ranked.length > 0);
  const weightOf = suiteWeights(train);
  const answerable = fitLogistic(
    queryFeatures,
    train.map((c) => featureRows(c.ranked.slice(0, 1), c.query, queryFeatures)[0]!),
    train.map((c) => (c.answerable ? 1 : 0)),
    train.map(weightOf),
  );
  const positives = train.filter((c) => c.answerable);
  const positiveWeight = suiteWeights(positives);
  const x: number[][] = [];
  const y: number[] = [];
  const w: number[] = [];
  for (const c of positives) {
    featureRows(c.ranked, c.query, hitFeatures).forEach((row, i) => {
      x.push(row);
      y.push(c.labels[i] ? 1 : 0);
      w.push(positiveWeight(c));
    });
  }
  return { answerable, hit: fitLogistic(hitFeatures, x, y, w) };
}

interface Outcome {
  readonly blank: number;
  readonly hitAt1: number;
  readonly hitAt5: number;
  readonly answerable: number;
  readonly abstained: number;
  readonly negatives: number;
}

/** What users would see at threshold `t` (hits with relevance ≥ t, named skills always shown). */
function outcome(model: RelevanceModel, cases: readonly QueryCase[], t: number): Outcome {
  let blank = 0;
  let hitAt1 = 0;
  let hitAt5 = 0;
  let answerable = 0;
  let abstained = 0;
  let negatives = 0;
  for (const c of cases) {
    const shown: boolean[] = c.named ? [c.namedRelevant] : [];
    const scores = scoresOf(model, c);
    for (const [i, score] of scores.entries()) {
      if (score < t) break;
      shown.push(c.labels[i]!);
    }
    if (c.answerable) {
      answerable += 1;
      if (shown.length === 0) blank += 1;
      if (shown[0] === true) hitAt1 += 1;
      if (shown.slice(0, 5).includes(true)) hitAt5 += 1;
    } else {
      negatives += 1;
      if (shown.length === 0) abstained += 1;
    }
  }
  const share = (n: number): number => (answerable === 0 ? 0 : n / answerable);
  return { blank: share(blank), hitAt1: share(hitAt1), hitAt5: share(hitAt5), answerable, abstained, negatives };
}

/** Scores as the engine computes them, memoised per model. */
const memo = new WeakMap<RelevanceModel, WeakMap<QueryCase, number[]>>();
function scoresOf(model: RelevanceModel, c: QueryCase): number[] {
  let byCase = memo.get(model);
  if (byCase === undefined) {
    byCase = new WeakMap();
    memo.set(model, byCase);
  }
  let scores = byCase.get(c);
  if (scores === undefined) {
    scores = relevance(model, c.ranked, c.query);
    byCase.set(c, scores);
  }
  return scores;
}

const bySuite = (cases: readonly QueryCase[], split: Split): Map<SuiteName, QueryCase[]> => {
  const out = new Map<SuiteName, QueryCase[]>();
  for (const c of cases) if (c.split === split) out.set(c.suite, [...(out.get(c.suite) ?? []), c]);
  return out;
};

/** The highest threshold whose dev blank rate stays within `budget` on every suite. */
function operatingPoint(model: RelevanceModel, cases: readonly QueryCase[], budget: number): number {
  const dev = bySuite(cases, 'dev');
  let best = 0;
  for (let t = 0; t <= 1; t = round(t + 0.005)) {
    if ([...dev.values()].every((group) => outcome(model, group, t).blank <= budget)) best = t;
  }
  return best;
}

function describe(model: RelevanceModel, cases: readonly QueryCase[], split: Split, t: number): string {
  return [...bySuite(cases, split)]
    .map(([suite, group]) => {
      const o = outcome(model, group, t);
      const negatives = o.negatives === 0 ? '' : ` abstain ${o.abstained}/${o.negatives}`;
      return `${suite}: blank ${o.blank.toFixed(3)} shown hit@1 ${o.hitAt1.toFixed(3)} hit@5 ${o.hitAt5.toFixed(3)}${negatives}`;
    })
    .join(' | ');
}

/** Area under the ROC curve of one score for answerable (positive) vs no-answer queries. */
function auc(positives: number[], negatives: number[]): number {
  let wins = 0;
  for (const p of positives) for (const n of negatives) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return wins / (positives.length * negatives.length);
}

function analyse(mode: SearchMode, cases: readonly QueryCase[]): void {
  const train = cases.filter((c) => c.split === 'train' && c.suite === 'metatool' && !c.named && c.ranked.length > 0);
  const names = MODE_FEATURES[mode].filter((name) => !ORDERING_FEATURES.includes(name));
  const rows = train.map((c) => featureRows(c.ranked.slice(0, 1), c.query, names)[0]!);
  const line = names.map((name, j) => {
    const pos = rows.filter((_, i) => train[i]!.answerable).map((row) => row[j]!);
    const neg = rows.filter((_, i) => !train[i]!.answerable).map((row) => row[j]!);
    return `${name} ${auc(pos, neg).toFixed(3)}`;
  });
  console.log(`${mode} MetaTool train AUC answerable vs no-tool: ${line.join(', ')}`);
}

async function main(): Promise<void> {
  const cache = new Map<string, QueryCase[]>();
  const models = {} as Record<SearchMode, RelevanceModel>;
  const thresholds = {} as Record<SearchMode, { strict: number; balanced: number }>;
  const curves: Record<string, string[]> = {};
  for (const mode of SEARCH_MODES) {
    const cases = await collect(mode, cache);
    if (values.analyse) analyse(mode, cases);
    const model = fit(mode, cases);
    models[mode] = model;
    thresholds[mode] = { strict: operatingPoint(model, cases, BLANK_BUDGET.strict), balanced: operatingPoint(model, cases, BLANK_BUDGET.balanced) };
    const show = (m: LogisticModel): string => `${m.features.map((name, j) => `${name} ${m.weights[j]}`).join(', ')}, bias ${m.bias}`;
    console.log(`\n${mode}: answerable: ${show(model.answerable)}\n  hit: ${show(model.hit)}`);
    for (const level of ['balanced', 'strict'] as const) {
      console.log(`  ${level} t=${thresholds[mode][level]} dev  ${describe(model, cases, 'dev', thresholds[mode][level])}`);
      console.log(`  ${level} t=${thresholds[mode][level]} test ${describe(model, cases, 'test', thresholds[mode][level])}`);
    }
    curves[mode] = [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7].map((t) => `  t=${t.toFixed(2)} test ${describe(model, cases, 'test', t)}`);
    console.log(`  curve (test):\n${curves[mode].join('\n')}`);
  }
  const file: RelevanceModels = {
    version: 1,
    provenance: {
      script: 'scripts/fit-abstention.ts',
      splitSeed: SPLIT_SEED,
      data: `train split of ../shared/eval MetaTool (labelled, sample ${values.sample}, + no-tool), Seal-Tools (sample ${values.sample}), fixtures/eval/library-queries.jsonl over ../shared/eval/library; operating points on dev; test split unseen`,
      embedder: values.model,
      depth: DEPTH,
      l2: L2,
      blankBudget: BLANK_BUDGET,
      date: new Date().toISOString().slice(0, 10),
    },
    models,
    thresholds,
  };
  if (values['dry-run']) return;
  // The tool-list entry (and every catalogue's before the kinds were split); `kinds.skills` is `scripts/fit-relevance-kind.ts`'s.
  const bundle = JSON.parse(readFileSync(OUT, 'utf8')) as { version: number; kinds: Record<string, RelevanceModels> };
  bundle.kinds['tools'] = file;
  writeFileSync(OUT, `${JSON.stringify(bundle, null, 1)}\n`);
  console.error(`wrote kinds.tools of ${OUT}`);
}

await main();
