import { tokenize } from '../lexical/tokenize.js';
import type { SearchMode } from '../types.js';
import { humanizeName } from './skill-text.js';

/**
 * Relevance: per hit, P(the message has a fitting skill) × P(this hit fits | it has one), from two
 * logistic models per mode fitted by `scripts/fit-abstention.ts`; abstention is a threshold on it
 * (`abstention.ts`). Why it never rises down the list: docs/retrieval.md, "One score: relevance".
 */

/** One ranked hit with the evidence the rankers found for it; fields a mode lacks are undefined. */
export interface RankedEvidence {
  readonly id: string;
  readonly name: string;
  /** The score the mode orders by: the hybrid fusion score, the dense ordering cosine (centred or plain), or BM25 relative to the first hit's. */
  readonly order: number;
  /** Raw cosine with the whole message (dense and hybrid). */
  readonly cosine?: number;
  /** Best centred cosine (dense and hybrid), whatever orders the dense side. */
  readonly centered?: number;
  /** Best plain cosine over the message and its chunks (dense and hybrid). */
  readonly plain?: number;
  /** Raw BM25, 0 when the lexical ranker did not match (lexical and hybrid). */
  readonly lexical?: number;
  /** Share of distinct query terms matched (lexical and hybrid). */
  readonly coverage?: number;
  /** `LexicalMatch.weightedCoverage` (hybrid). */
  readonly weightedCoverage?: number;
  /** `LexicalMatch.rarest` (hybrid). */
  readonly rarest?: number;
}

/** What the features need about the query beyond its ranked list. */
export interface QueryEvidence {
  /** Distinct query terms after tokenising. */
  readonly terms: ReadonlySet<string>;
  /** Id of the dense ranker's first candidate (hybrid). */
  readonly denseFirst?: string;
  /** Id of the lexical ranker's first candidate (hybrid). */
  readonly lexicalFirst?: string;
  /** Best raw BM25 among the lexical candidates (lexical and hybrid). */
  readonly bestLexical?: number;
  /** Best coverage among the lexical candidates. */
  readonly bestCoverage?: number;
  /** Second-best centred cosine of the dense candidates, for the margin. */
  readonly secondCentered?: number;
  /** Cosine of the whole message with the catalog's mean skill vector (dense and hybrid). */
  readonly catalogCosine?: number;
}

/** Feature names; a model lists the ones it uses, in its weights' order. */
const FEATURES = {
  /** The hit's ordering score ({@link RankedEvidence.order}). Ordering feature. */
  order: 'order',
  /** −ln(rank). Ordering feature. */
  rank: 'rank',
  /** ln(1 + distinct query terms). */
  terms: 'terms',
  /** Share of the first hit's name words that the message contains. */
  nameMatch: 'nameMatch',
  /** Highest raw cosine among the hits. */
  topCosine: 'topCosine',
  /** Raw cosine of the first hit. */
  firstCosine: 'firstCosine',
  /** Best centred cosine. */
  topCentered: 'topCentered',
  /** Best minus second-best centred cosine. */
  centeredMargin: 'centeredMargin',
  /** Best coverage among the lexical candidates. */
  bestCoverage: 'bestCoverage',
  /** Coverage of the first hit (0 when lexical did not match it). */
  firstCoverage: 'firstCoverage',
  /** ln(1 + best BM25). */
  bm25: 'bm25',
  /** First hit's BM25 relative to the best (0 when lexical did not match it). */
  firstLexical: 'firstLexical',
  /** 1 when the dense and lexical rankers put the same skill first. */
  agree: 'agree',
  /** Highest raw cosine minus the mean raw cosine of the hits: a clear winner or a flat list. */
  peak: 'peak',
  /** Cosine of the message with the catalog's mean skill vector. */
  catalogCosine: 'catalogCosine',
} as const;
export type FeatureName = keyof typeof FEATURES;

/** Ordering features: their fitted weights are kept ≥ 0 so probability never rises down the list. */
export const ORDERING_FEATURES: readonly FeatureName[] = ['order', 'rank'];

const ANY_MODE: readonly FeatureName[] = ['order', 'rank', 'terms', 'nameMatch'];
const DENSE_ONLY: readonly FeatureName[] = ['topCosine', 'firstCosine', 'topCentered', 'centeredMargin', 'peak', 'catalogCosine'];
const LEXICAL_ONLY: readonly FeatureName[] = ['bestCoverage', 'firstCoverage', 'bm25', 'firstLexical'];

/** The features each mode can compute (lexical mode never loads the model; dense mode never runs BM25). */
export const MODE_FEATURES: Readonly<Record<SearchMode, readonly FeatureName[]>> = {
  hybrid: [...ANY_MODE, ...DENSE_ONLY, ...LEXICAL_ONLY, 'agree'],
  dense: [...ANY_MODE, ...DENSE_ONLY],
  lexical: [...ANY_MODE, ...LEXICAL_ONLY],
};

/** A mode's relevance model: P(answerable) from query features alone, times P(this hit fits | answerable), fitted on answerable messages. */
export interface RelevanceModel {
  readonly answerable: LogisticModel;
  readonly hit: LogisticModel;
}

/** A fitted logistic model: p = σ(bias + Σ weight · (x − mean) / scale). */
export interface LogisticModel {
  readonly features: readonly FeatureName[];
  readonly mean: readonly number[];
  readonly scale: readonly number[];
  readonly weights: readonly number[];
  readonly bias: number;
}

/** The words of a skill's name, tokenised as queries are. */
export function nameWords(name: string): Set<string> {
  return new Set(tokenize(humanizeName(name)));
}

/** Share of `words` that `within` holds (0 for no words). */
export function shareIn(words: ReadonlySet<string>, within: ReadonlySet<string>): number {
  if (words.size === 0) return 0;
  let found = 0;
  for (const word of words) if (within.has(word)) found += 1;
  return found / words.size;
}

/** Share of the words of `name` that the query contains (0 for a name with no words). */
export function nameMatch(name: string, terms: ReadonlySet<string>): number {
  return shareIn(nameWords(name), terms);
}

/** The feature rows of a ranked list (best first), one per hit, in `names` order. */
export function featureRows(ranked: readonly RankedEvidence[], query: QueryEvidence, names: readonly FeatureName[]): number[][] {
  const first = ranked[0];
  if (first === undefined) return [];
  const cosines = ranked.flatMap((hit) => (hit.cosine === undefined ? [] : [hit.cosine]));
  const topCentered = Math.max(...ranked.map((hit) => hit.centered ?? Number.NEGATIVE_INFINITY));
  const bestLexical = query.bestLexical ?? 0;
  const shared: Record<Exclude<FeatureName, 'order' | 'rank'>, () => number> = {
    terms: () => Math.log1p(query.terms.size),
    nameMatch: () => nameMatch(first.name, query.terms),
    topCosine: () => (cosines.length === 0 ? 0 : Math.max(...cosines)),
    firstCosine: () => first.cosine ?? 0,
    topCentered: () => (Number.isFinite(topCentered) ? topCentered : 0),
    centeredMargin: () => (Number.isFinite(topCentered) && query.secondCentered !== undefined ? topCentered - query.secondCentered : 0),
    bestCoverage: () => query.bestCoverage ?? 0,
    firstCoverage: () => ((first.lexical ?? 0) > 0 ? (first.coverage ?? 0) : 0),
    bm25: () => Math.log1p(bestLexical),
    firstLexical: () => (bestLexical > 0 ? (first.lexical ?? 0) / bestLexical : 0),
    agree: () => (query.denseFirst !== undefined && query.denseFirst === query.lexicalFirst ? 1 : 0),
    peak: () => (cosines.length === 0 ? 0 : Math.max(...cosines) - cosines.reduce((a, b) => a + b, 0) / cosines.length),
    catalogCosine: () => query.catalogCosine ?? 0,
  };
  const queryValues = new Map<FeatureName, number>();
  for (const name of names) if (name !== 'order' && name !== 'rank') queryValues.set(name, shared[name]());
  return ranked.map((hit, i) =>
    names.map((name) => {
      if (name === 'order') return hit.order;
      if (name === 'rank') return -Math.log(i + 1);
      return queryValues.get(name)!;
    }),
  );
}

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/** `start` + Σ weight · (x − mean) / scale over one feature row. */
export function linearScore(model: Pick<LogisticModel, 'mean' | 'scale' | 'weights'>, start: number, row: readonly number[]): number {
  let z = start;
  for (let j = 0; j < row.length; j += 1) z += model.weights[j]! * ((row[j]! - model.mean[j]!) / model.scale[j]!);
  return z;
}

/** The probability the model gives one feature row. */
function predict(model: LogisticModel, row: readonly number[]): number {
  return sigmoid(linearScore(model, model.bias, row));
}

/** The two factors of every hit's relevance: P(answerable) for the query, P(fits | answerable) per hit. */
export function relevanceFactors(model: RelevanceModel, ranked: readonly RankedEvidence[], query: QueryEvidence): { answerable: number; fits: number[] } {
  const [first] = featureRows(ranked.slice(0, 1), query, model.answerable.features);
  if (first === undefined) return { answerable: 0, fits: [] };
  return { answerable: predict(model.answerable, first), fits: featureRows(ranked, query, model.hit.features).map((row) => predict(model.hit, row)) };
}

/** Relevance of each hit from its two factors (best first); non-increasing down the list. */
export function relevanceFrom({ answerable, fits }: { readonly answerable: number; readonly fits: readonly number[] }): number[] {
  const scores = fits.map((fit) => answerable * fit);
  // Ties in the ordering score with a later rank can only lower p; clamp float noise all the same.
  for (let i = 1; i < scores.length; i += 1) scores[i] = Math.min(scores[i]!, scores[i - 1]!);
  return scores;
}

/** Relevance of each hit of a ranked list (best first); non-increasing down the list. */
export function relevance(model: RelevanceModel, ranked: readonly RankedEvidence[], query: QueryEvidence): number[] {
  return relevanceFrom(relevanceFactors(model, ranked, query));
}
