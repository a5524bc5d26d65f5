/**
 * Long everyday chat over a skill library (docs/retrieval.md, "Everyday messages, round 6"): reads
 * what separates the first hits of long no-skill messages from long answerable requests' in the
 * evidence the engine already has, then replays candidate gates, each cross-validated leave one set
 * out over `library` train + dev and `library-r2` … `library-r11` (development data only; the cases of
 * `skills-cases.ts`), against today's engine (relevance, `balanced` threshold, shown cut, everyday
 * gate) in the same run.
 *
 * A gate: a message of more than `LONG_WORDS` words is shown nothing when its first hit's feature (or
 * both of two features) is below a cut chosen, per fold, on the other groups by round 5's eligibility
 * (pooled shown hit@1 and hit@5 within `--allowance` of today's, no small-catalogue request losing
 * its shown skill); the most no-skill messages shown nothing wins. Development only: nothing here is
 * read by the engine.
 *
 *   SKILL_SEARCH_EVAL_DIR=../shared/eval npx tsx scripts/long-chat-gate.ts [--examples N]
 */
import { parseArgs } from 'node:util';
import { relevanceFor, shownCount } from '../src/search/abstention.js';
import { inverseFrequency } from '../src/lexical/bm25-scorer.js';
import { ENGINE_DEFAULTS } from '../src/search/index.js';
import { relevance } from '../src/search/relevance.js';
import { freshLibrarySetsThrough, type SuiteName } from './eval-suites.js';
import { round } from './logistic-fit.js';
import { KIND, LONG_WORDS, libraryCases, smallCases, type Case } from './skills-cases.js';

const { values } = parseArgs({
  strict: true,
  options: {
    sample: { type: 'string', default: '500' },
    model: { type: 'string', default: 'use-lite' },
    allowance: { type: 'string', default: '0.005' },
    examples: { type: 'string', default: '6' },
  },
});

const K = ENGINE_DEFAULTS.k;
/** Length classes of `paired-per-query.ts` (words split on white space): short up to this, medium up to `LONG_WORDS`. */
const MEDIUM = 4;
const SETS: readonly SuiteName[] = freshLibrarySetsThrough('library-r11');
const today = relevanceFor(ENGINE_DEFAULTS.relevance, KIND);
const threshold = today.thresholds.hybrid.balanced;

const lengthClass = (n: number): 'short' | 'medium' | 'long' => (n <= MEDIUM ? 'short' : n <= LONG_WORDS ? 'medium' : 'long');

const library = await libraryCases(['library', ...SETS], Number(values.sample), values.model);
const groups = [...new Set(library.map((one) => one.group))];
const small = await smallCases(groups);
const cases = [...library, ...small];
/** Today's relevance of each case's ranked hits (kept beside the cases: a case extended by a spread slows every loop over them, see `skills-cases.ts`). */
const scores = new Map(cases.map((row) => [row, row.ranked.length === 0 ? [] : relevance(today.models.hybrid, row.ranked, row.query)]));
const firstRelevance = (row: Case): number => scores.get(row)![0] ?? 0;
const shownToday = (row: Case): number => (row.named ? 1 : row.gated ? 0 : shownCount(scores.get(row)!, threshold, ENGINE_DEFAULTS.shownCut, K));

/** First-hit evidence read for long messages; each is undefined-safe (0 when the hit has no lexical match). */
const FEATURES: Record<string, (row: Case) => number> = {
  relevance: firstRelevance,
  coverage: (row) => ((row.ranked[0]?.lexical ?? 0) > 0 ? (row.ranked[0]!.coverage ?? 0) : 0),
  matchedWords: (row) => ((row.ranked[0]?.lexical ?? 0) > 0 ? Math.round((row.ranked[0]!.coverage ?? 0) * row.query.terms.size) : 0),
  weightedCoverage: (row) => ((row.ranked[0]?.lexical ?? 0) > 0 ? (row.ranked[0]!.weightedCoverage ?? 0) : 0),
  /** Mean IDF of the matched words over the message's mean IDF: are the matched words the rare ones? */
  rarity: (row) => {
    const first = row.ranked[0];
    if ((first?.lexical ?? 0) <= 0 || (first!.coverage ?? 0) === 0) return 0;
    return (first!.weightedCoverage ?? 0) / first!.coverage!;
  },
  rarest: (row) => ((row.ranked[0]?.lexical ?? 0) > 0 ? (row.ranked[0]!.rarest ?? 0) : 0),
  bm25PerTerm: (row) => (row.ranked[0]?.lexical ?? 0) / Math.max(1, row.query.terms.size),
  /** BM25 per message word in units of the catalogue's highest IDF (the everyday gate's `bm25Share` scale, comparable across catalogue sizes). */
  bm25Share: (row) => (row.ranked[0]?.lexical ?? 0) / Math.max(1, row.query.terms.size) / inverseFrequency(row.skills, 1),
  firstCosine: (row) => row.ranked[0]?.cosine ?? 0,
  /** The first hit's raw cosine above the message's cosine with the catalogue's mean skill. */
  cosineLift: (row) => (row.ranked[0]?.cosine ?? 0) - (row.query.catalogCosine ?? 0),
  centeredMargin: (row) => {
    const top = Math.max(...row.ranked.map((hit) => hit.centered ?? Number.NEGATIVE_INFINITY));
    return Number.isFinite(top) && row.query.secondCentered !== undefined ? top - row.query.secondCentered : 0;
  },
  /** Share of the message's sentences that ask (a question mark, or opening with a request or an imperative-looking word). */
  askShare: (row) => {
    const sentences = row.text.split(/(?<=[.!?])\s+|\n+/u).filter((s) => s.trim() !== '');
    const asks = sentences.filter(
      (s) => /\?\s*$/u.test(s) || /^(please|can|could|would|will|let's|lets|help|i need|i want|i'd like|we need)\b/iu.test(s.trim()),
    );
    return sentences.length === 0 ? 0 : asks.length / sentences.length;
  },
};

/** Area under the ROC curve: P(an answerable request's value > a no-skill message's), ties half. */
function auc(positive: readonly number[], negative: readonly number[]): number {
  let wins = 0;
  for (const p of positive) for (const n of negative) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return wins / Math.max(1, positive.length * negative.length);
}
const quantiles = (xs: readonly number[]): string => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number): string => (s.length === 0 ? '-' : s[Math.min(s.length - 1, Math.floor(q * s.length))]!.toFixed(3));
  return `${at(0.1)} / ${at(0.25)} / ${at(0.5)} / ${at(0.75)} / ${at(0.9)}`;
};

// ---- The reading: long no-skill messages against long answerable requests, both shown something today.
const pooled = library.filter((row) => !row.named && row.ranked.length > 0);
for (const cls of ['short', 'medium', 'long'] as const) {
  const rows = library.filter((row) => !row.answerable && lengthClass(row.words) === cls);
  console.log(`no-skill ${cls}: ${rows.filter((row) => shownToday(row) === 0).length} / ${rows.length} shown nothing today`);
}
for (const group of ['library-r10', 'library-r11']) {
  const rows = library.filter((row) => row.group === group && !row.answerable);
  console.log(
    `  ${group}: ${['short', 'medium', 'long'].map((cls) => `${cls} ${rows.filter((r) => lengthClass(r.words) === cls && shownToday(r) === 0).length}/${rows.filter((r) => lengthClass(r.words) === cls).length}`).join(', ')}`,
  );
}
const longAsk = pooled.filter((row) => row.answerable && row.words > LONG_WORDS);
const longChat = pooled.filter((row) => !row.answerable && row.words > LONG_WORDS);
const longChatShown = longChat.filter((row) => shownToday(row) > 0);
const smallLong = small.filter((row) => row.words > LONG_WORDS);
console.log(
  `\nlong (> ${LONG_WORDS} words): ${longAsk.length} answerable requests, ${longChat.length} no-skill (${longChatShown.length} shown something today); small-catalogue long requests ${smallLong.length}`,
);
console.log(
  `  words of long answerable requests 10/25/50/75/90: ${quantiles(longAsk.map((row) => row.words))}; of long chat: ${quantiles(longChat.map((row) => row.words))}`,
);
console.log('feature: AUC long answerable vs long no-skill (all lengths); quantiles 10/25/50/75/90 answerable | no-skill');
for (const [name, f] of Object.entries(FEATURES)) {
  const all = auc(pooled.filter((row) => row.answerable).map(f), pooled.filter((row) => !row.answerable).map(f));
  console.log(
    `  ${name}: AUC ${auc(longAsk.map(f), longChat.map(f)).toFixed(3)} (${all.toFixed(3)}); ${quantiles(longAsk.map(f))} | ${quantiles(longChat.map(f))}`,
  );
}
const examples = Number(values.examples);
const show = (row: Case): string =>
  `  [${row.group}] "${row.text.slice(0, 140)}${row.text.length > 140 ? '…' : ''}" → ${row.ranked[0]?.name} rel ${firstRelevance(row).toFixed(2)} cov ${FEATURES['coverage']!(row).toFixed(2)} wcov ${FEATURES['weightedCoverage']!(row).toFixed(2)} rarity ${FEATURES['rarity']!(row).toFixed(2)} lift ${FEATURES['cosineLift']!(row).toFixed(3)} terms ${row.query.terms.size}${row.answerable ? (row.labels[0] ? ' (right)' : ' (wrong)') : ''}`;
console.log('\nexamples, long no-skill shown something today (by relevance, highest first):');
for (const row of [...longChatShown].sort((a, b) => firstRelevance(b) - firstRelevance(a)).slice(0, examples)) console.log(show(row));
console.log('examples, long answerable with the lowest weighted coverage:');
for (const row of [...longAsk].sort((a, b) => FEATURES['weightedCoverage']!(a) - FEATURES['weightedCoverage']!(b)).slice(0, examples)) console.log(show(row));

// ---- The lever: a long-message gate on one feature or two (both below their cuts), cross-validated leave one set out.
/** A gate: a long message is shown nothing when every one of its first hit's `features` is below its cut. */
interface Gate {
  readonly features: readonly string[];
  readonly cuts: readonly number[];
}
interface Outcome {
  answerable: number;
  shown1: number;
  shown5: number;
  length: number;
  /** Answerable requests shown something today whose list the gate empties. */
  blanked: number;
  negatives: number;
  abstained: number;
  byClass: Record<'short' | 'medium' | 'long', [number, number]>;
  smallLost: number;
}
const todayCount = new Map(cases.map((row) => [row, shownToday(row)]));
const featureValues = new Map(cases.map((row) => [row, Object.fromEntries(Object.entries(FEATURES).map(([name, f]) => [name, f(row)]))]));
const gates = (row: Case, gate: Gate | undefined): boolean =>
  gate !== undefined && !row.named && row.words > LONG_WORDS && gate.features.every((name, i) => featureValues.get(row)![name]! < gate.cuts[i]!);
const empty = (): Outcome => ({
  answerable: 0,
  shown1: 0,
  shown5: 0,
  length: 0,
  blanked: 0,
  negatives: 0,
  abstained: 0,
  byClass: { short: [0, 0], medium: [0, 0], long: [0, 0] },
  smallLost: 0,
});
/** What the engine shows, today's or with `gate` on long messages. */
function outcome(rows: readonly Case[], gate?: Gate): Outcome {
  const o = empty();
  for (const row of rows) {
    const before = todayCount.get(row)!;
    const count = gates(row, gate) ? 0 : before;
    const shown = row.named ? [row.namedRelevant] : row.labels.slice(0, count);
    if (row.small) {
      if (!shown.includes(true)) o.smallLost += 1;
      continue;
    }
    if (!row.answerable) {
      const cls = o.byClass[lengthClass(row.words)];
      o.negatives += 1;
      cls[1] += 1;
      if (count === 0) {
        o.abstained += 1;
        cls[0] += 1;
      }
      continue;
    }
    o.answerable += 1;
    o.length += count;
    if (before > 0 && count === 0) o.blanked += 1;
    if (shown[0] === true) o.shown1 += 1;
    if (shown.includes(true)) o.shown5 += 1;
  }
  return o;
}
const add = (sum: Outcome, o: Outcome): void => {
  for (const key of ['answerable', 'shown1', 'shown5', 'length', 'blanked', 'negatives', 'abstained', 'smallLost'] as const) sum[key] += o[key];
  for (const cls of ['short', 'medium', 'long'] as const) {
    sum.byClass[cls][0] += o.byClass[cls][0];
    sum.byClass[cls][1] += o.byClass[cls][1];
  }
};
const line = (o: Outcome): string =>
  `${(o.shown1 / o.answerable).toFixed(3)} / ${(o.shown5 / o.answerable).toFixed(3)} (${(o.length / o.answerable).toFixed(2)}) blanked ${o.blanked} | ${o.abstained}/${o.negatives} (short ${o.byClass.short.join('/')}, medium ${o.byClass.medium.join('/')}, long ${o.byClass.long.join('/')}) | small lost ${o.smallLost}`;

const allowance = Number(values.allowance);
const eligible = (o: Outcome, base: Outcome): boolean =>
  o.shown5 >= base.shown5 - allowance * base.answerable && o.shown1 >= base.shown1 - allowance * base.answerable && o.smallLost === 0;
/** Up to `n` cut candidates for `feature`: the quantiles of its values over the long messages of `rows`. */
function cutCandidates(rows: readonly Case[], feature: string, n: number): number[] {
  const sorted = [...new Set(rows.filter((row) => row.words > LONG_WORDS).map((row) => round(featureValues.get(row)![feature]!)))].sort((a, b) => a - b);
  if (sorted.length <= n) return sorted;
  return [...new Set(Array.from({ length: n }, (_, i) => sorted[Math.floor((i * sorted.length) / n)]!))];
}
/** The gate on `features` over `rows` showing nothing for the most no-skill messages within the allowance of today's (ties: the first scanned, lower cuts), or undefined. */
function chooseGate(rows: readonly Case[], features: readonly string[]): Gate | undefined {
  const base = outcome(rows);
  const grids = features.map((feature) => cutCandidates(rows, feature, features.length === 1 ? 10_000 : 60));
  let best: { gate: Gate | undefined; abstained: number } = { gate: undefined, abstained: base.abstained };
  const scan = (cuts: number[]): void => {
    if (cuts.length < features.length) {
      for (const cut of grids[cuts.length]!) scan([...cuts, cut]);
      return;
    }
    const gate = { features, cuts };
    const o = outcome(rows, gate);
    if (eligible(o, base) && o.abstained > best.abstained) best = { gate, abstained: o.abstained };
  };
  scan([]);
  return best.gate;
}

const CANDIDATES: readonly (readonly string[])[] = [
  ['relevance'],
  ['coverage'],
  ['matchedWords'],
  ['weightedCoverage'],
  ['rarity'],
  ['bm25PerTerm'],
  ['bm25Share'],
  ['firstCosine'],
  ['coverage', 'bm25Share'],
  ['weightedCoverage', 'bm25Share'],
];
const todayPooled = outcome(cases);
const within = (o: Outcome): string =>
  `shown@1 ${o.shown1 - todayPooled.shown1}, shown@5 ${o.shown5 - todayPooled.shown5} of ${o.answerable} (allowed ${Math.floor(allowance * o.answerable)}): ${eligible(o, todayPooled) ? 'eligible' : 'NOT eligible'}`;
const cutsOf = (gate: Gate | undefined): string => (gate === undefined ? 'none' : gate.cuts.map((cut) => cut.toFixed(3)).join('&'));
console.log(`\ntoday (t ${threshold}), pooled shown hit@1 / hit@5 (length) | no-skill shown nothing (by class) | small lost`);
console.log(`  today: ${line(todayPooled)}`);
for (const features of CANDIDATES) {
  // Out of fold: each group's cases (and its small catalogues) gated at the cuts chosen on the other groups.
  const folded = groups.map((group) => ({
    group,
    rows: cases.filter((row) => row.group === group),
    gate: chooseGate(
      cases.filter((row) => row.group !== group),
      features,
    ),
  }));
  const sum = empty();
  for (const { rows, gate } of folded) add(sum, outcome(rows, gate));
  console.log(
    `  ${features.join(' & ')}, out of fold (cuts ${folded.map(({ gate }) => cutsOf(gate)).join(' ')}): ${line(sum)}; ${within(sum)}; on all groups: ${cutsOf(chooseGate(cases, features))}`,
  );
  for (const { group, rows, gate } of folded.filter(({ group }) => group === 'library-r10' || group === 'library-r11'))
    console.log(
      `    ${group}: ${line(
        outcome(
          rows.filter((row) => !row.small),
          gate,
        ),
      )}`,
    );
}
