/**
 * The skill-library development requests by length, as read-long-requests.ts and read-short-requests.ts replay them:
 * `library` train + dev and every split of the fresh sets through a given one, from the ranking cache, as the engine
 * sees them; each request's word count; per-query-lengths.ts' length classes; and the orders both scripts compare.
 */
import { freshLibrarySetsThrough, loadSuite, type LibrarySuite, type SuiteName } from './eval-suites.js';
import { asEngineSees, rankingCases, reorder, type RankingCase, type Reordering } from './ranking-cases.js';

/** Answerable library requests through `through` (no named skill; `library`'s test split left out), with their word counts. */
export async function libraryDevelopmentCases(through: LibrarySuite): Promise<{ cases: RankingCase[]; wordsOf: (c: RankingCase) => number }> {
  const suites: SuiteName[] = ['library', ...freshLibrarySetsThrough(through)];
  const cases = (await rankingCases(suites, ['train', 'dev', 'test'], 500))
    .filter((c) => c.answerable && !c.namedRelevant && (c.suite !== 'library' || c.split !== 'test'))
    .map((c) => asEngineSees(c));
  const texts = new Map<string, string>();
  for (const name of suites) for (const q of (await loadSuite(name, { sample: 500 }))!.queries) texts.set(`${name}/${q.id}`, q.query);
  const wordsOf = (c: RankingCase): number => (texts.get(`${c.suite}/${c.id}`) ?? '').split(/\s+/u).filter((w) => w !== '').length;
  return { cases, wordsOf };
}

/** r12's length classes (fixtures/eval/README.md), by words split on white space. */
export const CLASSES: readonly (readonly [string, (n: number) => boolean])[] = [
  ['short', (n) => n <= 6],
  ['medium', (n) => n >= 7 && n <= 12],
  ['long', (n) => n >= 13 && n <= 40],
  ['very long', (n) => n > 40],
];

/** Rank (0-based) of the first relevant candidate in an order of candidate indexes; Infinity when none. */
export const rankIn = (c: RankingCase, order: readonly number[]): number => {
  const at = order.findIndex((i) => c.labels[i]);
  return at < 0 ? Number.POSITIVE_INFINITY : at;
};

/** The case's candidates (as indexes) in the order `params` rank them. */
export const indexOrder = (c: RankingCase, params: Reordering): number[] => {
  const ids = new Map(c.candidates.map((hit, i) => [hit.id, i]));
  return reorder(c, params).map((hit) => ids.get(hit.id)!);
};

/** The candidates BM25 scored, best first. */
export const bm25Order = (c: RankingCase): number[] =>
  c.candidates
    .map((_, i) => i)
    .filter((i) => (c.candidates[i]!.lexical ?? 0) > 0)
    .sort((a, b) => c.candidates[b]!.lexical! - c.candidates[a]!.lexical! || a - b);
