import type { LexicalMatch } from '../lexical/lexical-index.js';
import type { DenseMatch, DenseScore } from './dense-query.js';

/**
 * Fusion: one ordering score in [0, 1] from the two rankers. Each ranker is normalised over
 * this query's candidates (centred cosine min-max, see `centering.ts`; BM25 relative to the best
 * lexical hit) and the two are mixed with a dense share that depends on the query's length:
 * sentence encoders blur long texts into an average while BM25 gains evidence from every extra
 * word, so past `longQuery.terms` distinct terms the dense share slides linearly to
 * `longQuery.denseShare` at twice that length. How the constants were chosen: docs/retrieval.md.
 *
 * The ordering score says nothing about whether the best hit is any good (the top of each list
 * always gets 1): that is the job of `relevance.ts`.
 */
export interface Candidate {
  readonly id: string;
  /** Cosine similarity with the whole message (always known: computed for lexical-only candidates too). */
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

export interface FusionParameters {
  /** Share of the ordering score given to the dense ranker for queries of up to `longQuery.terms` terms. */
  readonly denseShare: number;
  readonly longQuery: { readonly terms: number; readonly denseShare: number };
}

/** What ordering needs to know about the query as a whole. */
export interface QueryContext {
  /** The query's best BM25 score. */
  readonly bestLexical: number;
  /** Lowest and highest centred cosine among the query's candidates. */
  readonly denseMin: number;
  readonly denseMax: number;
  /** From {@link denseShareFor}. */
  readonly denseShare: number;
}

/** The dense share for a query of `terms` distinct terms (see the file comment). */
export function denseShareFor(terms: number, parameters: FusionParameters): number {
  const { terms: long, denseShare: longShare } = parameters.longQuery;
  const t = Math.min(1, Math.max(0, (terms - long) / long));
  return parameters.denseShare + (longShare - parameters.denseShare) * t;
}

/** The hybrid ordering score in [0, 1]. */
export function hybridScore(candidate: Candidate, query: QueryContext): number {
  const span = query.denseMax - query.denseMin;
  const dense = span > 0 ? (candidate.centered - query.denseMin) / span : 1;
  const lexical = candidate.lexical > 0 && query.bestLexical > 0 ? candidate.lexical / query.bestLexical : 0;
  return query.denseShare * dense + (1 - query.denseShare) * lexical;
}

/**
 * One candidate per skill either ranker returned: dense matches in their (centred) order, then
 * lexical ones; a lexical-only candidate gets its dense evidence from `denseOf`, so both parts of
 * its score are known.
 */
export function gatherCandidates(dense: readonly DenseMatch[], lexical: readonly LexicalMatch[], denseOf: (id: string) => DenseScore): Map<string, Candidate> {
  const candidates = new Map<string, Candidate>();
  dense.forEach((match, i) => {
    candidates.set(match.id, {
      id: match.id,
      dense: match.cosine,
      centered: match.centered,
      denseRank: i + 1,
      lexical: 0,
      lexicalRank: Number.POSITIVE_INFINITY,
      coverage: 0,
    });
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
