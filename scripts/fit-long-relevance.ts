/**
 * Fits and chooses the long-message entry of the skills relevance models (`relevance-model.json`,
 * `kinds.skills.long`) by the rule of docs/retrieval.md, "Everyday messages, round 11" (round 10's on
 * r2–r14, requests over 80 words within the allowance): a hybrid message of more than `LONG_WORDS` and at most `maxWords` white-space words over
 * a catalogue of more than `minSkills` skills is scored by the entry's model (today's when it has
 * none) and thresholded at its own `balanced` / `strict`; `maxWords` is the longest message of the
 * development pool rounded up to a multiple of 10, so the entry reaches no length it was not fitted on. Four candidates: T0 / T30 (today's model, a threshold of their own, over
 * every catalogue / catalogues of more than 30 skills) and M0 / M30 (the answerable model refitted
 * on the long messages only, today's hit model). Leave-one-set-out over `library` train + dev and
 * every split of `library-r2` … `library-r14` plus the small-catalogue requests (`skills-cases.ts`);
 * each candidate's threshold is the eligible point (shown hit@1 / hit@5 overall, over 12, over 40 and
 * over 80 words within the allowance of the common entry's, no small-catalogue request lost) showing nothing for the
 * most long no-skill messages. Deterministic (Newton from zero, no seed). The relevance model reads
 * the re-ranker's order, so re-run this after `rerank-model.json` changes.
 *
 *   npx tsx scripts/fit-long-relevance.ts [--write] [--read library-r15]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BUNDLED_RELEVANCE, longEntry, messageEntries, relevanceFor, shownCount, type LongMessages, type RelevanceModels } from '../src/search/abstention.js';
import { ENGINE_DEFAULTS } from '../src/search/index.js';
import { featureRows, MODE_FEATURES, ORDERING_FEATURES, relevance, type LogisticModel, type RelevanceModel } from '../src/search/relevance.js';
import { BUNDLED_RERANKERS, type CatalogKind } from '../src/search/rerank.js';
import { freshLibrarySetsThrough, SPLIT_SEED, type SuiteName } from './eval-suites.js';
import { fitLogistic, L2, round } from './logistic-fit.js';
import {
  DEPTH,
  KIND,
  LONG_WORDS,
  libraryCases,
  OVER_80_WORDS,
  smallCases,
  tally,
  VERY_LONG_WORDS,
  type Case,
  type Hits,
  type Outcome,
} from './skills-cases.js';

const { values } = parseArgs({
  strict: true,
  options: {
    write: { type: 'boolean', default: false },
    sample: { type: 'string', default: '500' },
    model: { type: 'string', default: 'use-lite' },
    /** Shown hit@5 and hit@1 a `balanced` point may lose against the incumbent's, as a share of each pool. */
    allowance: { type: 'string', default: '0.005' },
    /** The same for `strict`. */
    'strict-allowance': { type: 'string', default: '0.03' },
    /** A later candidate replaces the one held only if it shows nothing for this many more long no-skill messages. */
    margin: { type: 'string', default: '3' },
    /** Sets read after the choice (never chosen on), e.g. a fresh set once its test has run: scored by the all-groups fits. */
    read: { type: 'string', default: '' },
  },
});

const K = ENGINE_DEFAULTS.k;
const SETS: readonly SuiteName[] = freshLibrarySetsThrough('library-r14');
const FILE = join(import.meta.dirname, '..', 'src', 'search', 'relevance-model.json');
const incumbent = relevanceFor(ENGINE_DEFAULTS.relevance, KIND);
const incumbentModel = incumbent.models.hybrid;
const { balanced: incumbentBalanced, strict: incumbentStrict } = incumbent.thresholds.hybrid;
// The incumbent: the common entry's hybrid model and thresholds (a bundled long entry is what this script fits, so it is not read).
const cut = ENGINE_DEFAULTS.shownCut;

const library = await libraryCases(['library', ...SETS], Number(values.sample), values.model);
const groups = [...new Set(library.map((one) => one.group))];
const small = await smallCases(groups);
const cases = [...library, ...small];
/** The entry's reach: the longest development message, rounded up to a multiple of 10 (round 10: past it the fit extrapolates). */
const MAX_WORDS = Math.ceil(Math.max(...cases.map((row) => row.words)) / 10) * 10;

/** Per case: its relevance scores and the threshold it is shown at. */
type Scoring = (row: Case) => { readonly scores: readonly number[]; readonly threshold: number };

function outcome(rows: readonly Case[], scoring: Scoring): Outcome {
  return tally(rows, (row) => {
    const { scores, threshold } = scoring(row);
    return shownCount(scores, threshold, cut, K);
  });
}

const share = (n: number, of: number): string => (n / Math.max(1, of)).toFixed(3);
const cell = (h: Hits): string => `${share(h.shown1, h.answerable)} / ${share(h.shown5, h.answerable)} (${h.shown1}, ${h.shown5} of ${h.answerable})`;
const line = (o: Outcome): string =>
  `shown@1/@5 ${cell(o.all)} len ${(o.length / Math.max(1, o.all.answerable)).toFixed(2)}; >12 ${cell(o.long)}; >40 ${cell(o.veryLong)}; >80 ${cell(o.over80)}; no-skill nothing ${o.abstained}/${o.negatives} (>12: ${o.longAbstained}/${o.longNegatives}); small lost ${o.smallLost}`;

const incumbentScores = new Map(cases.map((row) => [row, row.ranked.length === 0 ? [] : relevance(incumbentModel, row.ranked, row.query)]));
const today: Scoring = (row) => ({ scores: incumbentScores.get(row)!, threshold: incumbentBalanced });
const baseline = outcome(cases, today);
const todayStrict = outcome(cases, (row) => ({ scores: incumbentScores.get(row)!, threshold: incumbentStrict }));
console.log(
  `cases ${library.length} (${groups.join(', ')}); small-catalogue requests of kind ${KIND}: ${small.length} (${small.filter((row) => row.words > LONG_WORDS).length} over ${LONG_WORDS} words); the entry's reach: ${LONG_WORDS + 1} to ${MAX_WORDS} words`,
);
console.log(`incumbent (t ${incumbentBalanced}): ${line(baseline)}`);
console.log(`incumbent strict (t ${incumbentStrict}): ${line(todayStrict)}`);
// The shipped entry (reported, not judged: in sample on the sets it was fitted on).
// The shipped entries (reported, not judged: in sample on the sets they were fitted on).
const bundledEntries = messageEntries(BUNDLED_RELEVANCE.skills);
if (bundledEntries.length > 0) {
  const shippedScoring: Scoring = (row) => {
    const entry = longEntry(BUNDLED_RELEVANCE.skills, 'hybrid', row.text, row.skills);
    if (entry === undefined) return today(row);
    return { scores: row.ranked.length === 0 ? [] : relevance(entry.model ?? incumbentModel, row.ranked, row.query), threshold: entry.thresholds.balanced };
  };
  const reaches = bundledEntries.map((entry) => `${entry.words + 1} to ${entry.maxWords} words at ${entry.thresholds.balanced}`).join(', ');
  console.log(`shipped message entries (${reaches}; in sample where fitted): ${line(outcome(cases, shippedScoring))}`);
}

/** Within `allowance` of the incumbent overall, over 12, over 40 and over 80 words (the last two at least `least` requests), no small-catalogue request lost. */
function eligible(o: Outcome, allowance: number, least: number): boolean {
  const within = (h: Hits, b: Hits, room: number): boolean => h.shown5 >= b.shown5 - room && h.shown1 >= b.shown1 - room;
  return (
    within(o.all, baseline.all, allowance * baseline.all.answerable) &&
    within(o.long, baseline.long, allowance * baseline.long.answerable) &&
    within(o.veryLong, baseline.veryLong, Math.max(least, allowance * baseline.veryLong.answerable)) &&
    within(o.over80, baseline.over80, Math.max(least, allowance * baseline.over80.answerable)) &&
    o.smallLost === 0
  );
}

/** The long entry's model: today's, or the answerable model refitted on long messages beside today's hit model. */
const QUERY_FEATURES = MODE_FEATURES.hybrid.filter((name) => !ORDERING_FEATURES.includes(name));
const applies = (row: Case, minSkills: number): boolean => row.words > LONG_WORDS && row.words <= MAX_WORDS && row.skills > minSkills;

function fit(rows: readonly Case[], minSkills: number): RelevanceModel {
  const train = rows.filter((row) => applies(row, minSkills) && !row.named && row.ranked.length > 0);
  const answerable = fitLogistic(
    QUERY_FEATURES,
    train.map((row) => featureRows(row.ranked.slice(0, 1), row.query, QUERY_FEATURES)[0]!),
    train.map((row) => (row.answerable ? 1 : 0)),
    train.map(() => 1),
  );
  return { answerable, hit: incumbentModel.hit };
}

interface Candidate {
  readonly name: string;
  readonly minSkills: number;
  /** Refits the answerable model (M) or keeps today's (T). */
  readonly refit: boolean;
}
const CANDIDATES: readonly Candidate[] = [
  { name: 'T0', minSkills: 0, refit: false },
  { name: 'T30', minSkills: 30, refit: false },
  { name: 'M0', minSkills: 0, refit: true },
  { name: 'M30', minSkills: 30, refit: true },
];

/** Scores of the cases the long entry applies to: today's, or out of fold under the refit. */
function longScores(candidate: Candidate): Map<Case, readonly number[]> {
  const scores = new Map<Case, readonly number[]>();
  for (const group of groups) {
    const model = candidate.refit
      ? fit(
          cases.filter((row) => row.group !== group),
          candidate.minSkills,
        )
      : incumbentModel;
    for (const row of cases)
      if (row.group === group && applies(row, candidate.minSkills)) scores.set(row, row.ranked.length === 0 ? [] : relevance(model, row.ranked, row.query));
  }
  return scores;
}
const under =
  (candidate: Candidate, scores: ReadonlyMap<Case, readonly number[]>, long: number, short: number): Scoring =>
  (row) =>
    applies(row, candidate.minSkills) ? { scores: scores.get(row)!, threshold: long } : { scores: incumbentScores.get(row)!, threshold: short };

const THRESHOLDS = Array.from({ length: 201 }, (_, i) => round(i * 0.005));
interface Point {
  readonly threshold: number;
  readonly outcome: Outcome;
}
/** The eligible threshold (≥ `floor`) showing nothing for the most long no-skill messages (ties: higher shown hit@5, then lower). */
function operatingPoint(at: (t: number) => Outcome, allowance: number, least: number, floor: number): Point | undefined {
  let chosen: Point | undefined;
  for (const threshold of THRESHOLDS) {
    if (threshold < floor) continue;
    const o = at(threshold);
    if (!eligible(o, allowance, least)) continue;
    if (
      chosen === undefined ||
      o.longAbstained > chosen.outcome.longAbstained ||
      (o.longAbstained === chosen.outcome.longAbstained && o.all.shown5 > chosen.outcome.all.shown5)
    )
      chosen = { threshold, outcome: o };
  }
  return chosen;
}

/** The first-hit relevance AUC of long requests over long no-skill messages (library sets). */
function longAuc(scoring: Scoring): number {
  const first = (row: Case): number => scoring(row).scores[0] ?? 0;
  const long = library.filter((row) => row.words > LONG_WORDS && !row.named);
  const asks = long.filter((row) => row.answerable).map(first);
  const chat = long.filter((row) => !row.answerable).map(first);
  let above = 0;
  for (const a of asks) for (const c of chat) above += a > c ? 1 : a === c ? 0.5 : 0;
  return above / Math.max(1, asks.length * chat.length);
}

const allowance = Number(values.allowance);
const strictAllowance = Number(values['strict-allowance']);
interface Chosen {
  readonly candidate: Candidate;
  readonly balanced: Point;
  readonly strict: Point;
}
const results: Chosen[] = [];
const oofScores = new Map<string, Map<Case, readonly number[]>>();
for (const candidate of CANDIDATES) {
  const scores = longScores(candidate);
  oofScores.set(candidate.name, scores);
  const at = (t: number): Outcome => outcome(cases, under(candidate, scores, t, incumbentBalanced));
  console.log(
    `\n${candidate.name} (${candidate.refit ? 'answerable refitted on long messages, out of fold' : "today's model"}, over ${candidate.minSkills} skills); long AUC ${longAuc(under(candidate, scores, 0, 0)).toFixed(3)}`,
  );
  for (const t of [0.1, 0.135, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5]) console.log(`  t ${t}: ${line(at(t))}`);
  const balanced = operatingPoint(at, allowance, 1, candidate.refit ? 0 : incumbentBalanced);
  if (balanced === undefined) {
    console.log(`  ${candidate.name}: no eligible point`);
    continue;
  }
  console.log(`  ${candidate.name} balanced t ${balanced.threshold}: ${line(balanced.outcome)}`);
  // Strict: 3 points of allowance under today's strict for short messages, never below balanced, not looser than today's on long chat.
  const strictAt = (t: number): Outcome => outcome(cases, under(candidate, scores, t, incumbentStrict));
  let strict = operatingPoint(strictAt, strictAllowance, 3, balanced.threshold) ?? { threshold: balanced.threshold, outcome: strictAt(balanced.threshold) };
  if (strict.outcome.longAbstained < todayStrict.longAbstained) {
    const t = THRESHOLDS.find((one) => one >= strict.threshold && strictAt(one).longAbstained >= todayStrict.longAbstained) ?? 1;
    strict = { threshold: t, outcome: strictAt(t) };
  }
  console.log(`  ${candidate.name} strict t ${strict.threshold}: ${line(strict.outcome)}`);
  results.push({ candidate, balanced, strict });
}

// Valid: at least `margin` more long no-skill messages shown nothing; a later candidate must beat the one held by the margin.
const margin = Number(values.margin);
let taken: Chosen | undefined;
for (const one of results) {
  const gain = one.balanced.outcome.longAbstained - baseline.longAbstained;
  if (gain < margin) continue;
  if (taken === undefined || one.balanced.outcome.longAbstained - taken.balanced.outcome.longAbstained >= margin) taken = one;
}
console.log(
  `\n${taken === undefined ? 'no candidate valid: the incumbent stays' : `taken: ${taken.candidate.name} at t ${taken.balanced.threshold} (strict ${taken.strict.threshold})`}`,
);

/** Length classes of `paired-per-query.ts` (library-r12's). */
const CLASSES: readonly (readonly [string, (n: number) => boolean])[] = [
  ['short', (n) => n <= 6],
  ['medium', (n) => n >= 7 && n <= 12],
  ['long', (n) => n >= 13 && n <= 40],
  ['very long', (n) => n > 40],
  ['over 70', (n) => n > 70],
  ['over 80', (n) => n > 80],
];
function report(name: string, rows: readonly Case[], scoring: Scoring): void {
  console.log(`  ${name}: ${line(outcome(rows, scoring))}`);
  for (const [cls, fits] of CLASSES) {
    const o = outcome(
      rows.filter((row) => fits(row.words)),
      scoring,
    );
    console.log(`    ${cls}: shown@1/@5 ${cell(o.all)}, no-skill nothing ${o.abstained}/${o.negatives}`);
  }
}
console.log('\nper set, incumbent and the taken candidate (out of fold):');
for (const group of groups) {
  const rows = library.filter((row) => row.group === group);
  report(`incumbent ${group}`, rows, today);
  if (taken)
    report(`${taken.candidate.name} ${group}`, rows, under(taken.candidate, oofScores.get(taken.candidate.name)!, taken.balanced.threshold, incumbentBalanced));
}

/** The shipped model of a candidate: refitted on all groups, or today's. */
const shipped = (candidate: Candidate): RelevanceModel => (candidate.refit ? fit(cases, candidate.minSkills) : incumbentModel);
if (taken?.candidate.refit) {
  const { answerable } = shipped(taken.candidate);
  console.log(
    `${taken.candidate.name}'s answerable model on all groups (standardised): ${answerable.features.map((name, j) => `${name} ${answerable.weights[j]!.toFixed(2)}`).join(', ')}`,
  );
}
if (taken && values.write) {
  const file = JSON.parse(readFileSync(FILE, 'utf8')) as { version: number; kinds: Record<CatalogKind, RelevanceModels> };
  const { candidate } = taken;
  const long: LongMessages = {
    words: LONG_WORDS,
    maxWords: MAX_WORDS,
    minSkills: candidate.minSkills,
    ...(candidate.refit ? { model: shipped(candidate) as { answerable: LogisticModel; hit: LogisticModel } } : {}),
    thresholds: { balanced: taken.balanced.threshold, strict: taken.strict.threshold },
    provenance: {
      script: 'scripts/fit-long-relevance.ts',
      command: `npx tsx scripts/fit-long-relevance.ts --write --sample ${values.sample} --allowance ${values.allowance} --strict-allowance ${values['strict-allowance']} --margin ${values.margin}`,
      splitSeed: SPLIT_SEED,
      seeds: 'none: leave-one-set-out folds, Newton from zero weights',
      candidate: `${candidate.name}: ${candidate.refit ? "hybrid answerable model refitted on the messages over 12 words below, hit model today's" : "today's hybrid model"}, for hybrid messages of ${LONG_WORDS + 1} to ${MAX_WORDS} words (the longest development message rounded up to a multiple of 10) over catalogues of more than ${candidate.minSkills} skills`,
      data: `library train + dev and every split of ${SETS.join(', ')} (../shared/eval library catalogue; fixtures/eval) and the small-catalogue requests of scripts/small-catalogues.ts, cached candidates replayed with the bundled per-kind re-rankers (rerank-model.json skills entry of ${String(BUNDLED_RERANKERS.skills.provenance['date'] ?? 'unknown date')}), everyday gate and shown cut`,
      choice: `balanced = the threshold showing nothing for the most pooled no-skill messages over ${LONG_WORDS} words (out of fold) with shown hit@5 and hit@1 overall, over ${LONG_WORDS}, over ${VERY_LONG_WORDS} and over ${OVER_80_WORDS} words within ${allowance} of today's common entry (t ${incumbentBalanced}; over ${VERY_LONG_WORDS} and ${OVER_80_WORDS} at least one request), no small-catalogue request lost; strict the same within ${strictAllowance}, not looser than today's ${incumbentStrict} on long messages (docs/retrieval.md, "Everyday messages, rounds 9 to 11")`,
      embedder: values.model,
      depth: DEPTH,
      l2: L2,
      date: new Date().toISOString().slice(0, 10),
    },
  };
  file.kinds.skills = { ...file.kinds.skills, long };
  writeFileSync(FILE, `${JSON.stringify(file, null, 1)}\n`);
  console.error(`wrote kinds.skills.long of ${FILE}`);
}

const readSets = values.read.split(',').filter((name) => name !== '') as SuiteName[];
if (readSets.length > 0) {
  const read = await libraryCases(readSets, Number(values.sample), values.model);
  console.log(`\nread after the choice (all-groups fits; not chosen on): ${readSets.join(', ')}, ${read.length} cases`);
  for (const row of read) incumbentScores.set(row, row.ranked.length === 0 ? [] : relevance(incumbentModel, row.ranked, row.query));
  report('incumbent', read, today);
  for (const { candidate, balanced } of results) {
    const model = shipped(candidate);
    const scores = new Map(read.map((row) => [row, row.ranked.length === 0 ? [] : relevance(model, row.ranked, row.query)]));
    report(`${candidate.name} at t ${balanced.threshold}`, read, under(candidate, scores, balanced.threshold, incumbentBalanced));
  }
}
