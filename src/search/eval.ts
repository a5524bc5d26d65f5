import { readFile } from 'node:fs/promises';
import { SkillSearchError, throwIfAborted } from '../errors.js';
import type { SearchHit, SearchMode, SkillSearcher } from '../types.js';
import { assertMode, assertPositiveInteger } from './options.js';

/** One labelled query (SPEC §7): `relevant` holds skill names or ids; `[]` = nothing should be suggested. */
export interface EvalQuery {
  readonly id: string;
  readonly query: string;
  readonly relevant: readonly string[];
}

/** Exactly the SPEC §7 `eval --json` object. */
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

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/**
 * Runs every query and scores it.
 *
 * Labelled queries are searched with `abstain: false`: ranking metrics measure the order of
 * the catalog, not the abstention threshold (otherwise tuning the threshold would trade
 * hit@k against abstention invisibly). `relevant: []` queries are searched exactly as a
 * user would (abstention on, top k) and count as correct when nothing comes back.
 * A hit is a result whose skill name or id is listed in `relevant`; each relevant entry
 * counts once for recall and nDCG (binary gains).
 */
export async function runEval(engine: SkillSearcher, queries: readonly EvalQuery[], options: EvalOptions = {}): Promise<EvalReport> {
  const k = options.k === undefined ? 10 : assertPositiveInteger('k', options.k);
  const mode = options.mode === undefined ? 'hybrid' : assertMode('mode', options.mode);
  const depth = Math.max(10, k);
  let labelled = 0;
  const sums = { hitAt1: 0, hitAt5: 0, hitAt10: 0, recallAt5: 0, recallAt10: 0, mrr: 0, ndcgAt10: 0 };
  let abstainQueries = 0;
  let abstainCorrect = 0;
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
    if (negative) {
      abstainQueries += 1;
      if (hits.length === 0) abstainCorrect += 1;
      continue;
    }
    labelled += 1;
    const ranks = relevantRanks(hits, item.relevant);
    const first = ranks.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...ranks);
    if (first <= 1) sums.hitAt1 += 1;
    if (first <= 5) sums.hitAt5 += 1;
    if (first <= 10) sums.hitAt10 += 1;
    if (Number.isFinite(first)) sums.mrr += 1 / first;
    const wanted = new Set(item.relevant).size;
    sums.recallAt5 += ranks.filter((rank) => rank <= 5).length / wanted;
    sums.recallAt10 += ranks.filter((rank) => rank <= 10).length / wanted;
    let dcg = 0;
    for (const rank of ranks) if (rank <= 10) dcg += 1 / Math.log2(rank + 1);
    let ideal = 0;
    for (let rank = 1; rank <= Math.min(wanted, 10); rank += 1) ideal += 1 / Math.log2(rank + 1);
    sums.ndcgAt10 += dcg / ideal;
  }

  const mean = (sum: number): number => (labelled === 0 ? 0 : round(sum / labelled, 4));
  latencies.sort((a, b) => a - b);
  return {
    queries: queries.length,
    k,
    mode,
    hitAt1: mean(sums.hitAt1),
    hitAt5: mean(sums.hitAt5),
    hitAt10: mean(sums.hitAt10),
    recallAt5: mean(sums.recallAt5),
    recallAt10: mean(sums.recallAt10),
    mrr: mean(sums.mrr),
    ndcgAt10: mean(sums.ndcgAt10),
    abstain: { queries: abstainQueries, correct: abstainCorrect },
    latencyMs: { p50: round(percentile(latencies, 50), 2), p95: round(percentile(latencies, 95), 2), p99: round(percentile(latencies, 99), 2) },
  };
}

/** 1-based ranks of the hits that match a distinct relevant entry (each entry matched once). */
function relevantRanks(hits: readonly SearchHit[], relevant: readonly string[]): number[] {
  const remaining = new Set(relevant);
  const ranks: number[] = [];
  hits.forEach((hit, i) => {
    for (const key of [hit.skill.id, hit.skill.name]) {
      if (remaining.has(key)) {
        remaining.delete(key);
        ranks.push(i + 1);
        return;
      }
    }
  });
  return ranks;
}
