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
 * together (seeded folds; `--fold-groups label` keeps queries with the same relevant skills in one
 * fold), scored by mean hit@1 + hit@5, and the choice is refitted on both. `--objectives` adds a
 * pairwise logistic loss beside the listwise softmax, `--min-leads` the lead a challenger needs over
 * the fused first, `--non-inferior` drops settings below the fused order on any suite, and
 * `--choose one-se` takes the simplest setting within one standard error of the best. `--library-sets`
 * adds the fresh library request sets of earlier rounds (every split) to the pool as library data, and
 * `--library-data`, `--library-weights` put with / without them and the library's fit weight in the grid,
 * `--incumbent` the floor an eligible setting keeps on the other suites. `--kind skills|tools` fits the model of one
 * catalogue kind (`catalogKind`) on the suites that read as it and writes that kind's entry only; the bundled models'
 * choice: docs/retrieval.md ("Group-aware folds …", "In-domain data for the re-ranker", "A re-ranker per catalogue kind").
 *
 *   npx tsx scripts/fit-rerank.ts [--sample 500] [--write] [--ablate] [--depths 3 --lexical-depths 1 --l2 0.01]
 *       [--folds 5 --fold-groups label --feature-sets 'idf|general|compact' --objectives softmax,pairwise
 *        --min-leads 0,0.5 --pool-stays-top false --non-inferior --choose one-se --report-splits train,dev]
 *
 * Deterministic: no randomness (seeded split, every-n-th sampling, Newton from zero, grid ties to
 * the earlier point). Decision and numbers: docs/retrieval.md.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  CATALOG_KINDS,
  RERANK_FEATURES,
  rerankedOrders,
  rerankPool,
  rerankRows,
  type CatalogKind,
  type RerankFeature,
  type RerankModel,
} from '../src/search/rerank.js';
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
import { fitListings, foldKey, oneStandardError, type FitListing, type Objective, type ScoredSetting } from './rerank-fit.js';

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
    /**
     * With `--folds`: what keeps cases together in one fold: `id` (each query alone), `label` (queries whose
     * relevant skills are the same stay in one fold, so a near-identical request for the same tool is never
     * held out from a fit that saw its twin), or `set` (leave one set out: each fitted suite and each
     * `--library-sets` set is a fold of its own, however many `--folds` says).
     */
    'fold-groups': { type: 'string', default: 'id' },
    /** Losses in the grid: `softmax` (listwise, over each query's pool) and/or `pairwise` (logistic, each relevant against each other pool member). */
    objectives: { type: 'string', default: 'softmax' },
    /** Leads the challenger needs over the fused first (`RerankModel.minLead`), in the grid; no refit needed. */
    'min-leads': { type: 'string', default: '0' },
    /**
     * With `--folds`: a setting is eligible only when, on every fitted suite, its cross-validated hit@1 is at least
     * the fused order's (centred): the gain must not come from one suite at another's cost.
     */
    'non-inferior': { type: 'boolean', default: false },
    /**
     * With `--folds`: `best` (the best cross-validated score) or `one-se` (the simplest setting within one standard error of
     * the best's score over the folds: fewer features, then a smaller pool, a larger `l2`, a larger lead).
     */
    choose: { type: 'string', default: 'best' },
    /**
     * With `--folds`: fresh library request sets read in earlier rounds (`library-r2,…`), every split of which joins the
     * cross-validation pool as `library` data (its fit weight, its fold key, its score), beside `library`'s train and dev.
     */
    'library-sets': { type: 'string', default: '' },
    /** With `--library-sets`, in the grid: fits `without` them (scored on them all the same) and/or `with` them. */
    'library-data': { type: 'string', default: 'with' },
    /** In the grid: the library data's fit weight, each other suite weighing 1 (the score weighs every suite alike whatever this is). */
    'library-weights': { type: 'string', default: '1' },
    /**
     * With `--folds`: `features:depth:lexical:weighted:l2` of the incumbent point, refitted with `--incumbent-sets` on the
     * same folds; with `--incumbent-slack`, a setting is eligible only if its cross-validated hit@1 on each fitted suite
     * but the library is at least the incumbent's minus the slack.
     */
    incumbent: { type: 'string' },
    /** With `--incumbent`: the library sets the incumbent is refitted with (every split, as library data, weight 1); none by default. */
    'incumbent-sets': { type: 'string', default: '' },
    /** With `--incumbent`: the suites the incumbent is refitted on (train and dev, each alike); `--suites` by default. */
    'incumbent-suites': { type: 'string' },
    'incumbent-slack': { type: 'string' },
    /**
     * With `--folds`: the catalogue kind (`catalogKind`: `skills` or `tools`) this run fits a model for; every suite fitted
     * must read as it, and `--write` replaces that kind's model only. Absent: one model, written for every kind.
     */
    kind: { type: 'string' },
    /** With `--folds`: write each held-out library case's first relevant position under lexical alone, the incumbent and the choice (JSON lines). */
    'held-out-positions': { type: 'string' },
  },
});

const FIT_SUITES = values.suites.split(',') as SuiteName[];
const LIBRARY_SETS = values['library-sets'] === '' ? [] : (values['library-sets'].split(',') as SuiteName[]);
if (LIBRARY_SETS.length > 0 && (values.folds === '0' || !FIT_SUITES.includes('library')))
  throw new Error('--library-sets: needs --folds and library among --suites');
const KIND = values.kind as CatalogKind | undefined;
if (KIND !== undefined && (!CATALOG_KINDS.includes(KIND) || values.folds === '0')) throw new Error(`--kind: one of ${CATALOG_KINDS.join(', ')}, with --folds`);
const LIBRARY_DATA = values['library-data'].split(',');
if (LIBRARY_DATA.some((data) => data !== 'with' && data !== 'without')) throw new Error('--library-data: with and/or without');
const LIBRARY_WEIGHTS = values['library-weights'].split(',').map(Number);
const INCUMBENT_SETS = values['incumbent-sets'] === '' ? [] : (values['incumbent-sets'].split(',') as SuiteName[]);
const INCUMBENT_SUITES = values['incumbent-suites'] === undefined ? FIT_SUITES : (values['incumbent-suites'].split(',') as SuiteName[]);
/** Every library set loaded: the grid's and the incumbent's. */
const ALL_SETS = [...new Set([...LIBRARY_SETS, ...INCUMBENT_SETS])];
/** The suite a case weighs, is folded and scored in: the library sets join `library`. */
const poolSuite = (c: RankingCase): SuiteName => (ALL_SETS.includes(c.suite) ? 'library' : c.suite);
const SUITE_DATA: Partial<Record<SuiteName, string>> = {
  metatool: `../shared/eval MetaTool (labelled, sample ${values.sample})`,
  seal: `../shared/eval Seal-Tools (sample ${values.sample})`,
  library: 'fixtures/eval/library-queries.jsonl over ../shared/eval/library',
  'library-r2': 'fixtures/eval/library-queries-r2.jsonl over ../shared/eval/library',
  'library-r3': 'fixtures/eval/library-queries-r3.jsonl over ../shared/eval/library',
  'library-r4': 'fixtures/eval/library-queries-r4.jsonl over ../shared/eval/library',
  'library-r5': 'fixtures/eval/library-queries-r5.jsonl over ../shared/eval/library',
  'library-r6': 'fixtures/eval/library-queries-r6.jsonl over ../shared/eval/library',
  'library-r7': 'fixtures/eval/library-queries-r7.jsonl over ../shared/eval/library',
  'library-r8': 'fixtures/eval/library-queries-r8.jsonl over ../shared/eval/library',
  'library-r9': 'fixtures/eval/library-queries-r9.jsonl over ../shared/eval/library',
  'library-r10': 'fixtures/eval/library-queries-r10.jsonl over ../shared/eval/library',
  'library-r11': 'fixtures/eval/library-queries-r11.jsonl over ../shared/eval/library',
  'library-r12': 'fixtures/eval/library-queries-r12.jsonl over ../shared/eval/library',
  'library-r13': 'fixtures/eval/library-queries-r13.jsonl over ../shared/eval/library',
  'library-r14': 'fixtures/eval/library-queries-r14.jsonl over ../shared/eval/library',
  'library-r15': 'fixtures/eval/library-queries-r15.jsonl over ../shared/eval/library',
  'library-r16': 'fixtures/eval/library-queries-r16.jsonl over ../shared/eval/library',
  'library-r17': 'fixtures/eval/library-queries-r17.jsonl over ../shared/eval/library',
  'library-r18': 'fixtures/eval/library-queries-r18.jsonl over ../shared/eval/library',
  'library-r19': 'fixtures/eval/library-queries-r19.jsonl over ../shared/eval/library',
  'library-tasks': 'fixtures/eval/library-tasks-dev.jsonl over ../shared/eval/library',
  boundaries: 'eval/boundaries/library-boundaries.jsonl over ../shared/eval/library',
};
const CENTRINGS = values.centring.split(',').map((value) => value === 'true');
const REPORT_SUITES: readonly SuiteName[] = [
  ...new Set<SuiteName>([...FIT_SUITES, 'metatool', 'seal', 'library', 'boundaries', 'skillsbench', ...INCUMBENT_SUITES]),
];
const REPORT_SPLITS = values['report-splits'].split(',') as Split[];
const list = (value: string | undefined, grid: number[]): number[] => (value === undefined ? grid : value.split(',').map(Number));
const DEPTHS = list(values.depths, [3, 5, 10]);
const LEXICAL_DEPTHS = list(values['lexical-depths'], [0, 1, 3]);
const WEIGHTED_DEPTHS = list(values['weighted-depths'], [0]);
const L2S = list(values.l2, [0.001, 0.01, 0.03, 0.1, 0.3, 1, 3]);
const FEATURES: readonly RerankFeature[] =
  values.features === undefined ? (Object.keys(RERANK_FEATURES) as RerankFeature[]) : (values.features.split(',') as RerankFeature[]);
const STAYS_TOP = values['pool-stays-top'].split(',').map((value) => value === 'true');
const OBJECTIVES = values.objectives.split(',') as Objective[];
if (OBJECTIVES.some((objective) => objective !== 'softmax' && objective !== 'pairwise')) throw new Error('--objectives: softmax and/or pairwise');
const MIN_LEADS = list(values['min-leads'], [0]);
const FOLD_GROUPS = values['fold-groups'];
if (FOLD_GROUPS !== 'id' && FOLD_GROUPS !== 'label' && FOLD_GROUPS !== 'set') throw new Error('--fold-groups: id, label or set');
/** `--fold-groups set` (leave one set out): each fitted suite's train and dev and each library set is one fold, in this order. */
const FOLD_SETS: readonly SuiteName[] = FOLD_GROUPS === 'set' ? [...FIT_SUITES, ...LIBRARY_SETS] : [];
if (FOLD_GROUPS === 'set' && (LIBRARY_SETS.length === 0 || INCUMBENT_SETS.some((suite) => !LIBRARY_SETS.includes(suite))))
  throw new Error('--fold-groups set: needs --library-sets, holding every --incumbent-sets entry');
if (values.choose !== 'best' && values.choose !== 'one-se') throw new Error('--choose: best or one-se');
const FOLD_SEED = 'skill-search-rerank-folds-1';
const OUT = join(import.meta.dirname, '..', 'src', 'search', 'rerank-model.json');

const sample = Number(values.sample);
// Only the splits fitted, chosen on and reported are ranked: a test split not asked for is never read.
const cases = (await rankingCases(REPORT_SUITES, [...new Set<Split>(['train', 'dev', ...REPORT_SPLITS])], sample, values.model)).map((c) => asEngineSees(c));
/** Every split of the library sets (all read in earlier rounds, development data now). */
const setCases = (await rankingCases(ALL_SETS, ['train', 'dev', 'test'], sample, values.model)).map((c) => asEngineSees(c));
const librarySetCases = setCases.filter((c) => LIBRARY_SETS.includes(c.suite));
const group = (split: Split, suite: SuiteName): RankingCase[] => cases.filter((c) => c.split === split && c.suite === suite);
// `--kind`: every suite fitted must read as that kind (the rule the engine applies, never the suite's name).
if (KIND !== undefined)
  for (const c of [...FIT_SUITES.flatMap((suite) => [...group('train', suite), ...group('dev', suite)]), ...librarySetCases])
    if (c.kind !== KIND) throw new Error(`--kind ${KIND}: ${c.suite}'s catalogue reads as ${c.kind}`);

/** One query's re-ranker pool: ordering scores, feature rows, labels. */
type Listing = FitListing<SuiteName>;

/** The re-ranker's pool of one case (see `rerankedOrders`), in fused order. */
function listing(c: RankingCase, centring: boolean, depth: number, lexicalDepth: number, weightedDepth: number, features: readonly RerankFeature[]): Listing {
  const orders = fused(c, centring);
  const rows = rowsFor(c, features);
  const index = rerankPool(rerankInput(c, orders), { depth, lexicalDepth, weightedDepth });
  return { suite: poolSuite(c), orders: index.map((i) => orders[i]!), rows: index.map((i) => rows[i]!), labels: index.map((i) => c.labels[i]!) };
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

const round = (value: number): number => Number(value.toPrecision(6));

const FOLDS = FOLD_GROUPS === 'set' ? FOLD_SETS.length : Number(values.folds);
const fittable = (c: RankingCase): boolean => c.answerable && !c.namedRelevant;
const trainCases = FIT_SUITES.flatMap((suite) => group('train', suite)).filter(fittable);
/** With `--folds`: the train and dev cases the choice is cross-validated on and the chosen model refitted on. */
const poolCases = [...FIT_SUITES.flatMap((suite) => [...group('train', suite), ...group('dev', suite)]), ...librarySetCases];
const fromLibrarySets = (c: RankingCase): boolean => ALL_SETS.includes(c.suite);
/** With `--incumbent`: the cases its refits draw on (`--incumbent-suites` train and dev, `--incumbent-sets` every split). */
const incumbentCases = [
  ...INCUMBENT_SUITES.flatMap((suite) => [...group('train', suite), ...group('dev', suite)]),
  ...setCases.filter((c) => INCUMBENT_SETS.includes(c.suite)),
].filter(fittable);
const fitCases = FOLDS > 0 ? poolCases.filter(fittable) : trainCases;
/** A case's fold, from a seeded hash of its suite and `foldKey` (`--fold-groups`; independent of which other cases were loaded). */
const foldOf = (c: RankingCase): number =>
  FOLD_GROUPS === 'set'
    ? FOLD_SETS.indexOf(c.suite)
    : createHash('sha256')
        .update(`${FOLD_SEED}:${poolSuite(c)}:${foldKey(c, FOLD_GROUPS)}`)
        .digest()
        .readUInt32BE(0) % FOLDS;
/** A fitted model and the dense order (`centring`) its fused list was built on. */
type Fitted = RerankModel & { readonly provenance: { readonly centring: boolean } };
function modelOf(
  centring: boolean,
  depth: number,
  lexicalDepth: number,
  l2: number,
  features: readonly RerankFeature[] = FEATURES,
  {
    cases = fitCases,
    staysTop = false,
    weightedDepth = 0,
    objective = 'softmax',
    minLead = 0,
    libraryData = LIBRARY_DATA.at(-1)!,
    libraryWeight = 1,
    librarySets = LIBRARY_SETS,
  }: {
    cases?: readonly RankingCase[];
    staysTop?: boolean;
    weightedDepth?: number;
    objective?: Objective;
    minLead?: number;
    libraryData?: string;
    libraryWeight?: number;
    /** With `libraryData` `with`: which of the library sets are fitted on (all by default). */
    librarySets?: readonly SuiteName[];
  } = {},
): Fitted {
  const listings = cases
    .filter((c) => !fromLibrarySets(c) || (libraryData === 'with' && librarySets.includes(c.suite)))
    .map((c) => listing(c, centring, depth, lexicalDepth, weightedDepth, features))
    .filter((l) => l.labels.some(Boolean) && l.rows.length > 1);
  const fitted = fitListings(listings, l2, objective, new Map<SuiteName, number>([['library', libraryWeight]]));
  const setsFitted =
    libraryData === 'with' && librarySets.length > 0
      ? `; every split of ${librarySets.map((suite) => SUITE_DATA[suite] ?? suite).join('; ')} (read in earlier rounds), as library data`
      : '';
  const weights = libraryWeight === 1 ? 'each suite weighted alike' : `the library weighted ${libraryWeight}, each other suite 1`;
  const data =
    FOLDS > 0
      ? `train and dev splits of ${FIT_SUITES.map((suite) => SUITE_DATA[suite] ?? suite).join('; ')}${setsFitted}; ${weights}; hybrid candidates from scripts/ranking-cases.ts (${values.model}); dense order, depth, features and l2 chosen by ${FOLD_GROUPS === 'set' ? `leave-one-set-out cross-validation over them (${FOLDS} sets)` : `${FOLDS}-fold cross-validation over them (folds seeded ${FOLD_SEED})`}; test split unseen`
      : `train split of ${FIT_SUITES.map((suite) => SUITE_DATA[suite] ?? suite).join('; ')}; each suite weighted alike; hybrid candidates from scripts/ranking-cases.ts (${values.model}); dense order, depth and l2 chosen on dev; test split unseen`;
  return {
    version: 1,
    provenance: {
      script: 'scripts/fit-rerank.ts',
      ...(KIND === undefined ? {} : { kind: KIND }),
      command: `npx tsx scripts/fit-rerank.ts ${process.argv
        .slice(2)
        .map((arg) => (/[^\w,.=/-]/.test(arg) ? `'${arg}'` : arg))
        .join(' ')}`,
      splitSeed: SPLIT_SEED,
      ...(FOLDS > 0 ? { folds: FOLDS, foldSeed: FOLD_SEED, foldGroups: FOLD_GROUPS } : {}),
      objective,
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
    ...(minLead > 0 ? { minLead } : {}),
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
  /** Lexical search alone: BM25's order of the candidates it matched (the others unranked), for the report. */
  readonly lexicalOnly?: boolean;
}
const MAIN: Setting = { centring: true, model: undefined };

/** Hit@1, hit@5 and MRR of `cases` under `setting`. */
function metrics(cases: readonly RankingCase[], setting: Setting): RankMetrics {
  return metricsOf(cases, (c) => firstRelevant(c, setting));
}

/** Where `setting` puts the case's first relevant candidate (−1: none among its candidates). */
function firstRelevant(c: RankingCase, { centring, model, lexicalOnly = false }: Setting): number {
  if (lexicalOnly) {
    const matched = c.candidates.map((_, i) => i).filter((i) => (c.candidates[i]!.lexical ?? 0) > 0);
    matched.sort((a, b) => c.candidates[b]!.lexical! - c.candidates[a]!.lexical! || a - b);
    return matched.findIndex((i) => c.labels[i]);
  }
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

/** The shared-name features (offered in the third round, not chosen; again in the ninth, `compact-shared`). */
const SHARED_NAME: readonly RerankFeature[] = ['nameSpecific', 'nameGeneric'];
/** The features read from each match's per-word IDF (`LexicalMatch.weightedCoverage`, `rarest`). */
const IDF_EVIDENCE: readonly RerankFeature[] = ['weighted', 'weightedGap', 'rarest', 'singleCommon'];
/** The fifth round's: the request's share in the name, and dense and BM25 agreeing on their first. */
const AGREEMENT: readonly RerankFeature[] = ['nameCoverage', 'agree'];
/** Ten features that read no rank or raw score of one catalogue's scale (the fifth round's `compact` set). */
const COMPACT: readonly RerankFeature[] = ['dense', 'lexical', 'coverage', 'name', 'nameCoverage', 'weighted', 'rarest', 'lexicalMargin', 'agree', 'denseOnly'];
/** A `--feature-sets` entry's features. */
function featureSetOf(set: string): readonly RerankFeature[] {
  if (set === 'all') return FEATURES;
  const later = [...SHARED_NAME, ...AGREEMENT];
  if (set === 'base') return FEATURES.filter((name) => !later.includes(name) && !IDF_EVIDENCE.includes(name));
  if (set === 'idf') return FEATURES.filter((name) => !later.includes(name));
  if (set === 'general') return FEATURES.filter((name) => !SHARED_NAME.includes(name));
  if (set === 'compact') return COMPACT;
  // The ninth round's: the compact set with the shared-name features beside `name`.
  if (set === 'compact-shared') return [...COMPACT, ...SHARED_NAME];
  return set.split(',') as RerankFeature[];
}
const FEATURE_SETS = values['feature-sets'].split('|').map(featureSetOf);

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
  /** A setting's cross-validated result: score (mean hit@1 + hit@5), MRR, the suites' cells, hit@1 per suite, and the score of each held-out fold. */
  interface Scored {
    readonly score: number;
    readonly mrr: number;
    readonly cells: string;
    readonly hit1s: readonly number[];
    readonly foldScores: readonly number[];
    /** Library hit@1 on each held-out fold (the sets included). */
    readonly libraryFolds: readonly number[];
    /** Mean hit@1 over the fitted suites on each held-out fold (`--kind`'s gate). */
    readonly hit1Folds: readonly number[];
    /** Where each held-out case put its first relevant candidate (−1: none). */
    readonly positions: ReadonlyMap<RankingCase, number>;
  }
  const scoreOf = (rows: readonly RankMetrics[]): number => rows.reduce((sum, m) => sum + m.hit1 + m.hit5, 0) / rows.length;
  const cvScore = (settingOf: (fold: number) => Setting): Scored => {
    const held = folds.flatMap(({ held }, f) => held.map((c) => ({ c, f })));
    const positions = new Map(held.map(({ c, f }) => [c, firstRelevant(c, settingOf(f))]));
    const metricsOver = (cases: readonly RankingCase[]): RankMetrics => metricsOf(cases, (c) => positions.get(c)!);
    const rows = FIT_SUITES.map((suite) => metricsOver(held.filter(({ c }) => poolSuite(c) === suite).map(({ c }) => c)));
    const foldScores = folds.map((_, f) =>
      scoreOf(FIT_SUITES.map((suite) => metricsOver(held.filter(({ c, f: g }) => g === f && poolSuite(c) === suite).map(({ c }) => c)))),
    );
    // With library sets, the library's cell is also given apart: `library` itself, then the sets together.
    const apart =
      LIBRARY_SETS.length === 0
        ? ''
        : ` [${[(c: RankingCase) => c.suite === 'library', fromLibrarySets]
            .map((part) => metricsOver(held.filter(({ c }) => part(c)).map(({ c }) => c)))
            .map((m) => `${m.hit1.toFixed(3)}/${m.hit5.toFixed(3)}`)
            .join(' ')}]`;
    return {
      score: scoreOf(rows),
      mrr: rows.reduce((sum, m) => sum + m.mrr, 0) / rows.length,
      cells: rows.map((m) => `${m.hit1.toFixed(3)}/${m.hit5.toFixed(3)}`).join(' ') + apart,
      hit1s: rows.map((m) => m.hit1),
      foldScores,
      libraryFolds: folds.map((_, f) => metricsOver(held.filter(({ c, f: g }) => g === f && poolSuite(c) === 'library').map(({ c }) => c)).hit1),
      positions,
      hit1Folds: folds.map(
        (_, f) =>
          FIT_SUITES.reduce((sum, suite) => sum + metricsOver(held.filter(({ c, f: g }) => g === f && poolSuite(c) === suite).map(({ c }) => c)).hit1, 0) /
          FIT_SUITES.length,
      ),
    };
  };
  // `--non-inferior`: the fused (centred) order's cross-validated hit@1 per suite, which an eligible setting must reach on each.
  const floor = cvScore(() => MAIN).hit1s;
  let incumbentFolds: readonly number[] = [];
  let incumbentLibrary: readonly number[] = [];
  let incumbentHit1: readonly number[] = [];
  let incumbentPositions: ReadonlyMap<RankingCase, number> = new Map();
  /** Mean and standard error of the per-fold differences `a − b`. */
  const pairedDifference = (a: readonly number[], b: readonly number[]): { mean: number; se: number } => {
    const d = a.map((x, f) => x - b[f]!);
    const mean = d.reduce((sum, x) => sum + x, 0) / d.length;
    return { mean, se: Math.sqrt(d.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (d.length - 1) / d.length) };
  };
  const paired = (a: readonly number[], b: readonly number[]): string => {
    const { mean, se } = pairedDifference(a, b);
    return `${mean >= 0 ? '+' : ''}${mean.toFixed(4)} ± ${se.toFixed(4)}`;
  };
  /** With `--incumbent`: the setting's score, library hit@1 (and with `--kind`, mean hit@1) minus the incumbent's, as mean ± standard error of the per-fold differences. */
  const pairedWithIncumbent = (result: Scored): string => {
    if (incumbentFolds.length === 0) return '';
    const library = FIT_SUITES.includes('library') ? `, library hit@1 ${paired(result.libraryFolds, incumbentLibrary)}` : '';
    const mean = KIND === undefined ? '' : `, mean hit@1 ${paired(result.hit1Folds, incumbentHit1)}`;
    return ` vs incumbent: score ${paired(result.foldScores, incumbentFolds)}${library}${mean}`;
  };
  // `--incumbent` with `--incumbent-slack`: the incumbent point's cross-validated hit@1 per suite (fitted with `--incumbent-sets`
  // only), which an eligible setting must reach, less the slack, on every suite but the library.
  const incumbentFloor = ((): readonly number[] | undefined => {
    if (values.incumbent === undefined) return undefined;
    const [set, depth, lexicalDepth, weightedDepth, l2] = values.incumbent.split(':');
    const features = featureSetOf(set!);
    const models = folds.map((_, f) =>
      modelOf(true, Number(depth), Number(lexicalDepth), Number(l2), features, {
        cases: incumbentCases.filter((c) => foldOf(c) !== f),
        weightedDepth: Number(weightedDepth),
        libraryData: INCUMBENT_SETS.length > 0 ? 'with' : 'without',
        librarySets: INCUMBENT_SETS,
      }),
    );
    const result = cvScore((f) => ({ centring: true, model: models[f] }));
    console.log(
      `incumbent ${values.incumbent} on ${INCUMBENT_SUITES.join(', ')} ${INCUMBENT_SETS.length > 0 ? `with ${INCUMBENT_SETS.join(', ')}` : 'without the library sets'}: cv hit@1+hit@5 ${result.score.toFixed(4)} MRR ${result.mrr.toFixed(4)} (${result.cells})`,
    );
    incumbentFolds = result.foldScores;
    incumbentLibrary = result.libraryFolds;
    incumbentHit1 = result.hit1Folds;
    incumbentPositions = result.positions;
    return result.hit1s;
  })();
  const slack = Number(values['incumbent-slack'] ?? Number.POSITIVE_INFINITY);
  const eligible = (hit1s: readonly number[]): boolean =>
    (!values['non-inferior'] || hit1s.every((hit1, s) => hit1 >= floor[s]! - 1e-12)) &&
    (incumbentFloor === undefined || hit1s.every((hit1, s) => FIT_SUITES[s] === 'library' || hit1 >= incumbentFloor[s]! - slack - 1e-12));
  /** Every eligible setting scored, with how simple it is (`--choose one-se`: fewer features, a smaller pool, a larger `l2`, a larger lead first). */
  const scored: (Scored & ScoredSetting & { make: () => Setting; label: string })[] = [];
  const report = (label: string, result: Scored): void =>
    console.log(
      `${label}: cv hit@1+hit@5 ${result.score.toFixed(4)} MRR ${result.mrr.toFixed(4)} (${result.cells})${eligible(result.hit1s) ? '' : ' [not eligible]'}${pairedWithIncumbent(result)}`,
    );
  for (const centring of CENTRINGS) {
    const setting = { centring, model: undefined };
    const result = cvScore(() => setting);
    const label = `fused order, ${centring ? 'centred' : 'plain'}`;
    report(label, result);
    if (eligible(result.hit1s)) scored.push({ ...result, simplicity: [0, 0, 0, 0, 0], make: () => setting, label });
  }
  // Reported, never chosen: lexical search alone over the same candidates.
  const lexicalAlone = cvScore(() => ({ centring: true, model: undefined, lexicalOnly: true }));
  report('lexical alone (BM25 order, reported only)', lexicalAlone);
  /** The library data and weight of each grid point: `without` the sets at weight 1 only (a reference, never chosen when they are given). */
  const LIBRARY_FITS = LIBRARY_DATA.flatMap((libraryData) =>
    libraryData === 'without' ? [{ libraryData, libraryWeight: 1 }] : LIBRARY_WEIGHTS.map((libraryWeight) => ({ libraryData, libraryWeight })),
  );
  for (const centring of CENTRINGS) {
    for (const features of FEATURE_SETS) {
      for (const depth of DEPTHS) {
        for (const lexicalDepth of LEXICAL_DEPTHS) {
          for (const weightedDepth of WEIGHTED_DEPTHS) {
            for (const l2 of L2S) {
              for (const objective of OBJECTIVES) {
                for (const { libraryData, libraryWeight } of LIBRARY_FITS) {
                  const fit = { weightedDepth, objective, libraryData, libraryWeight };
                  const models = folds.map((fold) => modelOf(centring, depth, lexicalDepth, l2, features, { ...fit, cases: fold.fit }));
                  const reference = LIBRARY_SETS.length > 0 && libraryData === 'without';
                  for (const staysTop of lexicalDepth + weightedDepth > 0 ? STAYS_TOP : [false]) {
                    for (const minLead of MIN_LEADS) {
                      const result = cvScore((f) => ({ centring, model: { ...models[f]!, poolStaysTop: staysTop, minLead } }));
                      const data =
                        LIBRARY_SETS.length === 0
                          ? ''
                          : libraryData === 'with'
                            ? ` with the library sets, weight ${libraryWeight}`
                            : ' without the library sets';
                      const label = `${centring ? 'centred' : 'plain'} ${features.length} features depth ${depth} + lexical ${lexicalDepth} + weighted ${weightedDepth}${staysTop ? ' (pool stays top)' : ''} l2 ${l2} ${objective} lead ${minLead}${data}`;
                      report(label, result);
                      if (eligible(result.hit1s) && !reference)
                        scored.push({
                          ...result,
                          simplicity: [features.length, depth + lexicalDepth + weightedDepth, libraryWeight, -l2, -minLead],
                          make: () => ({ centring, model: modelOf(centring, depth, lexicalDepth, l2, features, { ...fit, staysTop, minLead }) }),
                          label,
                        });
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  // `best`: the best score, MRR breaking ties, the earlier grid point exact ties. `one-se`: the simplest setting whose score
  // is within one standard error (over the folds) of the best's: the best of hundreds of noisy estimates overstates its gain.
  const { best, se, within, pick: simplest } = oneStandardError(scored);
  const pick = values.choose === 'one-se' ? simplest : best;
  if (values.choose === 'one-se')
    console.log(`best ${best.label} (${best.score.toFixed(4)}), one standard error ${se.toFixed(4)}: ${within} settings within; the simplest: ${pick.label}`);
  // `--kind` with `--incumbent`: the cross-validation gate (docs/retrieval.md, tenth round): the choice's mean hit@1 over the fitted
  // suites must exceed the incumbent's by more than the standard error of their per-fold difference.
  if (KIND !== undefined && incumbentHit1.length > 0) {
    const { mean, se: gateSe } = pairedDifference(pick.hit1Folds, incumbentHit1);
    console.log(`gate: mean hit@1 ${paired(pick.hit1Folds, incumbentHit1)} against the incumbent: ${mean > gateSe ? 'passes' : 'fails'}`);
  }
  // Leave one set out: each held-out set's hit@1, and the sets where lexical search alone ranks more first (done-when (b)).
  if (FOLD_GROUPS === 'set') {
    const cell = (folds: readonly number[], f: number): string => (folds[f] === undefined ? '–' : folds[f].toFixed(3));
    console.log('held-out set: lexical alone | incumbent | choice (library hit@1)');
    FOLD_SETS.forEach((suite, f) =>
      console.log(`${suite}: ${cell(lexicalAlone.libraryFolds, f)} | ${cell(incumbentLibrary, f)} | ${cell(pick.libraryFolds, f)}`),
    );
    const lexicalAhead = (folds: readonly number[]): number => folds.filter((hit1, f) => lexicalAlone.libraryFolds[f]! > hit1 + 1e-12).length;
    console.log(`sets where lexical alone ranks more first: incumbent ${lexicalAhead(incumbentLibrary)}, choice ${lexicalAhead(pick.libraryFolds)}`);
  }
  // `--held-out-positions FILE`: per held-out library case, where lexical alone, the incumbent and the choice put its first relevant skill.
  if (values['held-out-positions'] !== undefined) {
    const lines = [...pick.positions]
      .filter(([c]) => poolSuite(c) === 'library' && c.answerable)
      .map(([c, choice]) =>
        JSON.stringify({
          suite: c.suite,
          id: c.id,
          terms: c.query.terms.size,
          lexical: lexicalAlone.positions.get(c),
          incumbent: incumbentPositions.get(c),
          choice,
        }),
      );
    writeFileSync(values['held-out-positions'], `${lines.join('\n')}\n`);
  }
  chosen = pick.make();
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
for (const split of REPORT_SPLITS) {
  console.log(`\n${split} (hit@1 / hit@5 / MRR, answerable queries): main (centred, fused) → chosen`);
  for (const suite of REPORT_SUITES) {
    const n = metrics(group(split, suite), MAIN).n;
    if (n > 0) console.log(`${suite} (${n}): ${fmt(split, suite, MAIN)} → ${fmt(split, suite, chosen)}`);
  }
}
if (LIBRARY_SETS.length > 0) {
  console.log(`\nthe library sets, every split (in sample when fitted with them): main (centred, fused) → chosen`);
  for (const suite of LIBRARY_SETS) {
    const all = librarySetCases.filter((c) => c.suite === suite);
    const cell = (setting: Setting): string => {
      const m = metrics(all, setting);
      return `${m.hit1.toFixed(3)} / ${m.hit5.toFixed(3)} / ${m.mrr.toFixed(3)}`;
    };
    console.log(`${suite} (${metrics(all, MAIN).n}): ${cell(MAIN)} → ${cell(chosen)}`);
  }
}
// The ablation refits with the last `--library-data` entry at library weight 1, whatever the choice's weight.
if (values.ablate && chosenModel !== undefined) {
  const { depth, lexicalDepth } = chosenModel;
  const { centring } = chosen;
  const l2 = chosenModel.provenance['l2'] as number;
  const staysTop = chosenModel.poolStaysTop === true;
  const weightedDepth = chosenModel.weightedDepth ?? 0;
  const fitObjective = chosenModel.provenance['objective'] as Objective;
  const minLead = chosenModel.minLead ?? 0;
  const without = (drop: readonly RerankFeature[]): readonly RerankFeature[] => chosenModel.features.filter((name) => !drop.includes(name));
  const steps: [string, Setting][] = [
    ['fused order, centred (main)', MAIN],
    [`fused order, ${centring ? 'centred' : 'plain'}`, { centring, model: undefined }],
    [
      `depth ${depth}, no BM25 first from further down`,
      { centring, model: modelOf(centring, depth, 0, l2, chosenModel.features, { objective: fitObjective, minLead }) },
    ],
    [
      `depth ${depth} + BM25 firsts ${lexicalDepth}, none by weighted coverage`,
      { centring, model: modelOf(centring, depth, lexicalDepth, l2, chosenModel.features, { staysTop, objective: fitObjective, minLead }) },
    ],
    ['chosen', chosen],
    [
      'without dense, plain',
      {
        centring,
        model: modelOf(centring, depth, lexicalDepth, l2, without(['dense', 'plain']), { staysTop, weightedDepth, objective: fitObjective, minLead }),
      },
    ],
    [
      'without plain',
      { centring, model: modelOf(centring, depth, lexicalDepth, l2, without(['plain']), { staysTop, weightedDepth, objective: fitObjective, minLead }) },
    ],
    [
      'without nameSpecific, nameGeneric',
      {
        centring,
        model: modelOf(centring, depth, lexicalDepth, l2, without(['nameSpecific', 'nameGeneric']), {
          staysTop,
          weightedDepth,
          objective: fitObjective,
          minLead,
        }),
      },
    ],
    [
      'without name, nameTerm',
      {
        centring,
        model: modelOf(centring, depth, lexicalDepth, l2, without(['name', 'nameTerm']), { staysTop, weightedDepth, objective: fitObjective, minLead }),
      },
    ],
    [
      'without weighted, weightedGap, rarest, singleCommon (IDF)',
      { centring, model: modelOf(centring, depth, lexicalDepth, l2, without(IDF_EVIDENCE), { staysTop, weightedDepth, objective: fitObjective, minLead }) },
    ],
    [
      'without nameCoverage, agree',
      { centring, model: modelOf(centring, depth, lexicalDepth, l2, without(AGREEMENT), { staysTop, weightedDepth, objective: fitObjective, minLead }) },
    ],
    ['lead 0', { centring, model: { ...chosenModel, minLead: 0 } }],
    [
      'without rarest, singleCommon',
      {
        centring,
        model: modelOf(centring, depth, lexicalDepth, l2, without(['rarest', 'singleCommon']), { staysTop, weightedDepth, objective: fitObjective, minLead }),
      },
    ],
    [
      'without perTerm, matched',
      {
        centring,
        model: modelOf(centring, depth, lexicalDepth, l2, without(['perTerm', 'matched']), { staysTop, weightedDepth, objective: fitObjective, minLead }),
      },
    ],
    [
      'without coverage, coverageGap',
      {
        centring,
        model: modelOf(centring, depth, lexicalDepth, l2, without(['coverage', 'coverageGap']), { staysTop, weightedDepth, objective: fitObjective, minLead }),
      },
    ],
    [
      'without lexicalFirst, lexicalMargin, lexicalRank',
      {
        centring,
        model: modelOf(centring, depth, lexicalDepth, l2, without(['lexicalFirst', 'lexicalMargin', 'lexicalRank']), {
          staysTop,
          weightedDepth,
          objective: fitObjective,
          minLead,
        }),
      },
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
  // One model per catalogue kind: `--kind` replaces its own, else the model is written for every kind.
  const kinds = (JSON.parse(readFileSync(OUT, 'utf8')) as { kinds: Record<CatalogKind, RerankModel> }).kinds;
  for (const kind of KIND === undefined ? CATALOG_KINDS : [KIND]) kinds[kind] = model;
  writeFileSync(OUT, `${JSON.stringify({ version: 2, kinds }, null, 1)}\n`);
  console.log(`\nwrote ${OUT}`);
}
