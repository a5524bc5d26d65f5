/**
 * Turning two rankers into one score, in [0, 1]. The dense component is an absolute cosine
 * mapped linearly onto [0, 1]; the lexical component is BM25 relative to the query's best
 * lexical hit. Their weighted mean orders the hits.
 *
 * Relative BM25 says nothing about whether the best hit is any good (the top lexical hit
 * always gets 1), so abstention uses a separate *confidence*: the same mean with the lexical
 * component scaled by the share of query terms the skill matched. Measured on the shared
 * corpora, putting that coverage factor into the ordering too cost 15 points of hit@1 on
 * long task descriptions (skillsbench), where every skill matches a small share of the words.
 */
export interface Candidate {
  readonly id: string;
  /** Cosine similarity with the query (always known: computed for lexical-only candidates too). */
  dense: number;
  /** 1-based rank in the dense list; Infinity when not in it. */
  denseRank: number;
  /** Raw BM25 score; 0 when the lexical ranker did not match. */
  lexical: number;
  lexicalRank: number;
  coverage: number;
}

export interface CalibrationParameters {
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

/** The hybrid ranking score in [0, 1]. */
export function hybridScore(candidate: Candidate, best: LexicalBest, parameters: CalibrationParameters): number {
  const { weights } = parameters;
  return (
    (weights.dense * denseComponent(candidate.dense, parameters.denseRange) +
      weights.lexical * lexicalComponent(candidate, best, parameters.coverageExponent)) /
    (weights.dense + weights.lexical)
  );
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
