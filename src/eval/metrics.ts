/** Nearest-rank percentile of ascending `sorted` (0 when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

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

/**
 * Scores ranked outcomes (SPEC §7). hit@k: a relevant item in the top k; MRR: 1 / rank of the
 * first; recall@k: share of the distinct relevant entries in the top k; nDCG@10 with binary
 * gains. `relevant: []` queries only count towards `abstain` (correct when nothing is suggested).
 */
export function scoreRankings(outcomes: readonly QueryOutcome[]): RankingScores {
  const scored = outcomes.filter((outcome) => outcome.relevant.length > 0);
  const unanswerable = outcomes.filter((outcome) => outcome.relevant.length === 0);
  const abstain = { queries: unanswerable.length, correct: unanswerable.filter((outcome) => (outcome.suggested ?? outcome.ranked.length) === 0).length };
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
  const means = Object.fromEntries(Object.entries(sums).map(([key, sum]) => [key, labelled === 0 ? 0 : sum / labelled])) as typeof sums;
  return { labelled, ...means, abstain };
}

/** What a user sees for answerable queries (abstention on), as unrounded shares. */
export interface ShownScores {
  /** Answerable (labelled) queries: the denominator of every share. */
  readonly answerable: number;
  /** A relevant skill shown first. */
  readonly hitAt1: number;
  /** A relevant skill among the first five shown. */
  readonly hitAt5: number;
  /** Nothing shown at all. */
  readonly blank: number;
}

/** Scores what was shown with abstention on (`ranked` = the shown hits) over the labelled queries: hit@k as {@link scoreRankings}'. */
export function scoreShown(outcomes: readonly QueryOutcome[]): ShownScores {
  const { labelled, hitAt1, hitAt5 } = scoreRankings(outcomes);
  const blank = outcomes.filter((outcome) => outcome.relevant.length > 0 && outcome.ranked.length === 0).length;
  return { answerable: labelled, hitAt1, hitAt5, blank: labelled === 0 ? 0 : blank / labelled };
}
