import { throwIfAborted } from '../errors.js';
import { assertMode, ENGINE_DEFAULTS } from '../search/options.js';
import { assertPositiveInteger } from '../util/option-checks.js';
import type { SkillSearchEngine } from '../search/engine.js';
import type { AbstainSetting, SearchHit, SearchMode, SearchRequest, SkillSearcher } from '../types.js';
import { percentile, scoreRankings, scoreShown, type QueryOutcome, type RankedItem, type RankingScores } from './metrics.js';
import type { EvalQuery } from './queries.js';
import { detectLanguage, type Language } from '../lang/detect.js';
import { getOrAdd } from '../util/get-or-add.js';

/**
 * The SPEC §7 `eval --json` object plus the `shown` view. Ranking metrics (abstention off) are
 * rounded to 4 digits; `abstain` counts the `relevant: []` queries that showed nothing.
 */
export interface EvalReport extends Omit<RankingScores, 'labelled'> {
  readonly queries: number;
  readonly k: number;
  readonly mode: SearchMode;
  /** What a user receives for the answerable queries (abstention on, as `query`, the hook and prefetch apply it). */
  readonly shown: { readonly hitAt1: number; readonly hitAt5: number; readonly blank: number; readonly answerable: number };
  /** Of the user-facing search. */
  readonly latencyMs: { readonly p50: number; readonly p95: number; readonly p99: number };
  /** Ranking view per query language (`scoreByLanguage`). */
  readonly byLanguage: Partial<Record<Language, LanguageScores>>;
}

/** One line of `eval --per-query`: what was ranked, what was shown, and why nothing was. */
export interface QueryRecord {
  readonly id: string;
  readonly query: string;
  readonly relevant: readonly string[];
  /** Abstention off, best first. */
  readonly ranked: readonly { readonly name: string; readonly id: string; readonly score: number }[];
  /** Abstention on: what the user sees. */
  readonly shown: readonly { readonly name: string; readonly id: string; readonly score: number }[];
  /** Set when nothing was shown. */
  readonly abstained?: string;
}

export interface EvalOptions {
  /** Echoed in the report; ranking metrics always look at the top 10 (or k when larger). @default 10 */
  readonly k?: number;
  /** @default `ENGINE_DEFAULTS.mode` */
  readonly mode?: SearchMode;
  /** The abstention applied to the `shown` view and to `relevant: []` queries. @default the searcher's own */
  readonly abstain?: AbstainSetting;
  /** The score below which the searcher abstains with `abstain`, to explain blanks in {@link QueryRecord}s. */
  readonly threshold?: number;
  /** Explains an empty answer in words (overrides the `threshold` sentence), e.g. from `SkillSearchEngine.explain`. */
  readonly explainBlank?: (query: string) => Promise<string>;
  readonly signal?: AbortSignal;
  /** Called after each query. */
  readonly onProgress?: (done: number, total: number) => void;
  /** Called with each query's record, in order (e.g. to write `--per-query` JSONL). */
  readonly onRecord?: (record: QueryRecord) => void;
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));
/** The report's ranking metrics, in the order it lists them. */
const RANKING_METRICS = ['hitAt1', 'hitAt5', 'hitAt10', 'recallAt5', 'recallAt10', 'mrr', 'ndcgAt10'] as const;
const asRanked = (hits: readonly SearchHit[]): RankedItem[] => hits.map((hit) => ({ id: hit.skill.id, name: hit.skill.name }));
const asScored = (hits: readonly SearchHit[]): QueryRecord['ranked'] =>
  hits.map((hit) => ({ name: hit.skill.name, id: hit.skill.id, score: round(hit.score, 4) }));

function whyBlank(ranked: readonly SearchHit[], threshold: number | undefined): string {
  if (ranked.length === 0) return 'no skill matched at all';
  const best = ranked[0]!.score;
  return threshold === undefined
    ? `best score ${best.toFixed(3)} did not pass abstention`
    : `best score ${best.toFixed(3)} < threshold ${threshold.toFixed(3)}`;
}

/**
 * Runs every query twice: as a user would (abstention on: `shown`, `abstain`, latency; first, so
 * the other may reuse its vector), then with `abstain: false` for the ranking metrics.
 */
export async function runEval(engine: SkillSearcher, queries: readonly EvalQuery[], options: EvalOptions = {}): Promise<EvalReport> {
  const k = options.k === undefined ? 10 : assertPositiveInteger('k', options.k);
  const mode = options.mode === undefined ? ENGINE_DEFAULTS.mode : assertMode('mode', options.mode);
  const depth = Math.max(10, k);
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  const abstain = options.abstain ?? true;
  const rankings: QueryOutcome[] = [];
  const shown: QueryOutcome[] = [];
  const latencies: number[] = [];

  for (const [n, item] of queries.entries()) {
    throwIfAborted(options.signal);
    const started = performance.now();
    const visible = await engine.search(item.query, { k: depth, mode, abstain, ...signal });
    latencies.push(performance.now() - started);
    const ranked = await engine.search(item.query, { k: depth, mode, abstain: false, ...signal });
    rankings.push({ relevant: item.relevant, ranked: asRanked(ranked), suggested: visible.length });
    shown.push({ relevant: item.relevant, ranked: asRanked(visible) });
    options.onRecord?.({
      id: item.id,
      query: item.query,
      relevant: item.relevant,
      ranked: asScored(ranked),
      shown: asScored(visible),
      ...(visible.length === 0
        ? { abstained: options.explainBlank !== undefined && ranked.length > 0 ? await options.explainBlank(item.query) : whyBlank(ranked, options.threshold) }
        : {}),
    });
    options.onProgress?.(n + 1, queries.length);
  }

  const scores = scoreRankings(rankings);
  const view = scoreShown(shown);
  latencies.sort((a, b) => a - b);
  return {
    queries: queries.length,
    k,
    mode,
    ...(Object.fromEntries(RANKING_METRICS.map((key) => [key, round(scores[key], 4)])) as Record<(typeof RANKING_METRICS)[number], number>),
    abstain: scores.abstain,
    shown: { hitAt1: round(view.hitAt1, 4), hitAt5: round(view.hitAt5, 4), blank: round(view.blank, 4), answerable: view.answerable },
    latencyMs: { p50: round(percentile(latencies, 50), 2), p95: round(percentile(latencies, 95), 2), p99: round(percentile(latencies, 99), 2) },
    byLanguage: scoreByLanguage(queries.map((item, i) => ({ query: item.query, outcome: rankings[i]! }))),
  };
}

/** Why `engine` showed nothing: `P(answerable) 0.21 × P(fits) 0.38 for "pdf" = 0.080 < threshold 0.125`. */
export function blankExplainer(engine: Pick<SkillSearchEngine, 'explain'>, request: SearchRequest): (query: string) => Promise<string> {
  return async (query) => {
    const { answerable, threshold, hits } = await engine.explain(query, request);
    const best = hits[0];
    if (best === undefined) return 'no skill matched at all';
    return `P(answerable) ${answerable.toFixed(2)} × P(fits) ${best.fits.toFixed(2)} for "${best.name}" = ${best.score.toFixed(3)} < threshold ${threshold.toFixed(3)}`;
  };
}

/** Ranking scores of the labelled queries written in one language. */
export interface LanguageScores {
  /** Labelled queries in this language (the denominator). */
  readonly queries: number;
  readonly hitAt1: number;
  readonly hitAt5: number;
  readonly mrr: number;
}

/** `eval`'s `byLanguage` block: the queries grouped by `detectLanguage`, each group with labelled queries scored like the whole set. */
export function scoreByLanguage(runs: readonly { readonly query: string; readonly outcome: QueryOutcome }[]): Partial<Record<Language, LanguageScores>> {
  const groups = new Map<Language, QueryOutcome[]>();
  for (const { query, outcome } of runs) {
    getOrAdd(groups, detectLanguage(query), () => []).push(outcome);
  }
  const out: Partial<Record<Language, LanguageScores>> = {};
  for (const [language, outcomes] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const scores = scoreRankings(outcomes);
    if (scores.labelled === 0) continue;
    out[language] = { queries: scores.labelled, hitAt1: round(scores.hitAt1, 4), hitAt5: round(scores.hitAt5, 4), mrr: round(scores.mrr, 4) };
  }
  return out;
}
