/**
 * The most an exact top-k pruning over whole postings lists (MaxScore-like) could save in
 * `Bm25Scorer` at a query's first sight (issue #17), on the registry pool of ../shared/eval
 * (its first `--size` skills) with the eval suites' query texts (sampled, deterministic).
 *
 * Per query: every (expanded term, field) postings list and its bound, the most one document can
 * get from it (`repeats · weight · field boost · idf · (d + k + 1)`, since
 * `tf·(k+1) / (tf + norm) < k + 1`). A set of lists may go unread when a document reached only
 * through them cannot make the best `--limit`: (their bounds summed) × (the query terms among
 * them) < the `--limit`-th score. Here that score is taken from the finished search (a real
 * pruning only has a floor under it while it reads) and finding the set costs nothing (a real
 * one also looks each candidate up in the unread lists), so this is a ceiling. The set is the
 * lowest bounds (`--choice lowest`, MaxScore) or the least bound per posting first (`--choice
 * density`). Then fresh scorers (nothing cached) answer each query with and without those lists,
 * interleaved, `--rounds` times.
 *
 * Usage: npx tsx scripts/measure-lexical-pruning-ceiling.ts [--size 24000] [--limit 50] [--choice density] [--queries 600] [--rounds 3]
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BM25, Bm25Scorer } from '../src/lexical/bm25-scorer.js';
import { derivedTerms } from '../src/lexical/term-expansion.js';
import type { QueryTerm } from '../src/lexical/lexical-query.js';
import { INDEXED_FIELDS } from '../src/lexical/lexical-entry.js';
import { LexicalIndex } from '../src/lexical/lexical-index.js';
import type { FieldPostings, PostingsSource, TermPostings } from '../src/lexical/postings-source.js';
import { tokenize } from '../src/lexical/tokenize.js';
import { loadToolsJsonl } from '../src/load/tools-jsonl.js';
import { ENGINE_DEFAULTS } from '../src/search/options.js';
import { REGISTRY_POOL, evalQueryTexts, sample } from './eval-suites.js';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '24000' },
    limit: { type: 'string', default: '50' },
    choice: { type: 'string', default: 'density' },
    queries: { type: 'string', default: '600' },
    rounds: { type: 'string', default: '3' },
  },
});
const limit = Number(values.limit);
if (values.choice !== 'density' && values.choice !== 'lowest') throw new Error(`--choice: density or lowest, not ${values.choice}`);

interface BoundedList {
  readonly postings: FieldPostings;
  readonly bound: number;
  /** Index of the query term it belongs to. */
  readonly term: number;
}

/** The lists a document reached only through could not make the cut of score `cut`. */
function unreadable(lists: readonly BoundedList[], cut: number): BoundedList[] {
  const termsOf = (set: readonly BoundedList[]) => new Set(set.map((list) => list.term)).size;
  if (values.choice === 'lowest') {
    const byBound = [...lists].sort((x, y) => y.bound - x.bound);
    for (let from = 0; from < byBound.length; from += 1) {
      const rest = byBound.slice(from);
      if (rest.reduce((sum, list) => sum + list.bound, 0) * termsOf(rest) < cut) return rest;
    }
    return [];
  }
  const chosen: BoundedList[] = [];
  let sum = 0;
  for (const list of [...lists].sort((x, y) => x.bound / x.postings.size - y.bound / y.postings.size)) {
    if ((sum + list.bound) * termsOf([...chosen, list]) < cut) {
      chosen.push(list);
      sum += list.bound;
    }
  }
  return chosen;
}

/** `source` without the `hidden` lists. */
function without(source: PostingsSource, hidden: ReadonlySet<FieldPostings>): PostingsSource {
  const hide = (term: TermPostings): TermPostings => term.map((postings) => (postings !== undefined && hidden.has(postings) ? undefined : postings));
  return {
    size: source.size,
    slots: source.slots,
    averageFieldLengths: source.averageFieldLengths,
    fieldLengths: source.fieldLengths,
    externalId: (doc) => source.externalId(doc),
    exact: (term) => {
      const found = source.exact(term);
      return found === undefined ? undefined : hide(found);
    },
    prefixed: (prefix) => [...source.prefixed(prefix)].map(([term, postings]) => [term, hide(postings)] as const),
    near: (word, maxDistance) => source.near(word, maxDistance).map((near) => ({ ...near, handle: hide(near.handle) })),
  };
}

async function main(): Promise<void> {
  if (!existsSync(REGISTRY_POOL)) {
    console.log(`skipped: ${REGISTRY_POOL} is absent`);
    return;
  }
  const { skills } = await loadToolsJsonl(REGISTRY_POOL);
  const texts = await evalQueryTexts();
  const index = new LexicalIndex();
  for (const skill of skills.slice(0, Number(values.size))) index.upsert(skill);
  const source = index;
  // The typo vocabulary is built after a few lookups; build it before timing.
  for (let i = 0; i < 10; i += 1) source.near(`warmup${i}`, 1);
  const fields = Object.entries(ENGINE_DEFAULTS.fieldBoosts)
    .filter(([, boost]) => boost > 0)
    .map(([name, boost]) => ({ name, boost }));
  const { fuzzy, prefixMinLength } = ENGINE_DEFAULTS;
  const { k, d } = BM25;

  const options = { boost: ENGINE_DEFAULTS.fieldBoosts, fuzzy, prefixMinLength };
  const prepared: { text: string; hidden: Set<FieldPostings> }[] = [];
  let postingCount = 0;
  let hiddenCount = 0;
  for (const text of sample(texts, Number(values.queries))) {
    const words = tokenize(text);
    if (words.length === 0) continue;
    // As `Bm25Scorer.search` builds them.
    const terms = words.map(
      (term): QueryTerm => ({
        term,
        prefix: term.length >= prefixMinLength,
        fuzzy: term.length >= fuzzy.minLength && source.exact(term) === undefined ? fuzzy.ratio : false,
        boost: 1,
      }),
    );
    const distinct = [...new Set(words)];
    const lists: BoundedList[] = [];
    distinct.forEach((word, term) => {
      const query = terms.find((candidate) => candidate.term === word)!;
      const repeats = words.filter((other) => other === word).length;
      for (const { weight, handle } of derivedTerms(source, query)) {
        for (const field of fields) {
          const postings = handle[(INDEXED_FIELDS as readonly string[]).indexOf(field.name)];
          if (postings === undefined) continue;
          const idf = Math.log(1 + (source.size - postings.size + 0.5) / (postings.size + 0.5));
          lists.push({ postings, bound: repeats * weight * field.boost * idf * (d + k + 1), term });
          postingCount += postings.size;
        }
      }
    });
    const best = new Bm25Scorer(source).search(text, limit, options);
    const hidden = new Set(best.length < limit ? [] : unreadable(lists, best[limit - 1]!.score).map((list) => list.postings));
    for (const postings of hidden) hiddenCount += postings.size;
    prepared.push({ text, hidden });
  }

  const taken = { all: [] as number[], pruned: [] as number[] };
  const everything = new Set<FieldPostings>();
  for (let round = 0; round < Number(values.rounds); round += 1) {
    prepared.forEach(({ text, hidden }, i) => {
      for (const kind of (i + round) % 2 === 0 ? (['all', 'pruned'] as const) : (['pruned', 'all'] as const)) {
        // Both through the same wrapper, so only the hidden lists differ.
        const scorer = new Bm25Scorer(without(source, kind === 'all' ? everything : hidden));
        const started = performance.now();
        scorer.search(text, limit, options);
        taken[kind].push(performance.now() - started);
      }
    });
  }
  const p50 = (samples: readonly number[]) => [...samples].sort((x, y) => x - y)[Math.floor(samples.length / 2)]!.toFixed(3);
  console.log(
    `${source.size} skills, ${prepared.length} queries, limit ${limit}, choice ${values.choice}: ${hiddenCount} of ${postingCount} postings unread (${((100 * hiddenCount) / postingCount).toFixed(1)}%); first-sight p50 ${p50(taken.all)} ms reading all, ${p50(taken.pruned)} ms without them`,
  );
}

await main();
