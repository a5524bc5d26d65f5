import type { LexicalMatch } from '../lexical/lexical-index.js';
import { denseOrder, type DenseMatch, type DenseScore } from './dense-query.js';
import type { LexicalEvidenceKnobs, LongQuery, ResolvedEngineOptions } from './options.js';

/**
 * Fusion: one ordering score in [0, 1] from the two rankers. Each ranker is normalised over this
 * query's candidates (centred or plain cosine min-max, see `centering.ts`; BM25 relative to the
 * best lexical hit) and the two are mixed with a dense share that depends on the query's length:
 * sentence encoders blur long texts into an average while BM25 gains evidence from every extra
 * word (`EngineOptions.longQuery`). The ordering score says nothing about whether the best hit is
 * any good (the top of each list always gets 1): that is the job of `relevance.ts`.
 */
export interface Candidate {
  readonly id: string;
  /** Cosine similarity with the whole message (always known: computed for lexical-only candidates too). */
  dense: number;
  /** Best cosine with the skill's centred vector (see `centering.ts`). */
  centered: number;
  /** Best plain cosine; this or `centered` drives the dense side's part of the order (`QueryContext.centring`). */
  plain: number;
  /** Raw BM25 score; 0 when the lexical ranker did not match. */
  lexical: number;
  coverage: number;
}

/** The fusion knobs (documented on `EngineOptions`). */
export type FusionParameters = Pick<ResolvedEngineOptions, 'denseShare' | 'coverageShare' | 'lexicalEvidence' | 'boundaries'>;

/**
 * Whether BM25's first hit (of `lexical`, best first) is a clear match: it scores at least
 * `margin` times the second and covers at least `coverage` of the query's terms (`margin` 0: never).
 */
export function clearLexicalFirst(lexical: readonly { readonly score: number; readonly coverage: number }[], evidence: LexicalEvidenceKnobs): boolean {
  const [first, second] = lexical;
  if (evidence.margin <= 0 || first === undefined || first.score <= 0 || first.coverage < evidence.coverage) return false;
  return second === undefined || second.score <= 0 || first.score >= evidence.margin * second.score;
}

/** The dense share once the lexical evidence is weighed: `share`, or the cap when BM25's first hit is clear. */
export function lexicalEvidenceShare(
  share: number,
  lexical: readonly { readonly score: number; readonly coverage: number }[],
  evidence: LexicalEvidenceKnobs,
): number {
  return clearLexicalFirst(lexical, evidence) ? Math.min(share, evidence.denseShare) : share;
}

/**
 * Raises `orders[first]` (BM25's clear first hit) just above every candidate that matches fewer
 * of the query's terms (`coverages`, 0 for a candidate BM25 did not match), within [0, 1].
 */
export function keepClearFirstAbove(orders: number[], coverages: readonly number[], first: number): void {
  let above = orders[first]!;
  for (let i = 0; i < orders.length; i += 1) if (i !== first && coverages[i]! < coverages[first]! && orders[i]! >= above) above = orders[i]! + 1e-9;
  orders[first] = Math.min(1, above);
}

/** The ordering score scaled down by `penalty` per query term only the skill's "not for" clauses use, at most two. */
export function boundedScore(order: number, boundaryTerms: number, penalty: number): number {
  return order * Math.max(0, 1 - penalty * Math.min(2, boundaryTerms));
}

/**
 * The ordering score of a skill another one names as the alternative for a request on its
 * boundary: moved `insteadBoost` per boundary term (at most two) of the way to 1, so scores stay in
 * [0, 1] and keep their order.
 */
export function liftedScore(order: number, boundaryTerms: number, insteadBoost: number): number {
  return order + Math.min(1, insteadBoost * Math.min(2, boundaryTerms)) * (1 - order);
}

/** What ordering needs to know about the query as a whole. */
export interface QueryContext {
  readonly bestLexical: number;
  /** Whether the centred cosine orders the dense side (`EngineOptions.centring`); false: the plain one. */
  readonly centring: boolean;
  /** Lowest and highest of that score among the query's candidates. */
  readonly denseMin: number;
  readonly denseMax: number;
  readonly denseShare: number;
  readonly coverageShare: number;
}

/** The dense share for a query of `terms` distinct terms under the ramp of the catalogue's kind (`EngineOptions.longQuery`). */
export function denseShareFor(terms: number, parameters: { readonly denseShare: number; readonly longQuery: LongQuery }): number {
  const { terms: long, denseShare: longShare } = parameters.longQuery;
  const t = Math.min(1, Math.max(0, (terms - long) / long));
  return parameters.denseShare + (longShare - parameters.denseShare) * t;
}

/** The hybrid ordering score in [0, 1]. */
export function hybridScore(candidate: Candidate, query: QueryContext): number {
  const span = query.denseMax - query.denseMin;
  const dense = span > 0 ? (denseOrder(candidate, query.centring) - query.denseMin) / span : 1;
  const lexical = candidate.lexical > 0 && query.bestLexical > 0 ? candidate.lexical / query.bestLexical : 0;
  const coverage = candidate.lexical > 0 ? candidate.coverage : 0;
  return (1 - query.coverageShare) * (query.denseShare * dense + (1 - query.denseShare) * lexical) + query.coverageShare * coverage;
}

/**
 * One candidate per skill either ranker returned: dense matches in their order, then lexical
 * ones; a lexical-only candidate gets its dense evidence from `denseOf`, so both parts of its
 * score are known.
 */
export function gatherCandidates(dense: readonly DenseMatch[], lexical: readonly LexicalMatch[], denseOf: (id: string) => DenseScore): Map<string, Candidate> {
  const candidates = new Map<string, Candidate>();
  for (const match of dense)
    candidates.set(match.id, { id: match.id, dense: match.cosine, centered: match.centered, plain: match.plain, lexical: 0, coverage: 0 });
  for (const match of lexical) {
    let candidate = candidates.get(match.id);
    if (candidate === undefined) {
      const score = denseOf(match.id);
      candidate = { id: match.id, dense: score.cosine, centered: score.centered, plain: score.plain, lexical: 0, coverage: 0 };
      candidates.set(match.id, candidate);
    }
    candidate.lexical = match.score;
    candidate.coverage = match.coverage;
  }
  return candidates;
}
