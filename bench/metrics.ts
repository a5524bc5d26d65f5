/**
 * Retrieval metrics for the benchmarks. Ranking quality is scored by the library's own
 * `scoreRankings` (SPEC §7: hit@k when any relevant name or id is in the top k; `relevant: []`
 * queries count only under `abstain`), so every mode, the brute-force baseline and
 * `skill-search eval` share one definition. The rest are bench-only measures.
 */
import { scoreRankings, type QueryOutcome, type RankedItem } from '../src/eval/metrics.js';

export type { QueryOutcome, RankedItem };

export interface HitRate {
  readonly queries: number;
  readonly hitAt1: number;
  readonly hitAt5: number;
  readonly hitAt10: number;
  readonly recallAt10: number;
  readonly mrr: number;
  readonly ndcgAt10: number;
  readonly abstain: { readonly queries: number; readonly correct: number };
}

export function scoreOutcomes(outcomes: readonly QueryOutcome[]): HitRate {
  const { labelled, hitAt1, hitAt5, hitAt10, recallAt10, mrr, ndcgAt10, abstain } = scoreRankings(outcomes);
  return { queries: labelled, hitAt1, hitAt5, hitAt10, recallAt10, mrr, ndcgAt10, abstain };
}

/** |A ∩ B| / |B| for two top-k id lists: how much of the exact top-k an ANN index found. */
export function overlapAt(approx: readonly (string | number)[], exact: readonly (string | number)[]): number {
  if (exact.length === 0) return 1;
  const set = new Set(approx);
  return exact.filter((id) => set.has(id)).length / exact.length;
}

/** Percentile by nearest rank over a copy; `p` in [0, 100]. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** `value / baseline`, or null when the baseline is missing or zero (never Infinity in the JSON). */
export function ratio(value: number | undefined, baseline: number | undefined): number | null {
  if (value === undefined || baseline === undefined || !Number.isFinite(value) || !Number.isFinite(baseline)) return null;
  if (baseline === 0) return value === 0 ? 1 : null;
  return value / baseline;
}
