/**
 * Chooses the skills relevance models' message entries (`relevance-model.json`, `kinds.skills.long`)
 * for an unseen set, by the rule of docs/retrieval.md, "Everyday messages, round 14": two entries,
 * **medium** (7–12 words) and **long** (13–70 words), both over catalogues of more than 30 skills; six
 * candidates (the medium entry's hybrid answerable model refitted as `invariant`, `noterms` or `full`
 * × the long entry `kept` as main ships it or `refit`), each judged by leave one set out with every
 * fitted entry's threshold chosen on the other sets alone (the most in-reach no-skill messages shown
 * nothing while the in-reach shown hit@5 and hit@1 stay at least main's); the held-out sets' mean share
 * of everyday messages shown nothing (E), mean shown hit@5 / hit@1 (S5 / S1), the pooled shown hit@5
 * count and the pooled mean shown length against main as shipped, with a bound per held-out set.
 * Development data: `library` train + dev, every split of `library-r2` … `library-r18`, `library-tasks`
 * and the small-catalogue requests (`skills-cases.ts`). Deterministic (Newton from zero, no seed). The
 * relevance model reads the re-ranker's order: re-run after `rerank-model.json` changes.
 *
 *   npx tsx scripts/choose-everyday-loso.ts [--write] [--read library-r19] [--list full+kept,noterms+refit]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BUNDLED_RELEVANCE, longEntry, relevanceFor, shownCount, type LongMessages, type RelevanceModels } from '../src/search/abstention.js';
import { ENGINE_DEFAULTS } from '../src/search/index.js';
import {
  featureRows,
  linearScore,
  MODE_FEATURES,
  ORDERING_FEATURES,
  relevanceFactors,
  relevanceFrom,
  type FeatureName,
  type LogisticModel,
} from '../src/search/relevance.js';
import { BUNDLED_RERANKERS, type CatalogKind } from '../src/search/rerank.js';
import { freshLibrarySetsThrough, SPLIT_SEED, type SuiteName } from './eval-suites.js';
import { fitLogistic, L2, round } from './logistic-fit.js';
import { DEPTH, KIND, libraryCases, smallCases, type Case } from './skills-cases.js';

const { values } = parseArgs({
  strict: true,
  options: {
    write: { type: 'boolean', default: false },
    sample: { type: 'string', default: '500' },
    model: { type: 'string', default: 'use-lite' },
    /** Sets read after the choice (never chosen on): scored by the all-groups fits. */
    read: { type: 'string', default: '' },
    /** Candidates whose out-of-fold differences from main are listed message by message (reported, not judged). */
    list: { type: 'string', default: '' },
  },
});

const K = ENGINE_DEFAULTS.k;
const CUT = ENGINE_DEFAULTS.shownCut;
const SETS: readonly SuiteName[] = [...freshLibrarySetsThrough('library-r18'), 'library-tasks'];
const FILE = join(import.meta.dirname, '..', 'src', 'search', 'relevance-model.json');
const common = relevanceFor(ENGINE_DEFAULTS.relevance, KIND);
const { balanced: COMMON_T } = common.thresholds.hybrid;
/** Main as shipped: the bundled skills models (round 13's one entry for 7–70 words). */
const shipped = BUNDLED_RELEVANCE.skills;
/** Strict allowance, and the choice's margins (docs/retrieval.md, round 14). */
const STRICT_ALLOWANCE = 0.03;
const VALID_GAIN = 0.02;
const SIMPLER_WITHIN = 0.01;
const LENGTH_ROOM = 0.05;
const S1_ROOM = 0.005;
/** Per held-out set: shown hit@5 / hit@1 at most this far below main's, mean shown length at most `SET_LENGTH_ROOM` above. */
const SET_ROOM = 0.01;
const SET_LENGTH_ROOM = 0.1;
/** Both entries read catalogues of more than 30 skills only (round 13's bound: a user's first skills keep the common entry). */
const MIN_SKILLS = 30;

const QUERY_FEATURES = MODE_FEATURES.hybrid.filter((name) => !ORDERING_FEATURES.includes(name));
/** The two reaches: more than `words` and at most `maxWords` white-space words. */
interface Reach {
  readonly name: 'medium' | 'long';
  readonly words: number;
  readonly maxWords: number;
}
const MEDIUM: Reach = { name: 'medium', words: 6, maxWords: 12 };
const LONG: Reach = { name: 'long', words: 12, maxWords: 70 };
const MODELS: readonly { name: string; features: readonly FeatureName[] }[] = [
  { name: 'invariant', features: QUERY_FEATURES.filter((name) => name !== 'terms' && name !== 'bm25') },
  { name: 'noterms', features: QUERY_FEATURES.filter((name) => name !== 'terms') },
  { name: 'full', features: QUERY_FEATURES },
];
const FULL = MODELS[2]!;
interface Candidate {
  readonly name: string;
  readonly medium: (typeof MODELS)[number];
  /** The long entry: main's as shipped (cut to 13–70 words), or the full model refitted on 13–70 words. */
  readonly long: 'kept' | 'refit';
  /** Simplicity order: medium model first, then kept < refit (lower is simpler). */
  readonly simplicity: number;
}
const CANDIDATES: Candidate[] = MODELS.flatMap((medium, m) =>
  (['kept', 'refit'] as const).map((long, l) => ({ name: `${medium.name}+${long}`, medium, long, simplicity: m * 10 + l })),
);

const library = await libraryCases(['library', ...SETS], Number(values.sample), values.model);
const groups = [...new Set(library.map((one) => one.group))];
const small = await smallCases(groups);
const cases = [...library, ...small];

/** What every case needs, computed once: today's hit factors, its query features, main's and the common scores and threshold, its first relevant index. */
interface Prepared {
  readonly row: Case;
  readonly fits: readonly number[];
  readonly features: readonly number[];
  readonly commonScores: readonly number[];
  readonly mainScores: readonly number[];
  readonly mainT: number;
  readonly mainStrict: number;
  readonly firstRelevant: number;
}
function prepare(row: Case): Prepared {
  const empty = row.ranked.length === 0;
  const entry = longEntry(shipped, 'hybrid', row.text, row.skills);
  const firstRelevant = row.labels.indexOf(true);
  return {
    row,
    fits: empty ? [] : relevanceFactors(common.models.hybrid, row.ranked, row.query).fits,
    features: empty ? QUERY_FEATURES.map(() => 0) : featureRows(row.ranked.slice(0, 1), row.query, QUERY_FEATURES)[0]!,
    commonScores: empty ? [] : relevanceFrom(relevanceFactors(common.models.hybrid, row.ranked, row.query)),
    mainScores: empty ? [] : relevanceFrom(relevanceFactors(entry?.model ?? common.models.hybrid, row.ranked, row.query)),
    mainT: entry?.thresholds.balanced ?? COMMON_T,
    mainStrict: entry?.thresholds.strict ?? common.thresholds.hybrid.strict,
    firstRelevant: firstRelevant < 0 ? Number.POSITIVE_INFINITY : firstRelevant,
  };
}
const prepared: Prepared[] = cases.map(prepare);

/** Shown hits of one case: a named skill alone, none when gated, else the scores thresholded with the shown cut. */
const shown = (p: Prepared, scores: readonly number[], t: number): number => (p.row.named ? 1 : p.row.gated ? 0 : shownCount(scores, t, CUT, K));
const mainCount = (p: Prepared): number => shown(p, p.mainScores, p.mainT);
const commonCount = (p: Prepared): number => shown(p, p.commonScores, COMMON_T);
/** The entry of `reach` reads `p`: in its words, over a catalogue of more than `MIN_SKILLS` skills. */
const applies = (p: Prepared, reach: Reach): boolean => p.row.skills > MIN_SKILLS && p.row.words > reach.words && p.row.words <= reach.maxWords;

interface Tally {
  answerable: number;
  shown1: number;
  shown5: number;
  length: number;
  negatives: number;
  abstained: number;
  over40: number;
  over40s1: number;
  over40s5: number;
  smallLost: number;
}
const emptyTally = (): Tally => ({
  answerable: 0,
  shown1: 0,
  shown5: 0,
  length: 0,
  negatives: 0,
  abstained: 0,
  over40: 0,
  over40s1: 0,
  over40s5: 0,
  smallLost: 0,
});
/** Tallies `rows` given each one's shown count. */
function tally(rows: readonly Prepared[], count: (p: Prepared) => number): Tally {
  const o = emptyTally();
  for (const p of rows) {
    const n = count(p);
    const any = p.row.named ? p.row.namedRelevant : n > p.firstRelevant;
    const first = p.row.named ? p.row.namedRelevant : n > 0 && p.firstRelevant === 0;
    if (p.row.small) {
      if (!any) o.smallLost += 1;
      continue;
    }
    if (!p.row.answerable) {
      o.negatives += 1;
      if (n === 0) o.abstained += 1;
      continue;
    }
    o.answerable += 1;
    if (first) o.shown1 += 1;
    if (any) o.shown5 += 1;
    o.length += n;
    if (p.row.words > 40) {
      o.over40 += 1;
      if (first) o.over40s1 += 1;
      if (any) o.over40s5 += 1;
    }
  }
  return o;
}

const THRESHOLDS = Array.from({ length: 201 }, (_, i) => round(i * 0.005));
const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/** The answerable model of `features` fitted on the reach's messages of `rows` (named ones aside). */
function fit(reach: Reach, features: readonly FeatureName[], rows: readonly Prepared[]): LogisticModel {
  const columns = features.map((name) => QUERY_FEATURES.indexOf(name));
  const train = rows.filter((p) => applies(p, reach) && !p.row.named && p.row.ranked.length > 0 && !p.row.small);
  return fitLogistic(
    features,
    train.map((p) => columns.map((j) => p.features[j]!)),
    train.map((p) => (p.row.answerable ? 1 : 0)),
    train.map(() => 1),
    L2,
  );
}

/** Every in-reach case's scores under a fitted answerable model. */
function scoresUnder(model: LogisticModel, reach: Reach, rows: readonly Prepared[]): Map<Prepared, readonly number[]> {
  const columns = model.features.map((name) => QUERY_FEATURES.indexOf(name as FeatureName));
  const scores = new Map<Prepared, readonly number[]>();
  for (const p of rows) {
    if (!applies(p, reach) || p.row.ranked.length === 0) continue;
    const answerable = sigmoid(
      linearScore(
        model,
        model.bias,
        columns.map((j) => p.features[j]!),
      ),
    );
    scores.set(p, relevanceFrom({ answerable, fits: p.fits }));
  }
  return scores;
}

/**
 * The threshold of one entry chosen on `rows`: the most in-reach no-skill messages shown nothing among the t whose in-reach
 * shown hit@5 and hit@1 (and over 40 words) are at least main's `count` minus `allowance` × the in-reach pool (ties: higher shown hit@5, lower t), at least `floor`.
 */
function choose(
  rows: readonly Prepared[],
  reach: Reach,
  scores: ReadonlyMap<Prepared, readonly number[]>,
  allowance: number,
  floor: number,
  base: (p: Prepared) => number,
): number {
  const held = rows.filter((p) => applies(p, reach) && !p.row.small);
  const b = tally(held, base);
  const room = allowance * b.answerable;
  let best: { t: number; o: Tally } | undefined;
  for (const t of THRESHOLDS) {
    if (t < floor) continue;
    const o = tally(held, (p) => shown(p, scores.get(p) ?? [], t));
    const eligible = o.shown5 >= b.shown5 - room && o.shown1 >= b.shown1 - room && o.over40s5 >= b.over40s5 - room && o.over40s1 >= b.over40s1 - room;
    if (!eligible) continue;
    if (best === undefined || o.abstained > best.o.abstained || (o.abstained === best.o.abstained && o.shown5 > best.o.shown5)) best = { t, o };
  }
  // t 0 shows every request its full list, so some t is always eligible at allowance ≥ 0.
  return best!.t;
}

/** A candidate's entries as fitted on `train`: each reach's scores (every case) and balanced threshold; the kept long entry is main's. */
interface Fitted {
  readonly medium: { model: LogisticModel; scores: Map<Prepared, readonly number[]>; t: number };
  readonly long: { model?: LogisticModel; scores: Map<Prepared, readonly number[]>; t: number };
}
const keptLongScores = new Map(prepared.filter((p) => applies(p, LONG) && p.row.ranked.length > 0).map((p) => [p, p.mainScores] as const));
const keptLongT = longEntry(shipped, 'hybrid', 'word '.repeat(20), MIN_SKILLS + 1)?.thresholds ?? common.thresholds.hybrid;
const fitMemo = new Map<string, { model: LogisticModel; scores: Map<Prepared, readonly number[]>; t: number }>();
/** One entry fitted on every group but `held` (all groups when undefined), memoised. */
function entryFit(reach: Reach, features: (typeof MODELS)[number], held: string | undefined) {
  const key = `${reach.name} ${features.name} ${held ?? '*'}`;
  const known = fitMemo.get(key);
  if (known) return known;
  const train = prepared.filter((p) => p.row.group !== held);
  const model = fit(reach, features.features, train);
  const scores = scoresUnder(model, reach, prepared);
  const t = choose(train, reach, scores, 0, 0, mainCount);
  const made = { model, scores, t };
  fitMemo.set(key, made);
  return made;
}
function fitted(candidate: Candidate, held: string | undefined): Fitted {
  return {
    medium: entryFit(MEDIUM, candidate.medium, held),
    long: candidate.long === 'kept' ? { scores: keptLongScores, t: keptLongT.balanced } : entryFit(LONG, FULL, held),
  };
}
/** Shown count of a case under fitted entries (the common entry outside both reaches). */
const countUnder =
  (f: Fitted) =>
  (p: Prepared): number => {
    if (applies(p, MEDIUM)) return shown(p, f.medium.scores.get(p) ?? [], f.medium.t);
    if (applies(p, LONG)) return shown(p, f.long.scores.get(p) ?? [], f.long.t);
    return commonCount(p);
  };

const libraryOf = (group: string): Prepared[] => prepared.filter((p) => p.row.group === group && !p.row.small);
interface Summary {
  readonly e: number;
  readonly s5: number;
  readonly s1: number;
  readonly length: number;
  readonly pooled5: number;
  readonly perGroup: Map<string, Tally>;
}
/** Mean over groups of the everyday share shown nothing and the shown rates; pooled shown hit@5 count and mean shown length. */
function summarise(perGroup: Map<string, Tally>): Summary {
  const list = [...perGroup.values()];
  const mean = (f: (o: Tally) => number): number => list.reduce((sum, o) => sum + f(o), 0) / list.length;
  const answerable = list.reduce((sum, o) => sum + o.answerable, 0);
  return {
    e: mean((o) => o.abstained / Math.max(1, o.negatives)),
    s5: mean((o) => o.shown5 / Math.max(1, o.answerable)),
    s1: mean((o) => o.shown1 / Math.max(1, o.answerable)),
    length: list.reduce((sum, o) => sum + o.length, 0) / Math.max(1, answerable),
    pooled5: list.reduce((sum, o) => sum + o.shown5, 0),
    perGroup,
  };
}
const fixed = (count: (p: Prepared) => number): Summary => summarise(new Map(groups.map((g) => [g, tally(libraryOf(g), count)])));

const CLASSES: readonly (readonly [string, (n: number) => boolean])[] = [
  ['short', (n) => n <= 6],
  ['medium', (n) => n >= 7 && n <= 12],
  ['long', (n) => n >= 13 && n <= 40],
  ['very long', (n) => n > 40],
];
const pct = (n: number): string => (100 * n).toFixed(1);
const line = (s: Summary): string => `E ${pct(s.e)}  S5 ${pct(s.s5)} (${s.pooled5})  S1 ${pct(s.s1)}  len ${s.length.toFixed(2)}`;
function classes(rows: readonly Prepared[], count: (p: Prepared) => number): string {
  return CLASSES.map(([name, fits]) => {
    const o = tally(
      rows.filter((p) => fits(p.row.words)),
      count,
    );
    return `${name} ${o.abstained}/${o.negatives} (${o.shown5}, ${o.shown1} of ${o.answerable})`;
  }).join('; ');
}

const main = fixed(mainCount);
const commonOnly = fixed(commonCount);
console.log(
  `cases ${library.length} in ${groups.length} groups (${groups.join(', ')}); small-catalogue requests ${small.length}; candidates ${CANDIDATES.length}`,
);
console.log(`main as shipped (common t ${COMMON_T}; its message entries at ${keptLongT.balanced}): ${line(main)}`);
console.log(`common entry alone: ${line(commonOnly)}`);

/** Out-of-fold per held-out group: fit and threshold on the other groups, then count the group at those thresholds. */
const loso = new Map<string, { summary: Summary; thresholds: { medium: number[]; long: number[] }; counts: Map<Prepared, number> }>();
for (const candidate of CANDIDATES) {
  const perGroup = new Map<string, Tally>();
  const thresholds = { medium: [] as number[], long: [] as number[] };
  const counts = new Map<Prepared, number>();
  for (const group of groups) {
    const f = fitted(candidate, group);
    thresholds.medium.push(f.medium.t);
    thresholds.long.push(f.long.t);
    const held = libraryOf(group);
    const count = countUnder(f);
    perGroup.set(group, tally(held, count));
    for (const p of held) counts.set(p, count(p));
  }
  const summary = summarise(perGroup);
  loso.set(candidate.name, { summary, thresholds, counts });
  const range = (ts: number[]): string => `${Math.min(...ts)}–${Math.max(...ts)}`;
  console.log(`${candidate.name.padEnd(16)} ${line(summary)}  fold t medium ${range(thresholds.medium)}, long ${range(thresholds.long)}`);
}

console.log('\nper held-out group, everyday shown nothing (main, common, every candidate out of fold):');
console.log(`group          main  common  ${CANDIDATES.map((c) => c.name).join('  ')}`);
const cell = (o: Tally): string => `${o.abstained}/${o.negatives}`;
for (const group of groups) {
  console.log(
    `${group.padEnd(14)} ${cell(main.perGroup.get(group)!)} ${cell(commonOnly.perGroup.get(group)!)} ${CANDIDATES.map((c) => cell(loso.get(c.name)!.summary.perGroup.get(group)!)).join(' ')}`,
  );
}
console.log('\nper held-out group, answerable shown hit@5 / hit@1 against main (candidate out of fold):');
for (const group of groups) {
  const m = main.perGroup.get(group)!;
  const diff = (c: Candidate): string => {
    const o = loso.get(c.name)!.summary.perGroup.get(group)!;
    return `${o.shown5 - m.shown5}/${o.shown1 - m.shown1}`;
  };
  console.log(`${group.padEnd(14)} ${m.shown5}/${m.shown1} of ${m.answerable} ${CANDIDATES.map(diff).join(' ')}`);
}

// The choice (docs/retrieval.md, round 14).
/** Every held-out set within `SET_ROOM` of main's shown hit@5 / hit@1 and `SET_LENGTH_ROOM` of its mean shown length. */
const perSetHolds = (s: Summary): boolean =>
  groups.every((group) => {
    const m = main.perGroup.get(group)!;
    const o = s.perGroup.get(group)!;
    const n = Math.max(1, m.answerable);
    return o.shown5 / n >= m.shown5 / n - SET_ROOM && o.shown1 / n >= m.shown1 / n - SET_ROOM && o.length / n <= m.length / n + SET_LENGTH_ROOM;
  });
const valid = CANDIDATES.filter((c) => {
  const s = loso.get(c.name)!.summary;
  const pooled = s.pooled5 >= main.pooled5 && s.s1 >= main.s1 - S1_ROOM && s.length <= main.length + LENGTH_ROOM && s.e >= main.e + VALID_GAIN;
  if (pooled && !perSetHolds(s)) console.log(`${c.name}: pooled figures hold, a held-out set's do not`);
  return pooled && perSetHolds(s);
});
console.log(`\nvalid: ${valid.map((c) => c.name).join(', ') || 'none'}`);
let taken: Candidate | undefined;
if (valid.length > 0) {
  const bestE = Math.max(...valid.map((c) => loso.get(c.name)!.summary.e));
  taken = valid.filter((c) => loso.get(c.name)!.summary.e >= bestE - SIMPLER_WITHIN).sort((a, b) => a.simplicity - b.simplicity)[0];
}
console.log(taken === undefined ? 'taken: none (main stays)' : `taken: ${taken.name}`);

const readClasses = (name: string, rows: readonly Prepared[], count: (p: Prepared) => number): void =>
  console.log(`  ${name.padEnd(22)} ${classes(rows, count)}`);
console.log('\nby length class, pooled out of fold (everyday shown nothing; shown hit@5, hit@1 of answerable):');
const pooledRows = prepared.filter((p) => !p.row.small);
readClasses('main', pooledRows, mainCount);
readClasses('common', pooledRows, commonCount);
for (const c of CANDIDATES) readClasses(c.name, pooledRows, (p) => loso.get(c.name)!.counts.get(p)!);
for (const newest of ['library-r17', 'library-r18']) {
  console.log(`\n${newest} out of fold by class:`);
  const rows = libraryOf(newest);
  readClasses('main', rows, mainCount);
  for (const c of CANDIDATES) readClasses(c.name, rows, (p) => loso.get(c.name)!.counts.get(p)!);
}

/** Every message whose outcome differs from main's out of fold: a request winning or losing its relevant skill in the first five, a no-skill message newly shown nothing or shown something. */
for (const name of values.list.split(',').filter((one) => one !== '')) {
  const counts = loso.get(name)?.counts;
  if (counts === undefined) throw new Error(`--list: no candidate ${name}`);
  console.log(`\n${name} against main, out of fold, message by message:`);
  for (const p of pooledRows) {
    const ours = counts.get(p)!;
    const theirs = mainCount(p);
    const at = `${p.row.group} ${p.row.words}w`;
    if (p.row.answerable) {
      const gained = ours > p.firstRelevant && !(theirs > p.firstRelevant);
      const lost = theirs > p.firstRelevant && !(ours > p.firstRelevant);
      if (gained || lost)
        console.log(`  request ${lost ? 'lost' : 'won'} (${theirs} → ${ours} shown, first relevant ${p.firstRelevant + 1}) ${at}: ${p.row.text.slice(0, 120)}`);
    } else if ((ours === 0) !== (theirs === 0)) console.log(`  everyday ${ours === 0 ? 'silenced' : 'shown again'} ${at}: ${p.row.text.slice(0, 120)}`);
  }
}

const weights = (model: LogisticModel): string => model.features.map((name, j) => `${name} ${model.weights[j]!.toFixed(2)}`).join(', ');
/** The strict threshold of one fitted entry: within `STRICT_ALLOWANCE` of main's balanced, never below `balanced`, never showing nothing for fewer in-reach no-skill messages than main's strict. */
function strictOf(reach: Reach, scores: ReadonlyMap<Prepared, readonly number[]>, balanced: number): number {
  let strict = choose(prepared, reach, scores, STRICT_ALLOWANCE, balanced, mainCount);
  const held = prepared.filter((p) => applies(p, reach) && !p.row.small);
  const mainStrict = tally(held, (p) => shown(p, p.mainScores, p.mainStrict)).abstained;
  while (strict < 1 && tally(held, (p) => shown(p, scores.get(p) ?? [], strict)).abstained < mainStrict) strict = round(strict + 0.005);
  return strict;
}

if (taken) {
  const f = fitted(taken, undefined);
  const all = tally(prepared, countUnder(f));
  const mediumStrict = strictOf(MEDIUM, f.medium.scores, f.medium.t);
  const longStrict = taken.long === 'kept' ? keptLongT.strict : strictOf(LONG, f.long.scores, f.long.t);
  console.log(`\n${taken.name} on all groups: small lost ${all.smallLost}`);
  console.log(`  medium: balanced ${f.medium.t}, strict ${mediumStrict}; weights (standardised) ${weights(f.medium.model)}`);
  console.log(`  long: balanced ${f.long.t}, strict ${longStrict}${f.long.model ? `; weights (standardised) ${weights(f.long.model)}` : ' (main as shipped)'}`);
  if (values.write) {
    const file = JSON.parse(readFileSync(FILE, 'utf8')) as { version: number; kinds: Record<CatalogKind, RelevanceModels> };
    const shippedEntry = longEntry(shipped, 'hybrid', 'word '.repeat(20), MIN_SKILLS + 1)!;
    const provenance = (reach: Reach, model: string) => ({
      script: 'scripts/choose-everyday-loso.ts',
      command: `npx tsx scripts/choose-everyday-loso.ts --write --sample ${values.sample}`,
      splitSeed: SPLIT_SEED,
      seeds: 'none: leave-one-set-out folds, Newton from zero weights',
      candidate: `${taken.name}, the ${reach.name} entry: the hybrid answerable model refitted on messages of ${reach.words + 1} to ${reach.maxWords} words over catalogues of more than ${MIN_SKILLS} skills (${model}; ridge ${L2}), hit model today's`,
      data: `library train + dev and every split of ${SETS.join(', ')} (../shared/eval library catalogue; fixtures/eval) and the small-catalogue requests of scripts/small-catalogues.ts, cached candidates replayed with the bundled per-kind re-rankers (rerank-model.json skills entry of ${String(BUNDLED_RERANKERS.skills.provenance['date'] ?? 'unknown date')}), everyday gate and shown cut`,
      choice: `chosen by leave one set out, each fold's entries thresholded without its held-out set: the highest mean held-out everyday share shown nothing with the pooled shown hit@5 count not below main's, mean shown hit@1 within ${S1_ROOM}, mean shown length within ${LENGTH_ROOM}, every held-out set within ${SET_ROOM} and ${SET_LENGTH_ROOM}; balanced = the threshold showing nothing for the most in-reach no-skill messages with in-reach shown hit@5 and hit@1 (and over 40 words) at least main's; strict the same within ${STRICT_ALLOWANCE}, never showing nothing for fewer than main's strict (docs/retrieval.md, "Everyday messages, round 14")`,
      embedder: values.model,
      depth: DEPTH,
      l2: L2,
      date: new Date().toISOString().slice(0, 10),
    });
    const medium: LongMessages = {
      words: MEDIUM.words,
      maxWords: MEDIUM.maxWords,
      minSkills: MIN_SKILLS,
      model: { answerable: f.medium.model, hit: common.models.hybrid.hit },
      thresholds: { balanced: f.medium.t, strict: mediumStrict },
      provenance: provenance(MEDIUM, `features ${taken.medium.features.join(', ')}`),
    };
    const long: LongMessages =
      taken.long === 'kept'
        ? {
            ...shippedEntry,
            words: LONG.words,
            maxWords: LONG.maxWords,
            provenance: { ...shippedEntry.provenance, cut: 'reach cut to 13–70 words by round 14 (docs/retrieval.md, "Everyday messages, round 14")' },
          }
        : {
            words: LONG.words,
            maxWords: LONG.maxWords,
            minSkills: MIN_SKILLS,
            model: { answerable: f.long.model!, hit: common.models.hybrid.hit },
            thresholds: { balanced: f.long.t, strict: longStrict },
            provenance: provenance(LONG, `features ${FULL.features.join(', ')}`),
          };
    file.kinds.skills = { ...file.kinds.skills, long: [medium, long] };
    writeFileSync(FILE, `${JSON.stringify(file, null, 1)}\n`);
    console.error(`wrote kinds.skills.long of ${FILE}`);
  }
}

const readSets = values.read.split(',').filter((name) => name !== '') as SuiteName[];
for (const suite of readSets) {
  const read = (await libraryCases([suite], Number(values.sample), values.model)).map(prepare);
  console.log(`\nread after the choice (all-groups fits, not chosen on): ${suite}`);
  readClasses('main', read, mainCount);
  for (const c of CANDIDATES) {
    const f = fitted(c, undefined);
    const onRead: Fitted = {
      medium: { ...f.medium, scores: scoresUnder(f.medium.model, MEDIUM, read) },
      long: f.long.model ? { ...f.long, scores: scoresUnder(f.long.model, LONG, read) } : { ...f.long, scores: new Map(read.map((p) => [p, p.mainScores])) },
    };
    readClasses(`${c.name} t ${f.medium.t}/${f.long.t}`, read, countUnder(onRead));
  }
}
