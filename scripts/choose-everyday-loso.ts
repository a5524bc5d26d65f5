/**
 * Chooses the skills relevance models' message entry (`relevance-model.json`, `kinds.skills.long`)
 * for an unseen set, by the rule of docs/retrieval.md, "Everyday messages, round 13": twelve
 * candidates (reach L 13–70, M 7–70 words × `minSkills` 0 or 30 × the hybrid answerable model refitted
 * as `invariant`, `noterms` or `full`), each judged by leave one set out with the fold's threshold
 * chosen on the other sets alone; the held-out sets' mean share of everyday messages shown nothing
 * (E), mean shown hit@5 / hit@1 (S5 / S1) and pooled mean shown length against main's shipped entry,
 * with a bound per held-out set. Development data: `library` train + dev, every split of `library-r2`
 * … `library-r17`, `library-tasks` and the small-catalogue requests (`skills-cases.ts`). Deterministic (Newton from
 * zero, no seed). The relevance model reads the re-ranker's order: re-run after `rerank-model.json` changes.
 *
 *   npx tsx scripts/choose-everyday-loso.ts [--write] [--read library-r17]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BUNDLED_RELEVANCE, relevanceFor, shownCount, type LongMessages, type RelevanceModels } from '../src/search/abstention.js';
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
  },
});

const K = ENGINE_DEFAULTS.k;
const CUT = ENGINE_DEFAULTS.shownCut;
const SETS: readonly SuiteName[] = [...freshLibrarySetsThrough('library-r17'), 'library-tasks'];
const FILE = join(import.meta.dirname, '..', 'src', 'search', 'relevance-model.json');
const common = relevanceFor(ENGINE_DEFAULTS.relevance, KIND);
const { balanced: COMMON_T, strict: COMMON_STRICT } = common.thresholds.hybrid;
const shippedLong = BUNDLED_RELEVANCE.skills.long;
/** Balanced allowance (share of each pool), strict allowance, and the choice's margins (docs/retrieval.md, round 13). */
const ALLOWANCE = 0.005;
const STRICT_ALLOWANCE = 0.03;
const VALID_GAIN = 0.02;
const SIMPLER_WITHIN = 0.01;
const LENGTH_ROOM = 0.05;
/** Per held-out set: shown hit@5 / hit@1 at most this far below main's, mean shown length at most `SET_LENGTH_ROOM` above. */
const SET_ROOM = 0.01;
const SET_LENGTH_ROOM = 0.1;
/** Main's bound: no message past it is scored differently, so pasted task statements over 70 words are left alone. */
const MAX_WORDS = 70;

const QUERY_FEATURES = MODE_FEATURES.hybrid.filter((name) => !ORDERING_FEATURES.includes(name));
const REACHES = [
  { name: 'L', words: 12 },
  { name: 'M', words: 6 },
] as const;
/** 30: the largest small catalogue; no judged catalogue has 31–433 skills, so any bound in that range scores the same. */
const MIN_SKILLS = [0, 30] as const;
const MODELS: readonly { name: string; features: readonly FeatureName[]; l2: number }[] = [
  { name: 'invariant', features: QUERY_FEATURES.filter((name) => name !== 'terms' && name !== 'bm25'), l2: L2 },
  { name: 'noterms', features: QUERY_FEATURES.filter((name) => name !== 'terms'), l2: L2 },
  { name: 'full', features: QUERY_FEATURES, l2: L2 },
];
interface Candidate {
  readonly name: string;
  readonly reach: number;
  readonly minSkills: number;
  readonly features: readonly FeatureName[];
  readonly l2: number;
  /** Simplicity order: model first, then `minSkills`, then reach (lower is simpler). */
  readonly simplicity: number;
}
const CANDIDATES: Candidate[] = MODELS.flatMap((model, m) =>
  MIN_SKILLS.flatMap((minSkills, n) =>
    REACHES.map((reach, r) => ({
      name: `${reach.name}-${minSkills}-${model.name}`,
      reach: reach.words,
      minSkills,
      features: model.features,
      l2: model.l2,
      simplicity: m * 100 + n * 10 + r,
    })),
  ),
);

const library = await libraryCases(['library', ...SETS], Number(values.sample), values.model);
const groups = [...new Set(library.map((one) => one.group))];
const small = await smallCases(groups);
const cases = [...library, ...small];

/** What every case needs, computed once: today's hit factors, the common scores, its query features, its first relevant index. */
interface Prepared {
  readonly row: Case;
  readonly fits: readonly number[];
  readonly features: readonly number[];
  readonly commonScores: readonly number[];
  readonly firstRelevant: number;
}
const prepared: Prepared[] = cases.map((row) => {
  const { fits } = row.ranked.length === 0 ? { fits: [] } : relevanceFactors(common.models.hybrid, row.ranked, row.query);
  const features = row.ranked.length === 0 ? QUERY_FEATURES.map(() => 0) : featureRows(row.ranked.slice(0, 1), row.query, QUERY_FEATURES)[0]!;
  const commonScores = row.ranked.length === 0 ? [] : relevanceFrom(relevanceFactors(common.models.hybrid, row.ranked, row.query));
  const firstRelevant = row.labels.indexOf(true);
  return { row, fits, features, commonScores, firstRelevant: firstRelevant < 0 ? Number.POSITIVE_INFINITY : firstRelevant };
});

/** Shown hits of one case: a named skill alone, none when gated, else the scores thresholded with the shown cut. */
const shown = (p: Prepared, scores: readonly number[], t: number): number => (p.row.named ? 1 : p.row.gated ? 0 : shownCount(scores, t, CUT, K));

interface Tally {
  answerable: number;
  shown1: number;
  shown5: number;
  length: number;
  negatives: number;
  abstained: number;
  reachAnswerable: number;
  reach1: number;
  reach5: number;
  reachNegatives: number;
  reachAbstained: number;
  over40: number;
  over40s1: number;
  over40s5: number;
  over80: number;
  over80s1: number;
  over80s5: number;
  smallLost: number;
}
const empty = (): Tally => ({
  answerable: 0,
  shown1: 0,
  shown5: 0,
  length: 0,
  negatives: 0,
  abstained: 0,
  reachAnswerable: 0,
  reach1: 0,
  reach5: 0,
  reachNegatives: 0,
  reachAbstained: 0,
  over40: 0,
  over40s1: 0,
  over40s5: 0,
  over80: 0,
  over80s1: 0,
  over80s5: 0,
  smallLost: 0,
});
/** Tallies `rows` given each one's shown count; `reach` names the entry's lower bound (messages of more words are in reach). */
function tally(rows: readonly Prepared[], count: (p: Prepared) => number, reach: number): Tally {
  const o = empty();
  for (const p of rows) {
    const n = count(p);
    const any = p.row.named ? p.row.namedRelevant : n > p.firstRelevant;
    const first = p.row.named ? p.row.namedRelevant : n > 0 && p.firstRelevant === 0;
    const inReach = p.row.words > reach && p.row.words <= MAX_WORDS;
    if (p.row.small) {
      if (!any) o.smallLost += 1;
      continue;
    }
    if (!p.row.answerable) {
      o.negatives += 1;
      if (n === 0) o.abstained += 1;
      if (inReach) {
        o.reachNegatives += 1;
        if (n === 0) o.reachAbstained += 1;
      }
      continue;
    }
    const b1 = first ? 1 : 0;
    const b5 = any ? 1 : 0;
    o.answerable += 1;
    o.shown1 += b1;
    o.shown5 += b5;
    o.length += n;
    if (inReach) {
      o.reachAnswerable += 1;
      o.reach1 += b1;
      o.reach5 += b5;
    }
    if (p.row.words > 40) {
      o.over40 += 1;
      o.over40s1 += b1;
      o.over40s5 += b5;
    }
    if (p.row.words > 80) {
      o.over80 += 1;
      o.over80s1 += b1;
      o.over80s5 += b5;
    }
  }
  return o;
}

/** Within the allowance of the common entry's on the same rows (room max(1, …) over 40 and 80 words), no small request lost. */
function eligible(o: Tally, base: Tally, allowance: number): boolean {
  const within = (got1: number, got5: number, b1: number, b5: number, room: number): boolean => got1 >= b1 - room && got5 >= b5 - room;
  return (
    within(o.shown1, o.shown5, base.shown1, base.shown5, allowance * base.answerable) &&
    within(o.reach1, o.reach5, base.reach1, base.reach5, allowance * base.reachAnswerable) &&
    within(o.over40s1, o.over40s5, base.over40s1, base.over40s5, Math.max(1, allowance * base.over40)) &&
    within(o.over80s1, o.over80s5, base.over80s1, base.over80s5, Math.max(1, allowance * base.over80)) &&
    o.smallLost === 0
  );
}

const THRESHOLDS = Array.from({ length: 201 }, (_, i) => round(i * 0.005));
const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/** A candidate fitted on `rows`: the answerable model over the reach's messages (named ones aside). */
function fit(candidate: Candidate, rows: readonly Prepared[]): LogisticModel {
  const columns = candidate.features.map((name) => QUERY_FEATURES.indexOf(name));
  const train = rows.filter((p) => applies(p, candidate) && !p.row.named && p.row.ranked.length > 0);
  return fitLogistic(
    candidate.features,
    train.map((p) => columns.map((j) => p.features[j]!)),
    train.map((p) => (p.row.answerable ? 1 : 0)),
    train.map(() => 1),
    candidate.l2,
  );
}
const inReach = (p: Prepared, reach: number): boolean => p.row.words > reach && p.row.words <= MAX_WORDS;
/** The entry reads `p`: in its reach, over a catalogue of more than its `minSkills` skills. */
const applies = (p: Prepared, candidate: Candidate): boolean => inReach(p, candidate.reach) && p.row.skills > candidate.minSkills;

/** Every case's scores under a fitted entry (the common scores outside its reach). */
function scoresUnder(model: LogisticModel, candidate: Candidate, rows: readonly Prepared[]): Map<Prepared, readonly number[]> {
  const columns = candidate.features.map((name) => QUERY_FEATURES.indexOf(name));
  const scores = new Map<Prepared, readonly number[]>();
  for (const p of rows) {
    if (!applies(p, candidate) || p.row.ranked.length === 0) continue;
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
const counter =
  (scores: ReadonlyMap<Prepared, readonly number[]>, t: number, outside: number) =>
  (p: Prepared): number => {
    const own = scores.get(p);
    return own === undefined ? shown(p, p.commonScores, outside) : shown(p, own, t);
  };

/** The threshold chosen on `rows`: the most reached no-skill messages shown nothing among the eligible (ties: higher shown hit@5, lower t). */
function choose(
  rows: readonly Prepared[],
  scores: ReadonlyMap<Prepared, readonly number[]>,
  reach: number,
  allowance: number,
  floor: number,
  outside: number,
): number {
  const base = tally(rows, (p) => shown(p, p.commonScores, COMMON_T), reach);
  let best: { t: number; o: Tally } | undefined;
  for (const t of THRESHOLDS) {
    if (t < floor) continue;
    const o = tally(rows, counter(scores, t, outside), reach);
    if (!eligible(o, base, allowance)) continue;
    if (best === undefined || o.reachAbstained > best.o.reachAbstained || (o.reachAbstained === best.o.reachAbstained && o.shown5 > best.o.shown5))
      best = { t, o };
  }
  return best?.t ?? COMMON_T;
}

/** Main as shipped: the common entry, and the bundled long entry where it reaches. */
const shippedScores = new Map<Prepared, readonly number[]>();
if (shippedLong?.model)
  for (const p of prepared)
    if (p.row.words > shippedLong.words && p.row.words <= shippedLong.maxWords && p.row.ranked.length > 0)
      shippedScores.set(p, relevanceFrom(relevanceFactors(shippedLong.model, p.row.ranked, p.row.query)));
const mainCount = counter(shippedScores, shippedLong?.thresholds.balanced ?? COMMON_T, COMMON_T);
const commonCount = (p: Prepared): number => shown(p, p.commonScores, COMMON_T);

const libraryOf = (group: string): Prepared[] => prepared.filter((p) => p.row.group === group && !p.row.small);
interface Summary {
  readonly e: number;
  readonly s5: number;
  readonly s1: number;
  readonly length: number;
  readonly perGroup: Map<string, Tally>;
}
/** Mean over groups of the everyday share shown nothing and the shown rates; pooled mean shown length. */
function summarise(perGroup: Map<string, Tally>): Summary {
  const list = [...perGroup.values()];
  const mean = (f: (o: Tally) => number): number => list.reduce((sum, o) => sum + f(o), 0) / list.length;
  const answerable = list.reduce((sum, o) => sum + o.answerable, 0);
  return {
    e: mean((o) => o.abstained / Math.max(1, o.negatives)),
    s5: mean((o) => o.shown5 / Math.max(1, o.answerable)),
    s1: mean((o) => o.shown1 / Math.max(1, o.answerable)),
    length: list.reduce((sum, o) => sum + o.length, 0) / Math.max(1, answerable),
    perGroup,
  };
}
const fixed = (count: (p: Prepared) => number): Summary => summarise(new Map(groups.map((g) => [g, tally(libraryOf(g), count, 12)])));

const CLASSES: readonly (readonly [string, (n: number) => boolean])[] = [
  ['short', (n) => n <= 6],
  ['medium', (n) => n >= 7 && n <= 12],
  ['long', (n) => n >= 13 && n <= 40],
  ['very long', (n) => n > 40],
];
const pct = (n: number): string => (100 * n).toFixed(1);
const line = (s: Summary): string => `E ${pct(s.e)}  S5 ${pct(s.s5)}  S1 ${pct(s.s1)}  len ${s.length.toFixed(2)}`;
function classes(rows: readonly Prepared[], count: (p: Prepared) => number): string {
  return CLASSES.map(([name, fits]) => {
    const o = tally(
      rows.filter((p) => fits(p.row.words)),
      count,
      12,
    );
    return `${name} ${o.abstained}/${o.negatives} (${o.shown5}, ${o.shown1} of ${o.answerable})`;
  }).join('; ');
}

const main = fixed(mainCount);
const commonOnly = fixed(commonCount);
console.log(
  `cases ${library.length} in ${groups.length} groups (${groups.join(', ')}); small-catalogue requests ${small.length}; maxWords ${MAX_WORDS}; candidates ${CANDIDATES.length}`,
);
console.log(
  `main as shipped (common t ${COMMON_T}, long ${shippedLong?.words}+1..${shippedLong?.maxWords} at ${shippedLong?.thresholds.balanced}): ${line(main)}`,
);
console.log(`common entry alone: ${line(commonOnly)}`);

/** Out-of-fold per held-out group: fit and threshold on the other groups, then count the group at that threshold. */
const loso = new Map<string, { summary: Summary; thresholds: number[]; counts: Map<Prepared, number> }>();
for (const candidate of CANDIDATES) {
  const perGroup = new Map<string, Tally>();
  const thresholds: number[] = [];
  const counts = new Map<Prepared, number>();
  for (const group of groups) {
    const train = prepared.filter((p) => p.row.group !== group);
    const model = fit(candidate, train);
    const scores = scoresUnder(model, candidate, prepared);
    const t = choose(train, scores, candidate.reach, ALLOWANCE, 0, COMMON_T);
    thresholds.push(t);
    const held = libraryOf(group);
    const count = counter(scores, t, COMMON_T);
    perGroup.set(group, tally(held, count, 12));
    for (const p of held) counts.set(p, count(p));
  }
  const summary = summarise(perGroup);
  loso.set(candidate.name, { summary, thresholds, counts });
  console.log(`${candidate.name.padEnd(13)} ${line(summary)}  fold t ${Math.min(...thresholds)}–${Math.max(...thresholds)}`);
}

console.log('\nper held-out group, everyday shown nothing (main, common, every candidate out of fold):');
console.log(`group      main  common  ${CANDIDATES.map((c) => c.name).join('  ')}`);
for (const group of groups) {
  const cell = (o: Tally): string => `${o.abstained}/${o.negatives}`;
  console.log(
    `${group.padEnd(14)} ${cell(main.perGroup.get(group)!)} ${cell(commonOnly.perGroup.get(group)!)} ${CANDIDATES.map((c) => cell(loso.get(c.name)!.summary.perGroup.get(group)!)).join(' ')}`,
  );
}
console.log('\nper held-out group, answerable shown hit@5 lost against main (candidate out of fold):');
for (const group of groups) {
  const m = main.perGroup.get(group)!;
  console.log(
    `${group.padEnd(14)} ${m.shown5}/${m.answerable} ${CANDIDATES.map((c) => loso.get(c.name)!.summary.perGroup.get(group)!.shown5 - m.shown5).join(' ')}`,
  );
}

// The choice (docs/retrieval.md, round 13).
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
  const pooled = s.s5 >= main.s5 - ALLOWANCE && s.s1 >= main.s1 - ALLOWANCE && s.length <= main.length + LENGTH_ROOM && s.e >= main.e + VALID_GAIN;
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
const pooled = prepared.filter((p) => !p.row.small);
readClasses('main', pooled, mainCount);
for (const c of CANDIDATES) readClasses(c.name, pooled, (p) => loso.get(c.name)!.counts.get(p)!);
for (const newest of ['library-r16', 'library-r17']) {
  console.log(`\n${newest} out of fold by class:`);
  const rows = libraryOf(newest);
  readClasses('main', rows, mainCount);
  for (const c of CANDIDATES) readClasses(c.name, rows, (p) => loso.get(c.name)!.counts.get(p)!);
}

if (taken) {
  const model = fit(taken, prepared);
  const scores = scoresUnder(model, taken, prepared);
  const balanced = choose(prepared, scores, taken.reach, ALLOWANCE, 0, COMMON_T);
  let strict = choose(prepared, scores, taken.reach, STRICT_ALLOWANCE, balanced, COMMON_STRICT);
  // Never looser than today's strict on the messages the entry reaches.
  const todayStrict = tally(prepared, (p) => shown(p, p.commonScores, COMMON_STRICT), taken.reach).reachAbstained;
  while (strict < 1 && tally(prepared, counter(scores, strict, COMMON_STRICT), taken.reach).reachAbstained < todayStrict) strict = round(strict + 0.005);
  const all = tally(prepared, counter(scores, balanced, COMMON_T), taken.reach);
  console.log(
    `\n${taken.name} on all groups: balanced ${balanced}, strict ${strict}; small lost ${all.smallLost}; weights (standardised) ${model.features.map((name, j) => `${name} ${model.weights[j]!.toFixed(2)}`).join(', ')}`,
  );
  if (values.write) {
    const file = JSON.parse(readFileSync(FILE, 'utf8')) as { version: number; kinds: Record<CatalogKind, RelevanceModels> };
    const long: LongMessages = {
      words: taken.reach,
      maxWords: MAX_WORDS,
      minSkills: taken.minSkills,
      model: { answerable: model, hit: common.models.hybrid.hit },
      thresholds: { balanced, strict },
      provenance: {
        script: 'scripts/choose-everyday-loso.ts',
        command: `npx tsx scripts/choose-everyday-loso.ts --write --sample ${values.sample}`,
        splitSeed: SPLIT_SEED,
        seeds: 'none: leave-one-set-out folds, Newton from zero weights',
        candidate: `${taken.name}: the hybrid answerable model refitted on messages of ${taken.reach + 1} to ${MAX_WORDS} words over catalogues of more than ${taken.minSkills} skills (features ${taken.features.join(', ')}; ridge ${taken.l2}), hit model today's`,
        data: `library train + dev and every split of ${SETS.join(', ')} (../shared/eval library catalogue; fixtures/eval) and the small-catalogue requests of scripts/small-catalogues.ts, cached candidates replayed with the bundled per-kind re-rankers (rerank-model.json skills entry of ${String(BUNDLED_RERANKERS.skills.provenance['date'] ?? 'unknown date')}), everyday gate and shown cut`,
        choice: `chosen by leave one set out, each fold thresholded without its held-out set: the highest mean held-out everyday share shown nothing with mean shown hit@5 and hit@1 within ${ALLOWANCE} of main's, mean shown length within ${LENGTH_ROOM}, every held-out set within ${SET_ROOM} and ${SET_LENGTH_ROOM}; balanced = the threshold showing nothing for the most reached no-skill messages with shown hit@5 and hit@1 within ${ALLOWANCE} of the common entry's (t ${COMMON_T}) overall, in reach, over 40 and over 80 words, no small-catalogue request lost; strict the same within ${STRICT_ALLOWANCE}, never looser than ${COMMON_STRICT} (docs/retrieval.md, "Everyday messages, round 13")`,
        embedder: values.model,
        depth: DEPTH,
        l2: taken.l2,
        date: new Date().toISOString().slice(0, 10),
      },
    };
    file.kinds.skills = { ...file.kinds.skills, long };
    writeFileSync(FILE, `${JSON.stringify(file, null, 1)}\n`);
    console.error(`wrote kinds.skills.long of ${FILE}`);
  }
}

const readSets = values.read.split(',').filter((name) => name !== '') as SuiteName[];
for (const suite of readSets) {
  const read = (await libraryCases([suite], Number(values.sample), values.model)).map((row): Prepared => {
    const firstRelevant = row.labels.indexOf(true);
    return {
      row,
      fits: row.ranked.length === 0 ? [] : relevanceFactors(common.models.hybrid, row.ranked, row.query).fits,
      features: row.ranked.length === 0 ? QUERY_FEATURES.map(() => 0) : featureRows(row.ranked.slice(0, 1), row.query, QUERY_FEATURES)[0]!,
      commonScores: row.ranked.length === 0 ? [] : relevanceFrom(relevanceFactors(common.models.hybrid, row.ranked, row.query)),
      firstRelevant: firstRelevant < 0 ? Number.POSITIVE_INFINITY : firstRelevant,
    };
  });
  console.log(`\nread after the choice (all-groups fits, not chosen on): ${suite}`);
  const readMain = new Map<Prepared, readonly number[]>();
  if (shippedLong?.model)
    for (const p of read)
      if (p.row.words > shippedLong.words && p.row.words <= shippedLong.maxWords && p.row.ranked.length > 0)
        readMain.set(p, relevanceFrom(relevanceFactors(shippedLong.model, p.row.ranked, p.row.query)));
  readClasses('main', read, counter(readMain, shippedLong?.thresholds.balanced ?? COMMON_T, COMMON_T));
  for (const c of CANDIDATES) {
    const model = fit(c, prepared);
    const t = choose(prepared, scoresUnder(model, c, prepared), c.reach, ALLOWANCE, 0, COMMON_T);
    readClasses(`${c.name} t ${t}`, read, counter(scoresUnder(model, c, read), t, COMMON_T));
  }
}
