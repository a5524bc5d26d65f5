import type { LexicalMatch } from '../lexical/lexical-index.js';
import { TopK } from '../vector-index/top-k.js';
import { denseOrder, type DenseMatch, type DenseScore } from './dense-query.js';
import { BOUNDARY_DEPTH, boundaryHits, type Boundary } from './boundaries.js';
import {
  boundedScore,
  clearLexicalFirst,
  gatherCandidates,
  hybridScore,
  keepClearFirstAbove,
  lexicalEvidenceShare,
  liftedScore,
  type FusionParameters,
} from './fusion.js';
import type { QueryEvidence, RankedEvidence } from './relevance.js';
import { BUNDLED_RERANKERS, rerankedOrders, type RerankCandidate, type RerankModel } from './rerank.js';

/**
 * Candidates: each mode's ranked list, best first, with the evidence every hit was ranked on.
 * Nothing is dropped here; abstention comes later (`abstention.ts`), on calibrated scores.
 */
export interface RankedList {
  readonly ranked: readonly RankedEvidence[];
  readonly query: QueryEvidence;
}

type NameOf = (id: string) => string;

/** BM25 order; `order` is BM25 relative to the first hit's. */
export function rankLexical(lexical: readonly LexicalMatch[], terms: ReadonlySet<string>, k: number, nameOf: NameOf): RankedList {
  const best = lexical[0]?.score ?? 0;
  const ranked = lexical.slice(0, k).map((match) => ({
    id: match.id,
    name: nameOf(match.id),
    order: best > 0 ? match.score / best : 0,
    lexical: match.score,
    coverage: match.coverage,
  }));
  return { ranked, query: { terms, bestLexical: best, bestCoverage: Math.max(0, ...lexical.map((match) => match.coverage)) } };
}

/**
 * What the relevance model reads of the dense matches, whatever orders them: the second-highest
 * centred cosine (its margin) and the dense side's first.
 */
function denseEvidence(dense: readonly DenseMatch[]): Pick<QueryEvidence, 'secondCentered' | 'denseFirst'> {
  if (dense.length === 0) return {};
  let first = Number.NEGATIVE_INFINITY;
  let second = Number.NEGATIVE_INFINITY;
  for (const { centered } of dense) {
    if (centered > first) [first, second] = [centered, first];
    else if (centered > second) second = centered;
  }
  return { ...(dense.length < 2 ? {} : { secondCentered: second }), denseFirst: dense[0]!.id };
}

/** Dense order: the centred cosine, the score the dense mode's fitted relevance model reads as `order` (docs/retrieval.md, "Centring"). */
export function rankDense(matches: readonly DenseMatch[], catalogCosine: number, terms: ReadonlySet<string>, k: number, nameOf: NameOf): RankedList {
  const dense = [...matches].sort((a, b) => b.centered - a.centered || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const ranked = dense.slice(0, k).map((match) => ({
    id: match.id,
    name: nameOf(match.id),
    order: match.centered,
    cosine: match.cosine,
    centered: match.centered,
    plain: match.plain,
  }));
  return { ranked, query: { terms, catalogCosine, ...denseEvidence(dense) } };
}

/** What hybrid ranking reads about skills' boundaries: each candidate's, and the ids a named alternative resolves to. */
export interface BoundaryLookup {
  readonly of: (id: string) => Boundary | undefined;
  readonly named: (normalizedName: string) => readonly string[] | undefined;
}

/**
 * Each candidate's ordering score after boundaries: a candidate whose "not for" words the request
 * uses is scored down, and the candidates it names as alternatives up (each by its strongest such
 * mention), see `fusion.ts`. Only the first {@link BOUNDARY_DEPTH} candidates are read for
 * boundaries; only candidates already in the list move.
 */
function applyBoundaries(orders: Map<string, number>, terms: ReadonlySet<string>, lookup: BoundaryLookup, weights: FusionParameters['boundaries']): void {
  const raised = new Map<string, number>();
  const top = [...orders].sort((a, b) => b[1] - a[1]).slice(0, BOUNDARY_DEPTH);
  for (const [id, order] of top) {
    const boundary = lookup.of(id);
    if (boundary === undefined) continue;
    const hits = boundaryHits(boundary, terms);
    if (hits === 0) continue;
    orders.set(id, boundedScore(order, hits, weights.penalty));
    for (const name of boundary.instead) {
      for (const other of lookup.named(name) ?? []) {
        if (other !== id && orders.has(other)) raised.set(other, Math.max(raised.get(other) ?? 0, hits));
      }
    }
  }
  for (const [id, hits] of raised) orders.set(id, liftedScore(orders.get(id)!, hits, weights.insteadBoost));
}

/** Fused order (see `fusion.ts`) over the union of both rankers' candidates; `exclude` ids are left out. */
export function rankHybrid(
  dense: readonly DenseMatch[],
  catalogCosine: number,
  lexical: readonly LexicalMatch[],
  denseOf: (id: string) => DenseScore,
  fusion: FusionParameters & {
    readonly keepLexical: number;
    readonly keepLexicalWithin: number;
    readonly evidenceRerank?: boolean | RerankModel;
    /** Whether the centred cosine orders the dense side (`EngineOptions.centring`). @default true */
    readonly centring?: boolean;
  },
  terms: ReadonlySet<string>,
  k: number,
  nameOf: NameOf,
  exclude: readonly string[] = [],
  boundaries?: BoundaryLookup,
): RankedList {
  const candidates = gatherCandidates(dense, lexical, denseOf);
  const lexicalOf = new Map(lexical.map((match) => [match.id, match]));
  const centring = fusion.centring !== false;
  let denseMin = Number.POSITIVE_INFINITY;
  let denseMax = Number.NEGATIVE_INFINITY;
  for (const candidate of candidates.values()) {
    denseMin = Math.min(denseMin, denseOrder(candidate, centring));
    denseMax = Math.max(denseMax, denseOrder(candidate, centring));
  }
  const bestLexical = lexical[0]?.score ?? 0;
  const context = {
    bestLexical,
    centring,
    denseMin,
    denseMax,
    denseShare: lexicalEvidenceShare(fusion.denseShare, lexical, fusion.lexicalEvidence),
    coverageShare: fusion.coverageShare,
  };
  const orders = new Map<string, number>();
  const evidence = new Map<string, Omit<RankedEvidence, 'order'> & RerankCandidate>();
  for (const candidate of candidates.values()) {
    const { id } = candidate;
    if (exclude.includes(id)) continue;
    orders.set(id, hybridScore(candidate, context));
    evidence.set(id, {
      id,
      name: nameOf(id),
      order: 0,
      cosine: candidate.dense,
      centered: candidate.centered,
      plain: candidate.plain,
      lexical: candidate.lexical,
      coverage: candidate.coverage,
      weightedCoverage: lexicalOf.get(id)?.weightedCoverage ?? 0,
      rarest: lexicalOf.get(id)?.rarest ?? 0,
    });
  }
  const ids = [...orders.keys()];
  if (fusion.lexicalEvidence.keepAbove && lexical[0] !== undefined && orders.has(lexical[0].id) && clearLexicalFirst(lexical, fusion.lexicalEvidence)) {
    const values = ids.map((id) => orders.get(id)!);
    keepClearFirstAbove(
      values,
      ids.map((id) => candidates.get(id)!.coverage),
      ids.indexOf(lexical[0].id),
    );
    ids.forEach((id, i) => orders.set(id, values[i]!));
  }
  // `evidenceRerank`: true is the bundled skill-library model; a model object is the caller's (the ranker's per catalogue kind, tests, fits).
  const rerank = fusion.evidenceRerank === true ? BUNDLED_RERANKERS.skills : fusion.evidenceRerank || undefined;
  if (rerank !== undefined && rerank.depth > 0) {
    const reranked = rerankedOrders(
      ids.map((id) => ({ ...evidence.get(id)!, order: orders.get(id)! })),
      terms,
      rerank,
    );
    ids.forEach((id, i) => orders.set(id, reranked[i]!));
  }
  if (boundaries !== undefined && (fusion.boundaries.penalty > 0 || fusion.boundaries.insteadBoost > 0))
    applyBoundaries(orders, terms, boundaries, fusion.boundaries);
  const guard = fusion.keepLexicalWithin;
  const depth = Math.max(k, guard);
  const top = new TopK<RankedEvidence>(depth);
  const hits = new Map<string, RankedEvidence>();
  for (const [id, order] of orders) {
    const hit = { ...evidence.get(id)!, order };
    hits.set(id, hit);
    top.push(hit, order);
  }
  let ranked = top.sorted().map(({ item }) => item);
  // The lexical ranker's best hits stay within the first `guard`, in its order, taking the last places.
  const first = ranked.slice(0, guard);
  const missing = lexical
    .slice(0, fusion.keepLexical)
    .map((match) => hits.get(match.id))
    .filter((hit): hit is RankedEvidence => hit !== undefined && !first.includes(hit));
  if (missing.length > 0) {
    const rest = ranked.filter((hit) => !missing.includes(hit));
    ranked = [...rest.slice(0, guard - missing.length), ...missing, ...rest.slice(guard - missing.length)];
  }
  return {
    ranked: ranked.slice(0, k),
    query: {
      terms,
      catalogCosine,
      bestLexical,
      bestCoverage: Math.max(0, ...lexical.map((match) => match.coverage)),
      ...denseEvidence(dense),
      ...(lexical[0] === undefined ? {} : { lexicalFirst: lexical[0].id }),
    },
  };
}
