import type { RankedEvidence } from './relevance.js';

/**
 * The everyday-message gate: a hybrid search shows nothing when no hit has specific evidence,
 * that is when no hit's message cosine reaches `cosine` and the first hit shares at most
 * `matchedTerms` of the message's words. "thanks, that worked!" or "write a haiku about autumn"
 * share one common word with some skill ("writing", "time") and sit far from every skill's
 * vector; the relevance model, fitted mostly on tool catalogs whose requests are all tasks,
 * still scores such a first hit above the threshold. Chosen by `scripts/choose-everyday-gate.ts`
 * (docs/retrieval.md, "Everyday messages").
 */
export interface EverydayGate {
  /** A hit whose raw cosine with the message reaches this is specific evidence; 0 turns the gate off. */
  readonly cosine: number;
  /** A first hit matching more query words than this is specific evidence. */
  readonly matchedTerms: number;
}

/** How many of the message's `terms` distinct words the hit matched lexically (0 when BM25 did not match it). */
export function matchedTermCount(hit: RankedEvidence, terms: number): number {
  return (hit.lexical ?? 0) > 0 ? Math.round((hit.coverage ?? 0) * terms) : 0;
}

/**
 * Whether a hybrid ranked list (best first, as deep as relevance reads) lacks specific evidence.
 * Lists without both rankers' evidence (dense or lexical mode) are never gated.
 */
export function lacksSpecificEvidence(ranked: readonly RankedEvidence[], terms: number, gate: EverydayGate): boolean {
  const first = ranked[0];
  if (gate.cosine <= 0 || first === undefined || first.cosine === undefined || first.lexical === undefined) return false;
  if (ranked.some((hit) => (hit.cosine ?? 0) >= gate.cosine)) return false;
  return matchedTermCount(first, terms) <= gate.matchedTerms;
}
