/**
 * Reads the skill-library misses of today's engine on development data (`library` train + dev and
 * every split of the fresh sets through `--through`), replayed from the ranking cache: for each
 * answerable request whose right skill is not first, where it sits in BM25's order, the dense
 * side's (centred and plain cosine), the fused order and the final one, which of its fields the
 * request's words reach against the first's, and which pool would have held it. Counts and the
 * misses themselves (`--list`); the reading is docs/retrieval.md ("thirteenth round").
 *
 *   SKILL_SEARCH_EVAL_DIR=/work/shared/eval npx tsx scripts/read-misses.ts [--through library-r11 | --only SUITE] [--list]
 */
import { parseArgs } from 'node:util';
import { lexicalEntry } from '../src/lexical/lexical-entry.js';
import { BUNDLED_RERANKERS } from '../src/search/rerank.js';
import type { Skill } from '../src/types.js';
import { freshLibrarySetsThrough, librarySkills, loadSuite, type LibrarySuite, type SuiteName } from './eval-suites.js';
import { asEngineSees, ENGINE_FUSION, fusedOrders, plainOf, rankingCases, reorder, type RankingCase } from './ranking-cases.js';

const { values } = parseArgs({
  strict: true,
  options: { through: { type: 'string', default: 'library-r11' }, only: { type: 'string' }, list: { type: 'boolean', default: false } },
});
const SUITES: SuiteName[] = values.only === undefined ? ['library', ...freshLibrarySetsThrough(values.through as LibrarySuite)] : [values.only as SuiteName];
const cases = (await rankingCases(SUITES, ['train', 'dev', 'test'], 500)).filter(
  (c) => c.answerable && !c.namedRelevant && (c.suite !== 'library' || c.split !== 'test'),
);
const texts = new Map<string, string>();
for (const name of SUITES) for (const q of (await loadSuite(name, { sample: 500 }))!.queries) texts.set(`${name}/${q.id}`, q.query);
const skills = new Map<string, Skill>(librarySkills().map((skill) => [skill.id, skill]));
const FIELDS = ['name', 'whenToUse', 'keywords', 'description', 'body'] as const;
const entries = new Map<string, ReturnType<typeof lexicalEntry>>();
const entryOf = (id: string): ReturnType<typeof lexicalEntry> | undefined => {
  if (!entries.has(id) && skills.has(id)) entries.set(id, lexicalEntry(skills.get(id)!));
  return entries.get(id);
};

/** Rank (0-based) of the first relevant candidate when the candidates are sorted by `score` (higher first; absent: unranked). */
function rankBy(c: RankingCase, score: (i: number) => number | undefined): number {
  const order = c.candidates
    .map((_, i) => i)
    .filter((i) => score(i) !== undefined)
    .sort((a, b) => score(b)! - score(a)! || a - b);
  const at = order.findIndex((i) => c.labels[i]);
  return at < 0 ? Number.POSITIVE_INFINITY : at;
}

/** Which fields hold each query term (exact stemmed term), as `field:count-of-terms`. */
function fieldsOf(id: string, terms: ReadonlySet<string>): string {
  const entry = entryOf(id);
  if (entry === undefined) return '?';
  return FIELDS.map((field, f) => `${field[0]}${[...terms].filter((t) => entry.terms[f]!.has(t)).length}`).join(' ');
}

const bucket = (rank: number): string =>
  rank === Number.POSITIVE_INFINITY ? 'none' : rank < 3 ? '1-3' : rank < 5 ? '4-5' : rank < 10 ? '6-10' : rank < 20 ? '11-20' : '21+';
const tally = new Map<string, number>();
const add = (key: string): void => {
  tally.set(key, (tally.get(key) ?? 0) + 1);
};
/** Pools (fused first, BM25 first, dense first, IDF-weighted coverage first): how many requests have a right skill in each, among all and among the misses. */
const POOLS = [
  [3, 3, 0, 0],
  [5, 5, 0, 0],
  [3, 5, 0, 0],
  [3, 10, 0, 0],
  [10, 10, 0, 0],
  [3, 3, 3, 0],
  [3, 3, 5, 0],
  [3, 3, 0, 5],
  [5, 5, 5, 0],
  [5, 10, 5, 5],
] as const;
const poolHeld = POOLS.map(() => ({ all: 0, missed: 0, size: 0 }));
let total = 0;
let misses = 0;
const lines: string[] = [];
for (const raw of cases) {
  const c = asEngineSees(raw);
  total += 1;
  const final = reorder(c, { ...ENGINE_FUSION, rerank: BUNDLED_RERANKERS });
  const finalRank = final.findIndex((hit) => c.labels[c.candidates.findIndex((x) => x.id === hit.id)]);
  const fused = fusedOrders(c, ENGINE_FUSION);
  const firstBy = (score: (i: number) => number | undefined, n: number): number[] =>
    c.candidates
      .map((_, i) => i)
      .filter((i) => score(i) !== undefined)
      .sort((a, b) => score(b)! - score(a)! || a - b)
      .slice(0, n);
  POOLS.forEach(([f, l, d, w], p) => {
    const pool = new Set([
      ...firstBy((i) => fused[i], f),
      ...firstBy((i) => ((c.candidates[i]!.lexical ?? 0) > 0 ? c.candidates[i]!.lexical : undefined), l),
      ...firstBy((i) => c.candidates[i]!.centered ?? 0, d),
      ...firstBy((i) => ((c.candidates[i]!.lexical ?? 0) > 0 ? (c.candidates[i]!.weightedCoverage ?? 0) : undefined), w),
    ]);
    const held = [...pool].some((i) => c.labels[i]);
    poolHeld[p]!.size += pool.size;
    if (held) poolHeld[p]!.all += 1;
    if (held && finalRank !== 0) poolHeld[p]!.missed += 1;
  });
  if (finalRank === 0) continue;
  misses += 1;
  const fusedRank = rankBy(c, (i) => fused[i]);
  const bm25Rank = rankBy(c, (i) => ((c.candidates[i]!.lexical ?? 0) > 0 ? c.candidates[i]!.lexical : undefined));
  const denseRank = rankBy(c, (i) => c.candidates[i]!.centered ?? 0);
  const plainRank = rankBy(c, (i) => plainOf(c.candidates[i]!));
  const deep = finalRank < 0 || finalRank >= 5;
  const kind = deep ? 'deep' : 'near';
  add(`${kind}`);
  add(`${kind} fused ${bucket(fusedRank)}`);
  add(`${kind} bm25 ${bucket(bm25Rank)}`);
  add(`${kind} dense ${bucket(denseRank)}`);
  add(`${kind} plain ${bucket(plainRank)}`);
  add(`${kind} best-of-three ${bucket(Math.min(fusedRank, bm25Rank, denseRank, plainRank))}`);
  const first = final[0]!;
  const label = c.candidates.find((_, i) => c.labels[i]);
  const firstLex = first.lexical ?? 0;
  const bestLabel = c.candidates
    .map((hit, i) => ({ hit, i }))
    .filter(({ i }) => c.labels[i])
    .sort((a, b) => (b.hit.lexical ?? 0) - (a.hit.lexical ?? 0))[0]?.hit;
  const labelLex = bestLabel?.lexical ?? 0;
  const ratio = firstLex > 0 && labelLex > 0 ? labelLex / firstLex : labelLex > 0 ? Number.POSITIVE_INFINITY : 0;
  const tie = labelLex > 0 && firstLex > 0 && Math.abs(ratio - 1) <= 0.1;
  if (!deep) add(`near bm25-ratio ${labelLex === 0 ? 'label unmatched' : ratio >= 1.1 ? 'label ahead >10%' : tie ? 'tie ±10%' : 'label behind >10%'}`);
  if (!deep && tie) add(`near tie ${first.coverage === bestLabel!.coverage ? 'same coverage' : 'other coverage'}`);
  const terms = c.query.terms;
  lines.push(
    [
      kind,
      `${c.suite}/${c.split}`,
      `final ${finalRank < 0 ? '-' : finalRank + 1} fused ${fusedRank + 1} bm25 ${bm25Rank + 1} dense ${denseRank + 1} plain ${plainRank + 1}`,
      `first ${first.name} [${fieldsOf(first.id, terms)}] lex ${firstLex.toFixed(2)}`,
      `label ${label?.name ?? '?'} [${bestLabel === undefined ? 'not a candidate' : fieldsOf(bestLabel.id, terms)}] lex ${labelLex.toFixed(2)}`,
      JSON.stringify(texts.get(`${c.suite}/${c.id}`) ?? c.id),
    ].join(' | '),
  );
}
console.log(`${total} answerable requests (named ones left out), ${misses} not first`);
for (const [key, n] of [...tally].sort()) console.log(`${key}\t${n}`);
POOLS.forEach(([f, l, d, w], p) =>
  console.log(
    `pool fused ${f} + bm25 ${l} + dense ${d} + weighted ${w}: holds a right skill for ${poolHeld[p]!.all} of ${total}, ${poolHeld[p]!.missed} of the ${misses} misses; mean size ${(poolHeld[p]!.size / total).toFixed(2)}`,
  ),
);
if (values.list) for (const line of lines.sort()) console.log(line);
