import { readFile } from 'node:fs/promises';
import { SkillSearchError, throwIfAborted } from '../errors.js';
import type { SearchHit, SearchMode, SkillSearcher } from '../types.js';
import type { Language } from '../lang/detect.js';
import { scoreByLanguage, type LanguageScores } from './eval-languages.js';
import { assertMode, assertPositiveInteger } from './options.js';

/** One labelled query (SPEC §7): `relevant` holds skill names or ids; `[]` = nothing should be suggested. */
export interface EvalQuery {
  readonly id: string;
  readonly query: string;
  readonly relevant: readonly string[];
}

/** The SPEC §7 `eval --json` object, plus `byLanguage` (per query language, see `eval-languages.ts`). */
export interface EvalReport {
  readonly queries: number;
  readonly k: number;
  readonly mode: SearchMode;
  readonly hitAt1: number;
  readonly hitAt5: number;
  readonly hitAt10: number;
  readonly recallAt5: number;
  readonly recallAt10: number;
  readonly mrr: number;
  readonly ndcgAt10: number;
  readonly abstain: { readonly queries: number; readonly correct: number };
  readonly latencyMs: { readonly p50: number; readonly p95: number; readonly p99: number };
  // --- cross-lingual (issue 12): per query language, see eval-languages.ts ---
  readonly byLanguage: Partial<Record<Language, LanguageScores>>;
}

export interface EvalOptions {
  /** Echoed in the report; ranking metrics always look at the top 10 (or k when larger). @default 10 */
  readonly k?: number;
  /** @default 'hybrid' */
  readonly mode?: SearchMode;
  readonly signal?: AbortSignal;
  /** Called after each query. */
  readonly onProgress?: (done: number, total: number) => void;
}

function parseLine(line: string, where: string): EvalQuery {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new SkillSearchError('BAD_FILE', `${where}: not valid JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SkillSearchError('BAD_FILE', `${where}: expected an object {"id","query","relevant"}`);
  }
  const record = value as Record<string, unknown>;
  if (typeof record.query !== 'string' || record.query.trim() === '') {
    throw new SkillSearchError('BAD_FILE', `${where}: "query" must be a non-empty string`);
  }
  if (!Array.isArray(record.relevant) || !record.relevant.every((entry) => typeof entry === 'string')) {
    throw new SkillSearchError('BAD_FILE', `${where}: "relevant" must be an array of skill names or ids`);
  }
  const id = typeof record.id === 'string' || typeof record.id === 'number' ? String(record.id) : where;
  return { id, query: record.query, relevant: record.relevant as string[] };
}

/** Reads a JSONL query file; blank lines are skipped, a bad line fails with `FILE:LINE: reason`. */
export async function readEvalQueries(file: string): Promise<EvalQuery[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new SkillSearchError('BAD_FILE', `${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { cause: error });
  }
  const queries: EvalQuery[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() !== '') queries.push(parseLine(line, `${file}:${i + 1}`));
  });
  return queries;
}

/** Nearest-rank percentile of ascending `sorted` (0 when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/** A ranked result, reduced to what relevance is judged on: a hit is relevant when its id or name is listed. */
export interface RankedItem {
  readonly id: string;
  readonly name: string;
}

/** What one query returned. */
export interface QueryOutcome {
  readonly relevant: readonly string[];
  /** Best first; for a labelled query, searched without abstention. */
  readonly ranked: readonly RankedItem[];
  /** How many hits would be suggested with abstention on; only read for `relevant: []` (default: `ranked.length`). */
  readonly suggested?: number;
}

/** The SPEC §7 ranking metrics as unrounded means over the labelled queries. */
export interface RankingScores {
  /** Queries with at least one relevant entry (the denominator of every mean). */
  readonly labelled: number;
  readonly hitAt1: number;
  readonly hitAt5: number;
  readonly hitAt10: number;
  readonly recallAt5: number;
  readonly recallAt10: number;
  readonly mrr: number;
  readonly ndcgAt10: number;
  /** `relevant: []` queries, and how many suggested nothing. */
  readonly abstain: { readonly queries: number; readonly correct: number };
}

/**
 * 1-based ranks of the items that match a distinct relevant entry: each entry counts once
 * (shadowed duplicates with the same name do not count twice), an item's id before its name.
 */
export function relevantRanks(ranked: readonly RankedItem[], relevant: readonly string[]): number[] {
  const remaining = new Set(relevant);
  const ranks: number[] = [];
  ranked.forEach((item, i) => {
    for (const key of [item.id, item.name]) {
      if (remaining.has(key)) {
        remaining.delete(key);
        ranks.push(i + 1);
        return;
      }
    }
  });
  return ranks;
}

/** Splits off the `relevant: []` queries, which count only towards `abstain` (correct when nothing is suggested). */
function splitAbstentions(outcomes: readonly QueryOutcome[]): {
  labelled: QueryOutcome[];
  abstain: { queries: number; correct: number };
} {
  const labelled: QueryOutcome[] = [];
  let queries = 0;
  let correct = 0;
  for (const outcome of outcomes) {
    if (outcome.relevant.length > 0) {
      labelled.push(outcome);
      continue;
    }
    queries += 1;
    if ((outcome.suggested ?? outcome.ranked.length) === 0) correct += 1;
  }
  return { labelled, abstain: { queries, correct } };
}

/**
 * Scores ranked outcomes (SPEC §7). hit@k: a relevant item in the top k; MRR: 1 / rank of the
 * first; recall@k: share of the distinct relevant entries in the top k; nDCG@10 with binary
 * gains. `relevant: []` queries only count towards `abstain` (correct when nothing is suggested).
 */
export function scoreRankings(outcomes: readonly QueryOutcome[]): RankingScores {
  const { labelled: scored, abstain } = splitAbstentions(outcomes);
  const labelled = scored.length;
  const sums = { hitAt1: 0, hitAt5: 0, hitAt10: 0, recallAt5: 0, recallAt10: 0, mrr: 0, ndcgAt10: 0 };
  for (const outcome of scored) {
    const ranks = relevantRanks(outcome.ranked, outcome.relevant);
    const first = ranks.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...ranks);
    if (first <= 1) sums.hitAt1 += 1;
    if (first <= 5) sums.hitAt5 += 1;
    if (first <= 10) sums.hitAt10 += 1;
    if (Number.isFinite(first)) sums.mrr += 1 / first;
    const wanted = new Set(outcome.relevant).size;
    sums.recallAt5 += ranks.filter((rank) => rank <= 5).length / wanted;
    sums.recallAt10 += ranks.filter((rank) => rank <= 10).length / wanted;
    let dcg = 0;
    for (const rank of ranks) if (rank <= 10) dcg += 1 / Math.log2(rank + 1);
    let ideal = 0;
    for (let rank = 1; rank <= Math.min(wanted, 10); rank += 1) ideal += 1 / Math.log2(rank + 1);
    sums.ndcgAt10 += dcg / ideal;
  }
  const mean = (sum: number): number => (labelled === 0 ? 0 : sum / labelled);
  return {
    labelled,
    hitAt1: mean(sums.hitAt1),
    hitAt5: mean(sums.hitAt5),
    hitAt10: mean(sums.hitAt10),
    recallAt5: mean(sums.recallAt5),
    recallAt10: mean(sums.recallAt10),
    mrr: mean(sums.mrr),
    ndcgAt10: mean(sums.ndcgAt10),
    abstain,
  };
}

/** How the suggestions a user would see (abstention on) fit the labels. */
export interface SuggestionScores {
  readonly labelled: number;
  /** Labelled queries with at least one relevant suggestion. */
  readonly answered: number;
  /** Relevant suggestions / all suggestions, over labelled queries (0 when none). */
  readonly precision: number;
  /** Mean suggestions per labelled query. */
  readonly meanSuggested: number;
  readonly abstain: { readonly queries: number; readonly correct: number };
}

/** Scores outcomes whose `ranked` is what was suggested with abstention on (e.g. the top 5). */
export function scoreSuggestions(outcomes: readonly QueryOutcome[]): SuggestionScores {
  const { labelled: scored, abstain } = splitAbstentions(outcomes);
  const labelled = scored.length;
  let answered = 0;
  let returned = 0;
  let relevantReturned = 0;
  for (const outcome of scored) {
    const wanted = new Set(outcome.relevant);
    const fitting = outcome.ranked.filter((item) => wanted.has(item.id) || wanted.has(item.name)).length;
    returned += outcome.ranked.length;
    relevantReturned += fitting;
    if (fitting > 0) answered += 1;
  }
  return {
    labelled,
    answered,
    precision: returned === 0 ? 0 : relevantReturned / returned,
    meanSuggested: labelled === 0 ? 0 : returned / labelled,
    abstain,
  };
}

const asRanked = (hits: readonly SearchHit[]): RankedItem[] => hits.map((hit) => ({ id: hit.skill.id, name: hit.skill.name }));

/**
 * Runs every query and scores it with {@link scoreRankings}.
 *
 * Labelled queries are searched with `abstain: false`: ranking metrics measure the order of
 * the catalog, not the abstention threshold (otherwise tuning the threshold would trade
 * hit@k against abstention invisibly). `relevant: []` queries are searched exactly as a
 * user would (abstention on, top k) and count as correct when nothing comes back.
 */
export async function runEval(engine: SkillSearcher, queries: readonly EvalQuery[], options: EvalOptions = {}): Promise<EvalReport> {
  const k = options.k === undefined ? 10 : assertPositiveInteger('k', options.k);
  const mode = options.mode === undefined ? 'hybrid' : assertMode('mode', options.mode);
  const depth = Math.max(10, k);
  const outcomes: QueryOutcome[] = [];
  const latencies: number[] = [];

  for (const [n, item] of queries.entries()) {
    throwIfAborted(options.signal);
    const negative = item.relevant.length === 0;
    const started = performance.now();
    const hits = await engine.search(item.query, {
      k: negative ? k : depth,
      mode,
      abstain: negative,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    latencies.push(performance.now() - started);
    options.onProgress?.(n + 1, queries.length);
    outcomes.push({ relevant: item.relevant, ranked: asRanked(hits) });
  }
  const byLanguage = scoreByLanguage(queries.map((item, i) => ({ query: item.query, outcome: outcomes[i]! })));

  const scores = scoreRankings(outcomes);
  latencies.sort((a, b) => a - b);
  return {
    queries: queries.length,
    k,
    mode,
    hitAt1: round(scores.hitAt1, 4),
    hitAt5: round(scores.hitAt5, 4),
    hitAt10: round(scores.hitAt10, 4),
    recallAt5: round(scores.recallAt5, 4),
    recallAt10: round(scores.recallAt10, 4),
    mrr: round(scores.mrr, 4),
    ndcgAt10: round(scores.ndcgAt10, 4),
    abstain: scores.abstain,
    latencyMs: { p50: round(percentile(latencies, 50), 2), p95: round(percentile(latencies, 95), 2), p99: round(percentile(latencies, 99), 2) },
    byLanguage,
  };
}
