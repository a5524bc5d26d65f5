/**
 * Short and medium skill-library requests on development data (`library` train + dev and every split
 * of the fresh sets through `--through`), replayed from the ranking cache: hit@1 / hit@5 by length
 * class (words, per-query-lengths.ts' classes) for today's engine, BM25 alone, the dense side alone,
 * and the sixteenth round's lever (docs/retrieval.md, "Short requests"): requests of at most T
 * distinct terms fused with dense share S (`shortQuery`), every other request as today. Prints the
 * tool lists' (MetaTool, Seal-Tools train + dev) won / lost too, since the lever is global.
 *
 *   SKILL_SEARCH_EVAL_DIR=/work/shared/eval npx tsx scripts/read-short-requests.ts [--through library-r15] [--terms 2,3,4,5,6] [--shares 0.45,0.55,0.75,0.85]
 */
import { parseArgs } from 'node:util';
import { BUNDLED_RERANKERS } from '../src/search/rerank.js';
import type { LibrarySuite } from './eval-suites.js';
import { bm25Order, indexOrder, libraryDevelopmentCases, printByClass, rankIn, type Variant } from './length-classes.js';
import { asEngineSees, ENGINE_FUSION, rankingCases, type RankingCase, type Reordering } from './ranking-cases.js';

const { values } = parseArgs({
  strict: true,
  options: {
    through: { type: 'string', default: 'library-r15' },
    terms: { type: 'string', default: '2,3,4,5,6' },
    shares: { type: 'string', default: '0.45,0.55,0.75,0.85' },
  },
});
const { cases, wordsOf } = await libraryDevelopmentCases(values.through as LibrarySuite);
const denseOnlyOrder = (c: RankingCase): number[] =>
  indexOrder(c, {
    ...ENGINE_FUSION,
    denseShare: 1,
    longQuery: { skills: { terms: 1e9, denseShare: 1 }, tools: { terms: 1e9, denseShare: 1 } },
  });

const engine: Reordering = { ...ENGINE_FUSION, rerank: BUNDLED_RERANKERS };
const shortLever = (terms: number, share: number) => (c: RankingCase) => indexOrder(c, c.query.terms.size <= terms ? { ...engine, denseShare: share } : engine);
const variants: Variant[] = [
  ['today', (c) => indexOrder(c, engine)],
  ['lexical', bm25Order],
  ['dense', denseOnlyOrder],
  ['fused, no re-ranker', (c) => indexOrder(c, ENGINE_FUSION)],
];
for (const t of values.terms.split(',').map(Number)) {
  for (const s of values.shares.split(',').map(Number)) variants.push([`shortQuery ≤${t} terms share ${s}`, shortLever(t, s)]);
}

const { ranks, words } = printByClass(cases, wordsOf, variants, 34);
console.log('\nshort + medium by set, today hit@1 (requests):');
for (const suite of [...new Set(cases.map((c) => c.suite))]) {
  const at = cases.map((_, i) => i).filter((i) => cases[i]!.suite === suite && words[i]! <= 12);
  if (at.length > 0) console.log(`  ${suite} ${at.length}: ${(at.filter((i) => ranks[0]![i] === 0).length / at.length).toFixed(3)}`);
}

// The tool lists (train + dev): what the lever changes there.
const others = (await rankingCases(['metatool', 'seal'], ['train', 'dev'], 500)).filter((c) => c.answerable && !c.namedRelevant).map((c) => asEngineSees(c));
for (const suite of ['metatool', 'seal'] as const) {
  const at = others.filter((c) => c.suite === suite);
  const today = at.map((c) => rankIn(c, indexOrder(c, engine)));
  console.log(`\n${suite} train + dev: ${at.length} requests; today hit@1 ${(today.filter((r) => r === 0).length / at.length).toFixed(3)}`);
  variants.slice(4).forEach(([label, order]) => {
    const r = at.map((c) => rankIn(c, order(c)));
    const at1 = `+${r.filter((x, i) => x === 0 && today[i] !== 0).length} −${r.filter((x, i) => x !== 0 && today[i] === 0).length}`;
    const at5 = `+${r.filter((x, i) => x < 5 && today[i]! >= 5).length} −${r.filter((x, i) => x >= 5 && today[i]! < 5).length}`;
    console.log(`  ${label.padEnd(34)} at 1 ${at1}, at 5 ${at5}`);
  });
}

// The sixteenth round's rule (docs/retrieval.md, "Short requests"): eligibility, the choice cross-validated
// by leaving one development set out, and the gate.
/** Exact two-sided sign test p for `won` against `lost`. */
const signP = (won: number, lost: number): number => {
  const n = won + lost;
  if (n === 0) return 1;
  let tail = 0;
  for (let i = 0; i <= Math.min(won, lost); i++) tail += Math.exp(lnChoose(n, i) - n * Math.LN2);
  return Math.min(1, 2 * tail);
};
const lnChoose = (n: number, k: number): number => lnFact(n) - lnFact(k) - lnFact(n - k);
const lnFact = (n: number): number => {
  let sum = 0;
  for (let i = 2; i <= n; i++) sum += Math.log(i);
  return sum;
};
const significantlyBelow = (won: number, lost: number): boolean => lost > won && signP(won, lost) < 0.05;
const toolRanks = variants.map(([, order]) => others.map((c) => rankIn(c, order(c))));
const toolsEligible = (v: number): boolean =>
  (['metatool', 'seal'] as const).every((suite) => {
    const at = others.map((_, i) => i).filter((i) => others[i]!.suite === suite);
    return [1, 5].every((k) => {
      const won = at.filter((i) => toolRanks[v]![i]! < k && toolRanks[0]![i]! >= k).length;
      const lost = at.filter((i) => toolRanks[v]![i]! >= k && toolRanks[0]![i]! < k).length;
      return !significantlyBelow(won, lost);
    });
  });
const LEVERS = variants.map((_, v) => v).slice(4);
const leverShare = (v: number): number => Number(variants[v]![0].split(' share ')[1]);
const leverTerms = (v: number): number => Number(variants[v]![0].split('≤')[1]!.split(' ')[0]);
const count = (v: number, at: readonly number[], k: number): number => at.filter((i) => ranks[v]![i]! < k).length;
const choose = (sets: ReadonlySet<string>): number | undefined => {
  const inSets = cases.map((_, i) => i).filter((i) => sets.has(cases[i]!.suite));
  const shortMedium = inSets.filter((i) => words[i]! <= 12);
  const longer = inSets.filter((i) => words[i]! > 12);
  const eligible = LEVERS.filter((v) => {
    if ([1, 5].some((k) => count(v, longer, k) < count(0, longer, k))) return false;
    const won5 = shortMedium.filter((i) => ranks[v]![i]! < 5 && ranks[0]![i]! >= 5).length;
    const lost5 = shortMedium.filter((i) => ranks[v]![i]! >= 5 && ranks[0]![i]! < 5).length;
    return !significantlyBelow(won5, lost5) && toolsEligible(v);
  });
  return eligible.sort(
    (a, b) =>
      count(b, shortMedium, 1) - count(a, shortMedium, 1) || Math.abs(leverShare(a) - 0.65) - Math.abs(leverShare(b) - 0.65) || leverTerms(a) - leverTerms(b),
  )[0];
};
const allSets = [...new Set(cases.map((c) => c.suite))];
let won = 0;
let lost = 0;
let n = 0;
console.log('\nleave one set out (short + medium hit@1 on the left-out set, chosen against today):');
for (const out of allSets) {
  const chosen = choose(new Set(allSets.filter((s) => s !== out)));
  const at = cases.map((_, i) => i).filter((i) => cases[i]!.suite === out && words[i]! <= 12);
  const v = chosen ?? 0;
  const w = at.filter((i) => ranks[v]![i] === 0 && ranks[0]![i] !== 0).length;
  const l = at.filter((i) => ranks[v]![i] !== 0 && ranks[0]![i] === 0).length;
  won += w;
  lost += l;
  n += at.length;
  console.log(`  ${out} (${at.length}): ${chosen === undefined ? 'none eligible' : variants[chosen]![0]} +${w} −${l}`);
}
const se = Math.sqrt(won + lost - (won - lost) ** 2 / n) / n;
const whole = choose(new Set(allSets));
console.log(
  `out of fold: +${won} −${lost} of ${n}, gain ${((won - lost) / n).toFixed(4)} against SE ${se.toFixed(4)}: gate ${(won - lost) / n > se ? 'passes' : 'fails'}`,
);
console.log(`chosen on every development set: ${whole === undefined ? 'none eligible' : variants[whole]![0]}`);
