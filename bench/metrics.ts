/**
 * Retrieval metrics, computed here rather than borrowed from the engine so that every
 * mode — and the brute-force baseline — is scored by one definition (SPEC §7):
 * hit@k counts a query when any relevant name or id is in the top k; queries with
 * `relevant: []` are scored only under `abstain` (correct when nothing is suggested).
 */

/** A ranked result, reduced to what relevance is judged on. */
export interface RankedItem {
  readonly id: string;
  readonly name: string;
}

export interface QueryOutcome {
  readonly relevant: readonly string[];
  readonly ranked: readonly RankedItem[];
  /** What the engine would actually suggest with abstention on; used only for `relevant: []`. */
  readonly suggested?: number;
}

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

const isRelevant = (item: RankedItem, relevant: ReadonlySet<string>): boolean =>
  relevant.has(item.id) || relevant.has(item.name);

/** 1-based rank of the first relevant item, or 0 when none is ranked. */
export function firstRelevantRank(ranked: readonly RankedItem[], relevant: readonly string[]): number {
  const set = new Set(relevant);
  const index = ranked.findIndex((item) => isRelevant(item, set));
  return index + 1;
}

/**
 * nDCG@k with binary gains. A relevant name counts once even when several ranked items
 * carry it (shadowed duplicates), so the ideal ranking is one slot per relevant label.
 */
export function ndcgAt(ranked: readonly RankedItem[], relevant: readonly string[], k: number): number {
  const set = new Set(relevant);
  const seen = new Set<string>();
  let dcg = 0;
  ranked.slice(0, k).forEach((item, index) => {
    const label = set.has(item.id) ? item.id : set.has(item.name) ? item.name : undefined;
    if (label === undefined || seen.has(label)) return;
    seen.add(label);
    dcg += 1 / Math.log2(index + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(set.size, k); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

function recallAt(ranked: readonly RankedItem[], relevant: readonly string[], k: number): number {
  const set = new Set(relevant);
  const found = new Set<string>();
  for (const item of ranked.slice(0, k)) {
    if (set.has(item.id)) found.add(item.id);
    else if (set.has(item.name)) found.add(item.name);
  }
  return set.size === 0 ? 0 : found.size / set.size;
}

export function scoreOutcomes(outcomes: readonly QueryOutcome[]): HitRate {
  let scored = 0;
  let hit1 = 0;
  let hit5 = 0;
  let hit10 = 0;
  let recall = 0;
  let mrr = 0;
  let ndcg = 0;
  let negatives = 0;
  let abstained = 0;
  for (const outcome of outcomes) {
    if (outcome.relevant.length === 0) {
      negatives++;
      if ((outcome.suggested ?? outcome.ranked.length) === 0) abstained++;
      continue;
    }
    scored++;
    const rank = firstRelevantRank(outcome.ranked, outcome.relevant);
    if (rank === 1) hit1++;
    if (rank >= 1 && rank <= 5) hit5++;
    if (rank >= 1 && rank <= 10) hit10++;
    if (rank >= 1) mrr += 1 / rank;
    recall += recallAt(outcome.ranked, outcome.relevant, 10);
    ndcg += ndcgAt(outcome.ranked, outcome.relevant, 10);
  }
  const mean = (sum: number): number => (scored === 0 ? 0 : sum / scored);
  return {
    queries: scored,
    hitAt1: mean(hit1),
    hitAt5: mean(hit5),
    hitAt10: mean(hit10),
    recallAt10: mean(recall),
    mrr: mean(mrr),
    ndcgAt10: mean(ndcg),
    abstain: { queries: negatives, correct: abstained },
  };
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
