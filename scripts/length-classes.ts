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

/** One named order of a case's candidates; the first variant is the baseline ("today") the others are compared with. */
export type Variant = readonly [string, (c: RankingCase) => number[]];

/**
 * Ranks every case under every variant and prints, per length class, each variant's hit@1 / hit@5 and its
 * won / lost requests against the first; returns the ranks (variant by case) and the word counts for the caller's
 * own tables.
 */
export function printByClass(
  cases: readonly RankingCase[],
  wordsOf: (c: RankingCase) => number,
  variants: readonly Variant[],
  labelWidth: number,
): { ranks: number[][]; words: number[] } {
  const ranks = variants.map(([, order]) => cases.map((c) => rankIn(c, order(c))));
  const words = cases.map(wordsOf);
  const terms = cases.map((c) => c.query.terms.size);
  console.log(`${cases.length} answerable requests (named ones left out)`);
  for (const [name, fits] of CLASSES) {
    const at = cases.map((_, i) => i).filter((i) => fits(words[i]!));
    const t = at.map((i) => terms[i]!).sort((a, b) => a - b);
    console.log(`\n${name}: ${at.length} requests; distinct terms median ${t[Math.floor(t.length / 2)] ?? '-'}, max ${t.at(-1) ?? '-'}`);
    variants.forEach(([label], v) => {
      const r = at.map((i) => ranks[v]![i]!);
      const share = (within: number): string => (r.filter((x) => x < within).length / Math.max(1, r.length)).toFixed(3);
      const won = at.filter((i) => ranks[v]![i]! === 0 && ranks[0]![i]! !== 0).length;
      const lost = at.filter((i) => ranks[v]![i]! !== 0 && ranks[0]![i]! === 0).length;
      const won5 = at.filter((i) => ranks[v]![i]! < 5 && ranks[0]![i]! >= 5).length;
      const lost5 = at.filter((i) => ranks[v]![i]! >= 5 && ranks[0]![i]! < 5).length;
      console.log(`  ${label.padEnd(labelWidth)} hit@1 ${share(1)} hit@5 ${share(5)}  vs today at 1: +${won} −${lost}, at 5: +${won5} −${lost5}`);
    });
  }
  return { ranks, words };
}
