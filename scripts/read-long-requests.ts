/**
 * Very long skill-library requests on development data (`library` train + dev and every split of
 * the fresh sets through `--through`), replayed from the ranking cache: hit@1 / hit@5 by length class
 * (words, per-query-lengths.ts' classes) for today's engine, BM25 alone, the fused order without the
 * re-ranker, and the long-request levers the fifteenth round weighs (docs/retrieval.md, "Very long
 * requests"): the re-ranker left out past N distinct query terms, `longQuery.terms` set to N.
 * "today" is the engine's defaults (`longQuery.terms` 32 until the fifteenth round, 24 after it; per catalogue kind
 * since the sixteenth). The levers set `terms` for every kind.
 *
 *   SKILL_SEARCH_EVAL_DIR=/work/shared/eval npx tsx scripts/read-long-requests.ts [--through library-r13] [--terms 16,20,24,28,32]
 */
import { parseArgs } from 'node:util';
import { BUNDLED_RERANKERS } from '../src/search/rerank.js';
import type { LibrarySuite } from './eval-suites.js';
import { bm25Order, indexOrder, libraryDevelopmentCases, printByClass, rankIn, type Variant } from './length-classes.js';
import { asEngineSees, ENGINE_FUSION, rankingCases, type Reordering } from './ranking-cases.js';

const { values } = parseArgs({
  strict: true,
  options: { through: { type: 'string', default: 'library-r13' }, terms: { type: 'string', default: '16,20,24,28,32' } },
});
const { cases, wordsOf } = await libraryDevelopmentCases(values.through as LibrarySuite);

const engine: Reordering = { ...ENGINE_FUSION, rerank: BUNDLED_RERANKERS };
const variants: Variant[] = [
  [`today (longQuery.terms ${engine.longQuery.skills.terms}, tools ${engine.longQuery.tools.terms})`, (c) => indexOrder(c, engine)],
  ['lexical', bm25Order],
  ['fused, no re-ranker', (c) => indexOrder(c, ENGINE_FUSION)],
];
for (const n of values.terms.split(',').map(Number)) {
  variants.push([`no re-ranker past ${n} terms`, (c) => indexOrder(c, c.query.terms.size > n ? ENGINE_FUSION : engine)]);
  // Set for every catalogue kind, as the fifteenth round weighed it.
  const ramp = { ...engine.longQuery.skills, terms: n };
  variants.push([`longQuery.terms ${n}`, (c) => indexOrder(c, { ...engine, longQuery: { skills: ramp, tools: ramp } })]);
}

const { ranks, words } = printByClass(cases, wordsOf, variants, 32);
const setsOf = [...new Set(cases.map((c) => c.suite))];
console.log('\nvery long by set (today / lexical / longQuery.terms 20 / longQuery.terms 24):');
for (const suite of setsOf) {
  const at = cases.map((_, i) => i).filter((i) => cases[i]!.suite === suite && words[i]! > 40);
  if (at.length === 0) continue;
  const h = (v: number): string => (at.filter((i) => ranks[v]![i] === 0).length / at.length).toFixed(3);
  const pick = (label: string): number => variants.findIndex(([l]) => l === label);
  console.log(`  ${suite} ${at.length}: ${[0, 1, pick('longQuery.terms 20'), pick('longQuery.terms 24')].map((v) => (v < 0 ? '-' : h(v))).join(' / ')}`);
}

// The other development suites (tool lists and the boundaries set, train + dev): what the levers change there.
const others = (await rankingCases(['metatool', 'seal', 'boundaries'], ['train', 'dev'], 500))
  .filter((c) => c.answerable && !c.namedRelevant)
  .map((c) => asEngineSees(c));
for (const suite of ['metatool', 'seal', 'boundaries'] as const) {
  const at = others.filter((c) => c.suite === suite);
  const today = at.map((c) => rankIn(c, indexOrder(c, engine)));
  const long = at.filter((c) => c.query.terms.size > Math.min(...values.terms.split(',').map(Number))).length;
  console.log(
    `\n${suite} train + dev: ${at.length} requests, ${long} past the fewest terms tried; today hit@1 ${(today.filter((r) => r === 0).length / at.length).toFixed(3)}`,
  );
  variants.slice(3).forEach(([label, order]) => {
    const r = at.map((c) => rankIn(c, order(c)));
    const changed = r.filter((x, i) => (x === 0) !== (today[i] === 0) || x < 5 !== today[i]! < 5).length;
    const at1 = `+${r.filter((x, i) => x === 0 && today[i] !== 0).length} −${r.filter((x, i) => x !== 0 && today[i] === 0).length}`;
    const at5 = `+${r.filter((x, i) => x < 5 && today[i]! >= 5).length} −${r.filter((x, i) => x >= 5 && today[i]! < 5).length}`;
    console.log(
      `  ${label.padEnd(32)} hit@1 ${(r.filter((x) => x === 0).length / at.length).toFixed(3)} hit@5 ${(r.filter((x) => x < 5).length / at.length).toFixed(3)}; ${changed} requests change at 1 or 5 (at 1 ${at1}, at 5 ${at5})`,
    );
  });
}
