import { inverseFrequency } from '../lexical/bm25-scorer.js';
import type { RankedEvidence } from './relevance.js';

/**
 * The everyday-message gate: a hybrid search shows nothing when no hit has specific evidence.
 * Two ways to lack it: no hit's message cosine reaches `cosine` and the first hit shares at most
 * `matchedTerms` of the message's words ("write a haiku about autumn" sits far from every skill);
 * or the first hit matches at least `coverage` of the message's words but they are common ones
 * ("looks good", "keep going": coding chatter sits near a coding catalogue, so its cosine proves
 * nothing). Common is measured against the catalogue's own scale, since BM25 shrinks with it: the
 * first hit's BM25 per message word, over the IDF of a word only one skill holds, under
 * `bm25Share`. Chosen by `scripts/choose-everyday-gate.ts` (docs/retrieval.md, "Everyday messages").
 */
export interface EverydayGate {
  /** A hit whose raw cosine with the message reaches this is specific evidence; 0 turns the gate off. */
  readonly cosine: number;
  /** A first hit matching more query words than this is specific evidence. */
  readonly matchedTerms: number;
  /** Share of the message's words a first hit of common words only matches at least. */
  readonly coverage: number;
  /** A first hit's BM25 per message word, in units of the catalogue's highest IDF, below this is common words only; 0 turns that clause off. */
  readonly bm25Share: number;
}

/** How many of the message's `terms` distinct words the hit matched lexically (0 when BM25 did not match it). */
export function matchedTermCount(hit: RankedEvidence, terms: number): number {
  return (hit.lexical ?? 0) > 0 ? Math.round((hit.coverage ?? 0) * terms) : 0;
}

/** Whether the first hit matches most of the message's `terms` words, all of them common ones in a catalogue of `skills`. */
function commonWordsOnly(first: RankedEvidence, terms: number, skills: number, gate: EverydayGate): boolean {
  const bm25 = first.lexical ?? 0;
  if (gate.bm25Share <= 0 || terms === 0 || bm25 <= 0 || (first.coverage ?? 0) < gate.coverage) return false;
  return bm25 / terms < gate.bm25Share * inverseFrequency(skills, 1);
}

/**
 * Whether a hybrid ranked list (best first, as deep as relevance reads) over a catalogue of
 * `skills` lacks specific evidence. Lists without both rankers' evidence (dense or lexical mode)
 * are never gated.
 */
export function lacksSpecificEvidence(ranked: readonly RankedEvidence[], terms: number, skills: number, gate: EverydayGate): boolean {
  const first = ranked[0];
  if (gate.cosine <= 0 || first === undefined || first.cosine === undefined || first.lexical === undefined) return false;
  if (commonWordsOnly(first, terms, skills, gate)) return true;
  if (ranked.some((hit) => (hit.cosine ?? 0) >= gate.cosine)) return false;
  return matchedTermCount(first, terms) <= gate.matchedTerms;
}
