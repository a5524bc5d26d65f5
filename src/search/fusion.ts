/**
 * Turning two rankers into one score. The dense component is an absolute cosine mapped
 * linearly onto [0, 1]; the lexical component is BM25 relative to the query's best lexical
 * hit, scaled by how many query terms the document matched (so a lone weak match cannot
 * look like a full one). Their weighted mean is the calibrated hybrid score in [0, 1] that
 * abstention thresholds apply to.
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
}

export function denseComponent(cosine: number, range: CalibrationParameters['denseRange']): number {
  return Math.min(1, Math.max(0, (cosine - range.low) / (range.high - range.low)));
}

export function lexicalComponent(candidate: Candidate, bestLexical: number): number {
  if (candidate.lexical <= 0 || bestLexical <= 0) return 0;
  return (candidate.lexical / bestLexical) * candidate.coverage;
}

/** The calibrated hybrid score in [0, 1]. */
export function calibratedScore(candidate: Candidate, bestLexical: number, parameters: CalibrationParameters): number {
  const { weights } = parameters;
  const total = weights.dense + weights.lexical;
  return (
    (weights.dense * denseComponent(candidate.dense, parameters.denseRange) +
      weights.lexical * lexicalComponent(candidate, bestLexical)) /
    total
  );
}

/** Reciprocal-rank fusion (Cormack et al. 2009), k = 60. Ordering only; not calibrated. */
export const RRF_K = 60;
export function rrfScore(candidate: Candidate): number {
  return 1 / (RRF_K + candidate.denseRank) + 1 / (RRF_K + candidate.lexicalRank);
}
