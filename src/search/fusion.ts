import type { LexicalMatch } from '../lexical/lexical-index.js';
import type { DenseMatch, DenseScore } from './dense-query.js';

/**
 * Turning two rankers into one score, in [0, 1].
 *
 * Ordering: each ranker is normalised over this query's candidates — centred cosine min-max
 * ((c − min) / (max − min), see `centering.ts`), BM25 relative to the best lexical hit — and the
 * two are mixed with a dense share that depends on the query's length: sentence encoders blur
 * long texts into an average (USE-lite ranks long task descriptions far worse than BM25, which
 * gets more evidence from every extra word), so past `longQuery.terms` the dense share slides
 * linearly down to `longQuery.denseShare` at twice that length. Measured on the shared corpora
 * (USE-lite): per-query min-max instead of the absolute cosine mapping gained 4–6 points of
 * MetaTool hit@1; a fixed share high enough for that cost Seal-Tools and skillsbench (long,
 * keyword-rich queries) their lead, which the length ramp gives back. Since the dense side also
 * embeds each sentence (`query-chunks.ts`) it blurs multi-request messages less, and the ramp
 * now runs from 32 to 64 terms down to 0 (was 16 → 32, down to 0.2): a task description of 64+
 * distinct terms is ordered by BM25 alone. On the MetaTool dev sample that raised hybrid hit@1
 * 0.510 → 0.517; SkillsBench hit@5 0.919 → 0.952 (the dense side only added noise there).
 *
 * Neither normalised score says whether the best hit is any good (the top of each list always
 * gets 1), so abstention uses a separate absolute *confidence*: the cosine mapped through
 * `denseRange`, and relative BM25 scaled by the share of query terms the skill matched.
 */
export interface Candidate {
  readonly id: string;
  /** Cosine similarity with the query (always known: computed for lexical-only candidates too); drives confidence. */
  dense: number;
  /** Cosine with the skill's centred vector (see `centering.ts`); drives ordering. */
  centered: number;
  /** 1-based rank in the dense list; Infinity when not in it. */
  denseRank: number;
  /** Raw BM25 score; 0 when the lexical ranker did not match. */
  lexical: number;
  lexicalRank: number;
  coverage: number;
}

export interface CalibrationParameters {
  /** Weights of the confidence's components. */
  readonly weights: { readonly dense: number; readonly lexical: number };
  readonly denseRange: { readonly low: number; readonly high: number };
  /** Ranking multiplies relative BM25 by coverage^this (0: ignore coverage when ordering). */
  readonly coverageExponent: number;
}

export function denseComponent(cosine: number, range: CalibrationParameters['denseRange']): number {
  return Math.min(1, Math.max(0, (cosine - range.low) / (range.high - range.low)));
}

/** The query's best BM25 score and best coverage: lexical evidence is scored relative to them. */
export interface LexicalBest {
  readonly score: number;
  readonly coverage: number;
}

export function lexicalComponent(candidate: Candidate, best: LexicalBest, coverageExponent: number): number {
  if (candidate.lexical <= 0 || best.score <= 0) return 0;
  return (candidate.lexical / best.score) * (candidate.coverage / best.coverage) ** coverageExponent;
}

export interface RankingParameters {
  readonly coverageExponent: number;
  /** Share of the ranking score given to the dense ranker for queries of up to `longQuery.terms` terms. */
  readonly denseShare: number;
  readonly longQuery: { readonly terms: number; readonly denseShare: number };
}

/** What ordering needs to know about the query as a whole. */
export interface QueryContext {
  readonly best: LexicalBest;
  /** Lowest and highest centred cosine among the query's candidates. */
  readonly denseMin: number;
  readonly denseMax: number;
  /** From {@link denseShareFor}. */
  readonly denseShare: number;
}

/** The dense share for a query of `terms` distinct terms (see the file comment). */
export function denseShareFor(terms: number, parameters: RankingParameters): number {
  const { terms: long, denseShare: longShare } = parameters.longQuery;
  const t = Math.min(1, Math.max(0, (terms - long) / long));
  return parameters.denseShare + (longShare - parameters.denseShare) * t;
}

/** The hybrid ranking score in [0, 1]. */
export function hybridScore(candidate: Candidate, query: QueryContext, parameters: RankingParameters): number {
  const span = query.denseMax - query.denseMin;
  const dense = span > 0 ? (candidate.centered - query.denseMin) / span : 1;
  return query.denseShare * dense + (1 - query.denseShare) * lexicalComponent(candidate, query.best, parameters.coverageExponent);
}

/**
 * One candidate per skill either ranker returned: dense matches in their (centred) order, then
 * lexical ones; a lexical-only candidate gets its dense evidence from `denseOf`, so both parts of
 * its score are known.
 */
export function gatherCandidates(dense: readonly DenseMatch[], lexical: readonly LexicalMatch[], denseOf: (id: string) => DenseScore): Map<string, Candidate> {
  const candidates = new Map<string, Candidate>();
  dense.forEach((match, i) => {
    candidates.set(match.id, { id: match.id, dense: match.cosine, centered: match.centered, denseRank: i + 1, lexical: 0, lexicalRank: Number.POSITIVE_INFINITY, coverage: 0 });
  });
  lexical.forEach((match, i) => {
    let candidate = candidates.get(match.id);
    if (candidate === undefined) {
      const score = denseOf(match.id);
      candidate = { id: match.id, dense: score.cosine, centered: score.centered, denseRank: Number.POSITIVE_INFINITY, lexical: 0, lexicalRank: 0, coverage: 0 };
      candidates.set(match.id, candidate);
    }
    candidate.lexical = match.score;
    candidate.lexicalRank = i + 1;
    candidate.coverage = match.coverage;
  });
  return candidates;
}

/** The abstention confidence in [0, 1]: the lexical part scaled by absolute coverage instead. */
export function confidence(candidate: Candidate, best: LexicalBest, parameters: CalibrationParameters): number {
  const { weights } = parameters;
  const lexical = best.score > 0 ? (candidate.lexical / best.score) * candidate.coverage : 0;
  return (weights.dense * denseComponent(candidate.dense, parameters.denseRange) + weights.lexical * lexical) / (weights.dense + weights.lexical);
}

/** Reciprocal-rank fusion (Cormack et al. 2009), k = 60. Ordering only; not calibrated. */
export const RRF_K = 60;
export function rrfScore(candidate: Candidate): number {
  return 1 / (RRF_K + candidate.denseRank) + 1 / (RRF_K + candidate.lexicalRank);
}
