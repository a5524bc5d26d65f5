/**
 * Fits and chooses the skill-library entry of the relevance models (`relevance-model.json`,
 * `kinds.skills`, hybrid mode) with its shown cut, by the sixteenth round's rule (docs/retrieval.md,
 * "Everyday messages, round 8"): leave-one-set-out over `library` train + dev and every split of
 * `library-r2` … `library-r11` plus the small-catalogue requests (`small-catalogues.ts`, each
 * catalogue in one fold), the cached candidates (`ranking-cases.ts`) replayed as the engine ranks
 * and shows them (bundled per-kind re-rankers, boundaries, relevance, shown cut, everyday gate).
 * Candidate C refits the answerable model only, with `firstMatched` (the first hit's coverage ×
 * the message's length, computed here: C was not taken, so `relevance.ts` does not compute it) beside
 * today's features, and keeps today's hit model (round 5: a refitted hit model cuts the lists
 * short); C0, the same refit without `firstMatched`, is reported beside it.
 * C's threshold and shown cut are chosen together: the point showing nothing for the most pooled
 * no-skill messages whose pooled shown hit@5 and hit@1, and those of the long requests (over
 * `LONG_WORDS` words), stay within `--allowance` of the incumbent's (today's `kinds.skills`) and
 * under which no small-catalogue request loses its shown skill. Deterministic (Newton from zero,
 * no seed). The relevance model reads the re-ranker's order, so re-run this after
 * `rerank-model.json` changes.
 *
 *   npx tsx scripts/fit-relevance-kind.ts [--write]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { relevanceFor, shownCount, type RelevanceModels, type ShownCut } from '../src/search/abstention.js';
import { ENGINE_DEFAULTS } from '../src/search/index.js';
import { BUNDLED_RERANKERS, type CatalogKind } from '../src/search/rerank.js';
import {
  featureRows,
  linearScore,
  MODE_FEATURES,
  ORDERING_FEATURES,
  relevance,
  relevanceFactors,
  relevanceFrom,
  type FeatureName,
  type LogisticModel,
  type RelevanceModel,
} from '../src/search/relevance.js';
import { freshLibrarySetsThrough, SPLIT_SEED, type SuiteName } from './eval-suites.js';
import { fitLogistic, L2, round } from './logistic-fit.js';
import { DEPTH, KIND, LONG_WORDS, libraryCases, smallCases, tally, type Case, type Outcome } from './skills-cases.js';

const { values } = parseArgs({
  strict: true,
  options: {
    write: { type: 'boolean', default: false },
    sample: { type: 'string', default: '500' },
    model: { type: 'string', default: 'use-lite' },
    /** Shown hit@5 and hit@1 a `balanced` point may lose against the incumbent's, as a share of the pooled answerable requests. */
    allowance: { type: 'string', default: '0.005' },
    /** The same for `strict`. */
    'strict-allowance': { type: 'string', default: '0.03' },
    /** Sets read after the choice (never chosen on), e.g. a fresh set once its test has run: scored by the all-groups fits. */
    read: { type: 'string', default: '' },
    /** The refit must show nothing for more no-skill messages than the incumbent by this share of them to be taken. */
    'refit-margin': { type: 'string', default: '0.02' },
  },
});

const K = ENGINE_DEFAULTS.k;
const SETS: readonly SuiteName[] = freshLibrarySetsThrough('library-r11');
const FILE = join(import.meta.dirname, '..', 'src', 'search', 'relevance-model.json');
/** The incumbent: today's skills entry, its hybrid model, thresholds and shown cut. */
const incumbent = relevanceFor(ENGINE_DEFAULTS.relevance, KIND);
const incumbentModel = incumbent.models.hybrid;
const incumbentThreshold = incumbent.thresholds.hybrid.balanced;
/** The engine reads one shown cut for every kind (`EngineOptions.shownCut`). */
const incumbentCut: ShownCut = ENGINE_DEFAULTS.shownCut;

const library = await libraryCases(['library', ...SETS], Number(values.sample), values.model);
const groups = [...new Set(library.map((one) => one.group))];
const small = await smallCases(groups);
const cases = [...library, ...small];

/** What the engine shows each case at `threshold` and `cut`, given each case's relevance scores. */
const outcome = (rows: readonly Case[], scores: ReadonlyMap<Case, readonly number[]>, threshold: number, cut: ShownCut): Outcome =>
  tally(rows, (row) => shownCount(scores.get(row)!, threshold, cut, K));

/** The features of today's hybrid answerable model; C reads `firstMatched` beside them. */
const TODAY_QUERY_FEATURES = MODE_FEATURES.hybrid.filter((name) => !ORDERING_FEATURES.includes(name));
type Column = FeatureName | 'firstMatched';

/** ln(1 + distinct message words the first hit matches): its coverage × the message's length (0 when lexical did not match it). */
function firstMatched(row: Case): number {
  const first = row.ranked[0];
  const coverage = (first?.lexical ?? 0) > 0 ? (first!.coverage ?? 0) : 0;
  return Math.log1p(Math.round(coverage * row.query.terms.size));
}

/** A refitted answerable model and whether it reads `firstMatched` (its last column); the hit model is today's. */
interface Refit {
  readonly answerable: Omit<LogisticModel, 'features'> & { readonly features: readonly Column[] };
  readonly matched: boolean;
}

const answerableRow = (row: Case, matched: boolean): number[] => {
  const values = featureRows(row.ranked.slice(0, 1), row.query, TODAY_QUERY_FEATURES)[0]!;
  return matched ? [...values, firstMatched(row)] : values;
};

/** The hybrid answerable model refitted on `rows` (today's recipe, each request weight 1). */
function fit(rows: readonly Case[], matched: boolean): Refit {
  const train = rows.filter((row) => !row.named && row.ranked.length > 0);
  const answerable = fitLogistic<Column>(
    matched ? [...TODAY_QUERY_FEATURES, 'firstMatched'] : TODAY_QUERY_FEATURES,
    train.map((row) => answerableRow(row, matched)),
    train.map((row) => (row.answerable ? 1 : 0)),
    train.map(() => 1),
  );
  return { answerable, matched };
}

/** Relevance under a refit: its P(answerable) × today's hit model's P(fits), as `relevance.ts` multiplies them. */
function relevanceUnder(refit: Refit, row: Case): number[] {
  const answerable = 1 / (1 + Math.exp(-linearScore(refit.answerable, refit.answerable.bias, answerableRow(row, refit.matched))));
  return relevanceFrom({ answerable, fits: relevanceFactors(incumbentModel, row.ranked, row.query).fits });
}

const scoresUnder = (model: RelevanceModel | Refit, rows: readonly Case[]): Map<Case, number[]> =>
  new Map(rows.map((row) => [row, row.ranked.length === 0 ? [] : 'hit' in model ? relevance(model, row.ranked, row.query) : relevanceUnder(model, row)]));

/** Out-of-fold scores: each group's cases scored by a model fitted on the other groups. */
function outOfFold(matched: boolean): Map<Case, number[]> {
  const scores = new Map<Case, number[]>();
  for (const group of groups) {
    const model = fit(
      cases.filter((row) => row.group !== group),
      matched,
    );
    for (const [row, s] of scoresUnder(
      model,
      cases.filter((one) => one.group === group),
    ))
      scores.set(row, s);
  }
  return scores;
}

const share = (n: number, of: number): string => (n / Math.max(1, of)).toFixed(3);
const line = (o: Outcome): string =>
  `shown@1 ${share(o.all.shown1, o.all.answerable)} shown@5 ${share(o.all.shown5, o.all.answerable)} (${o.all.shown1}, ${o.all.shown5}/${o.all.answerable}) len ${(o.length / Math.max(1, o.all.answerable)).toFixed(2)} blank ${o.blank} nothing for ${o.abstained}/${o.negatives} no-skill; long: shown@1 ${share(o.long.shown1, o.long.answerable)} shown@5 ${share(o.long.shown5, o.long.answerable)} (${o.long.shown1}, ${o.long.shown5}/${o.long.answerable}), nothing for ${o.longAbstained}/${o.longNegatives}; small lost ${o.smallLost}`;

const THRESHOLDS = Array.from({ length: 201 }, (_, i) => round(i * 0.005));
const CUTS: ShownCut[] = [0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5].flatMap((relative) => [0, 0.25, 0.5].map((floor) => ({ relative, floor })));
const incumbentScores = scoresUnder(incumbentModel, cases);
const baseline = outcome(cases, incumbentScores, incumbentThreshold, incumbentCut);
const todayStrict = outcome(cases, incumbentScores, incumbent.thresholds.hybrid.strict, incumbentCut);
console.log(`cases ${library.length} (${groups.join(', ')}); small-catalogue requests of kind ${KIND}: ${small.length}`);
console.log(`incumbent (t ${incumbentThreshold}, cut ${JSON.stringify(incumbentCut)}): ${line(baseline)}`);
console.log(`incumbent strict (t ${incumbent.thresholds.hybrid.strict}): ${line(todayStrict)}`);

interface Point {
  readonly threshold: number;
  readonly cut: ShownCut;
  readonly outcome: Outcome;
}

/** Within `allowance` (a share of each pool) of the incumbent on all answerable requests and on the long ones, no small-catalogue request lost. */
const eligible = (o: Outcome, allowance: number): boolean =>
  o.all.shown5 >= baseline.all.shown5 - allowance * baseline.all.answerable &&
  o.all.shown1 >= baseline.all.shown1 - allowance * baseline.all.answerable &&
  o.long.shown5 >= baseline.long.shown5 - allowance * baseline.long.answerable &&
  o.long.shown1 >= baseline.long.shown1 - allowance * baseline.long.answerable &&
  o.smallLost === 0;
/** Better: shows nothing for more no-skill messages, then higher shown hit@5, then (by scan order) the lower threshold. */
const better = (o: Outcome, than: Point | undefined): boolean =>
  than === undefined || o.abstained > than.outcome.abstained || (o.abstained === than.outcome.abstained && o.all.shown5 > than.outcome.all.shown5);

/** The rule's point over `cuts` × thresholds ≥ `floor`, or undefined when none is eligible. */
function operatingPoint(
  name: string,
  scores: ReadonlyMap<Case, readonly number[]>,
  cuts: readonly ShownCut[],
  allowance: number,
  floor = 0,
): Point | undefined {
  let chosen: Point | undefined;
  for (const cut of cuts)
    for (const threshold of THRESHOLDS) {
      if (threshold < floor) continue;
      const o = outcome(cases, scores, threshold, cut);
      if (eligible(o, allowance) && better(o, chosen)) chosen = { threshold, cut, outcome: o };
    }
  console.log(
    `${name}, allowance ${allowance}: ${chosen === undefined ? 'no eligible point' : `t ${chosen.threshold} cut ${JSON.stringify(chosen.cut)}: ${line(chosen.outcome)}`}`,
  );
  return chosen;
}

function perSet(name: string, scores: ReadonlyMap<Case, readonly number[]>, threshold: number, cut: ShownCut): void {
  for (const group of groups)
    console.log(
      `  ${name} ${group}: ${line(
        outcome(
          library.filter((row) => row.group === group),
          scores,
          threshold,
          cut,
        ),
      )}`,
    );
}

const allowance = Number(values.allowance);
const strictAllowance = Number(values['strict-allowance']);

/** One candidate's curve, scored out of fold: a few thresholds at today's cut, then the rule's point. */
function candidate(name: string, scores: ReadonlyMap<Case, readonly number[]>): Point | undefined {
  console.log(`\n${name}, scored out of fold (leave one set out)`);
  for (const threshold of [0.05, 0.1, 0.135, 0.15, 0.2, 0.25, 0.3, 0.4])
    console.log(`  ${name} t ${threshold} cut 0.1/0.25: ${line(outcome(cases, scores, threshold, incumbentCut))}`);
  return operatingPoint(`${name} balanced`, scores, CUTS, allowance);
}

const oofC0 = outOfFold(false);
const c0 = candidate('C0 (answerable refit, today features)', oofC0);
const oof = outOfFold(true);
const c = candidate('C (answerable refit with firstMatched)', oof);
const full = fit(cases, true);
console.log(`C's answerable model on all groups: ${full.answerable.features.map((name, j) => `${name} ${full.answerable.weights[j]!.toFixed(2)}`).join(', ')}`);
let cStrict = c && operatingPoint('C strict', oof, [c.cut], strictAllowance, c.threshold);
// `strict` not looser than today's: raised until it shows nothing for as many pooled no-skill messages.
if (c && cStrict && cStrict.outcome.abstained < todayStrict.abstained) {
  const cut = c.cut;
  const threshold = THRESHOLDS.find((t) => t >= cStrict!.threshold && outcome(cases, oof, t, cut).abstained >= todayStrict.abstained) ?? 1;
  cStrict = { threshold, cut, outcome: outcome(cases, oof, threshold, cut) };
  console.log(`C strict raised to t ${threshold}: ${line(cStrict.outcome)}`);
}

/** The chance a request's first-hit relevance is above a no-skill message's (ties half), over `rows` not named. */
function auc(rows: readonly Case[], scores: ReadonlyMap<Case, readonly number[]>): number {
  const first = (row: Case): number => scores.get(row)![0] ?? 0;
  const asks = rows.filter((row) => row.answerable && !row.named && !row.small).map(first);
  const chat = rows.filter((row) => !row.answerable && !row.named).map(first);
  let above = 0;
  for (const a of asks) for (const c of chat) above += a > c ? 1 : a === c ? 0.5 : 0;
  return above / Math.max(1, asks.length * chat.length);
}
const longRows = library.filter((row) => row.words > LONG_WORDS);
for (const [name, scores] of [
  ['incumbent', incumbentScores],
  ['C0', oofC0],
  ['C', oof],
] as const)
  console.log(`first-hit relevance AUC, requests over no-skill (${name}): all ${auc(library, scores).toFixed(3)}, long ${auc(longRows, scores).toFixed(3)}`);

const takeC =
  c !== undefined &&
  cStrict !== undefined &&
  c.outcome.abstained - baseline.abstained >= Number(values['refit-margin']) * baseline.negatives &&
  c.outcome.longAbstained > baseline.longAbstained;
console.log(`\nC ${takeC ? 'taken' : 'not taken: the incumbent stays'}`);
console.log('per set, incumbent, C0 and C at their points:');
perSet('incumbent', incumbentScores, incumbentThreshold, incumbentCut);
if (c0) perSet('C0', oofC0, c0.threshold, c0.cut);
if (c) perSet('C', oof, c.threshold, c.cut);
if (takeC && values.write) {
  // The engine computes only `relevance.ts`'s features; `firstMatched` was there in commit e5ca8b7, removed when C was not taken.
  const unknown = full.answerable.features.filter((name) => !(MODE_FEATURES.hybrid as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`C reads ${unknown.join(', ')}, which relevance.ts does not compute (restore it from commit e5ca8b7 first)`);
  // Writing a cut of the kind's own needs the ranker to read one first (docs/retrieval.md, round 5).
  if (c!.cut.relative !== incumbentCut.relative || c!.cut.floor !== incumbentCut.floor)
    throw new Error(`the chosen shown cut ${JSON.stringify(c!.cut)} is not the engine's; the ranker reads one cut for every kind`);
  const file = JSON.parse(readFileSync(FILE, 'utf8')) as { version: number; kinds: Record<CatalogKind, RelevanceModels> };
  const tools = file.kinds.tools;
  file.kinds.skills = {
    version: tools.version,
    provenance: {
      script: 'scripts/fit-relevance-kind.ts',
      command: `npx tsx scripts/fit-relevance-kind.ts --write --sample ${values.sample} --allowance ${values.allowance} --strict-allowance ${values['strict-allowance']} --refit-margin ${values['refit-margin']}`,
      splitSeed: SPLIT_SEED,
      seeds: 'none: leave-one-set-out folds, Newton from zero weights',
      hybrid:
        "answerable model refitted here on the data below with firstMatched beside today's features; hit model today's (kinds.tools); threshold chosen with the shown cut",
      data: `library train + dev and every split of ${SETS.join(', ')} (../shared/eval library catalogue; fixtures/eval) and the small-catalogue requests of scripts/small-catalogues.ts, cached candidates replayed with the bundled per-kind re-rankers (rerank-model.json skills entry of ${String(BUNDLED_RERANKERS.skills.provenance['date'] ?? 'unknown date')}), everyday gate and shown cut`,
      choice: `balanced and shown cut = the point showing nothing for the most pooled no-skill messages (out of fold) with pooled shown hit@5 and hit@1, and those of requests over ${LONG_WORDS} words, within ${allowance} of the incumbent's (t ${incumbentThreshold}, cut ${JSON.stringify(incumbentCut)}), no small-catalogue request lost; strict the same within ${strictAllowance}, not looser than today's ${incumbent.thresholds.hybrid.strict}`,
      dense: "today's model and thresholds (kinds.tools)",
      lexical: "today's model and thresholds (kinds.tools)",
      embedder: values.model,
      depth: DEPTH,
      l2: L2,
      date: new Date().toISOString().slice(0, 10),
    },
    models: { ...tools.models, hybrid: { answerable: full.answerable as LogisticModel, hit: incumbentModel.hit } },
    thresholds: { ...tools.thresholds, hybrid: { strict: cStrict!.threshold, balanced: c!.threshold } },
  };
  writeFileSync(FILE, `${JSON.stringify(file, null, 1)}\n`);
  // The long-message entry (`kinds.skills.long`) is fitted against this entry's model and thresholds, so it is not carried over.
  console.error(`wrote kinds.skills of ${FILE}; its long-message entry is gone: re-run scripts/fit-long-relevance.ts --write`);
}

/** Length classes of `paired-per-query.ts` (library-r12's). */
const CLASSES: readonly (readonly [string, (n: number) => boolean])[] = [
  ['short', (n) => n <= 6],
  ['medium', (n) => n >= 7 && n <= 12],
  ['long', (n) => n >= 13 && n <= 40],
  ['very long', (n) => n > 40],
];
const readSets = values.read.split(',').filter((name) => name !== '') as SuiteName[];
if (readSets.length > 0) {
  const read = await libraryCases(readSets, Number(values.sample), values.model);
  const fullC0 = fit(cases, false);
  console.log(`\nread after the choice (all-groups fits; not chosen on): ${readSets.join(', ')}, ${read.length} cases`);
  for (const [name, model, threshold, cut] of [
    ['incumbent', incumbentModel, incumbentThreshold, incumbentCut],
    ...(c0 ? [['C0 at its point', fullC0, c0.threshold, c0.cut] as const] : []),
    ...(c ? [['C at its point', full, c.threshold, c.cut] as const] : []),
    ['C at t 0.1, cut 0.1/0.25', full, 0.1, incumbentCut],
    ['C at t 0.135, cut 0.1/0.25', full, 0.135, incumbentCut],
  ] as const) {
    const scores = scoresUnder(model, read);
    console.log(`  ${name}: ${line(outcome(read, scores, threshold, cut))}`);
    for (const [cls, fits] of CLASSES) {
      const o = outcome(
        read.filter((row) => fits(row.words)),
        scores,
        threshold,
        cut,
      );
      console.log(
        `    ${cls}: shown@1 ${share(o.all.shown1, o.all.answerable)} shown@5 ${share(o.all.shown5, o.all.answerable)} (${o.all.answerable}), nothing for ${o.abstained}/${o.negatives}`,
      );
    }
  }
}
