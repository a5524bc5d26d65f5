import { SkillSearchError } from '../errors.js';
import type { CrossLingualOptions } from '../lang/cross-lingual.js';
import { SEARCH_MODES, type Embedder, type SearchMode } from '../types.js';
import type { HnswOptions } from '../vector-index/hnsw-index.js';
import type { VectorIndexKind } from '../vector-index/vector-index.js';

export const FUSIONS = ['weighted', 'rrf'] as const;
export type Fusion = (typeof FUSIONS)[number];

export interface EngineOptions {
  /** The sentence encoder; its `id` keys the embedding cache and the index manifest. */
  readonly embedder: Embedder;
  /** Folder for the persistent index and embedding cache; in-memory when absent. */
  readonly indexDir?: string;
  /** Nearest-neighbour structure. @default 'hnsw' */
  readonly ann?: VectorIndexKind;
  readonly hnsw?: HnswOptions;
  /** Results per query when the request does not say. @default 5 */
  readonly k?: number;
  /** @default 'hybrid' */
  readonly mode?: SearchMode;
  /**
   * How hybrid mode orders candidates: `weighted` sums the calibrated dense and lexical
   * components; `rrf` is reciprocal-rank fusion (abstention still uses the calibrated score).
   * @default 'weighted'
   */
  readonly fusion?: Fusion;
  /** Weights of the dense and lexical parts of the abstention confidence (need not sum to 1). @default {dense: 0.6, lexical: 0.4} */
  readonly weights?: { readonly dense: number; readonly lexical: number };
  /** Share of the hybrid ordering score given to the (min-max normalised) dense ranker. @default 0.65 */
  readonly denseShare?: number;
  /**
   * Long queries lean on BM25: past `terms` distinct query terms the dense share slides linearly
   * to `denseShare` at twice that many. @default {terms: 32, denseShare: 0}
   */
  readonly longQuery?: { readonly terms: number; readonly denseShare: number };
  /**
   * Abstention only: among the hits that pass `minScore`, drop those whose confidence is below
   * this share of the best one's, so discovery lists the skills that fit rather than padding the
   * top k with loosely related ones. 0 keeps them all. @default 0.8
   */
  readonly relativeCut?: number;
  /**
   * Cosine similarities mapped to 0 and 1 by the dense component (linear in between).
   * Model-specific; the defaults fit USE-lite. Used by the abstention confidence. @default {low: 0.15, high: 0.8}
   */
  readonly denseRange?: { readonly low: number; readonly high: number };
  /**
   * How much the share of matched query terms shapes the lexical part of the hybrid order:
   * relative BM25 × (coverage / the query's best coverage)^this. 0 trusts BM25 alone.
   * @default 0
   */
  readonly coverageExponent?: number;
  /** Hybrid hits whose confidence (see `fusion.ts`) is below this are dropped; no hit left = abstain. @default 0.4 */
  readonly minScore?: number;
  /** Dense-mode abstention: cosine below this is dropped. @default 0.3 */
  readonly minDenseScore?: number;
  /** Lexical-mode abstention: share of query terms a hit must match. @default 0.5 */
  readonly minLexicalCoverage?: number;
  /** Candidates each ranker contributes to fusion. @default 50 */
  readonly candidates?: number;
  /** Texts per embedder call during sync. @default 64 */
  readonly batchSize?: number;
  /** Query vectors remembered (LRU) so a repeated query skips the model; 0 turns it off. @default 256 */
  readonly queryCacheSize?: number;
  /**
   * Chinese and Japanese queries over a catalog in another language (and skills written in
   * them) through the bundled CC-CEDICT dictionary; see `src/lang/`. `multilingual` comes from
   * the embedder. @default {enabled: true}
   */
  readonly crossLingual?: Omit<CrossLingualOptions, 'multilingual'>;
}

export interface ResolvedEngineOptions {
  readonly embedder: Embedder;
  readonly indexDir: string | undefined;
  readonly ann: VectorIndexKind;
  readonly hnsw: HnswOptions;
  readonly k: number;
  readonly mode: SearchMode;
  readonly fusion: Fusion;
  readonly weights: { readonly dense: number; readonly lexical: number };
  readonly denseShare: number;
  readonly longQuery: { readonly terms: number; readonly denseShare: number };
  readonly relativeCut: number;
  readonly denseRange: { readonly low: number; readonly high: number };
  readonly coverageExponent: number;
  readonly minScore: number;
  readonly minDenseScore: number;
  readonly minLexicalCoverage: number;
  readonly candidates: number;
  readonly batchSize: number;
  readonly queryCacheSize: number;
  readonly crossLingual: Omit<CrossLingualOptions, 'multilingual'>;
}

export const ENGINE_DEFAULTS = Object.freeze({
  ann: 'hnsw',
  hnsw: Object.freeze({}),
  k: 5,
  mode: 'hybrid',
  fusion: 'weighted',
  weights: Object.freeze({ dense: 0.6, lexical: 0.4 }),
  denseShare: 0.65,
  longQuery: Object.freeze({ terms: 32, denseShare: 0 }),
  relativeCut: 0.8,
  denseRange: Object.freeze({ low: 0.15, high: 0.8 }),
  coverageExponent: 0,
  minScore: 0.4,
  minDenseScore: 0.3,
  minLexicalCoverage: 0.5,
  candidates: 50,
  batchSize: 64,
  queryCacheSize: 256,
  crossLingual: Object.freeze({ enabled: true }),
} satisfies Omit<ResolvedEngineOptions, 'embedder' | 'indexDir'>);

function bad(name: string, expected: string, value: unknown): SkillSearchError {
  return new SkillSearchError('BAD_OPTION', `Expected \`${name}\` to be ${expected}, got \`${JSON.stringify(value) ?? String(value)}\``);
}

export function assertPositiveInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw bad(name, 'a positive integer', value);
  return value;
}

function assertNonNegativeInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw bad(name, 'a non-negative integer', value);
  return value;
}

function assertFinite(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw bad(name, `a number from ${min} to ${max}`, value);
  }
  return value;
}

export function assertMode(name: string, value: unknown): SearchMode {
  if (!SEARCH_MODES.includes(value as SearchMode)) throw bad(name, `one of ${SEARCH_MODES.join(', ')}`, value);
  return value as SearchMode;
}

/** Merges over {@link ENGINE_DEFAULTS}, validates every field, freezes. */
export function resolveEngineOptions(options: EngineOptions): ResolvedEngineOptions {
  const { embedder } = options;
  if (embedder === undefined || typeof embedder.embed !== 'function' || typeof embedder.id !== 'string') {
    throw bad('embedder', 'an Embedder ({ id, dimensions, embed })', embedder === undefined ? undefined : '[object]');
  }
  const merged = { ...ENGINE_DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
  if (merged.ann !== 'hnsw' && merged.ann !== 'exact') throw bad('ann', '"hnsw" or "exact"', merged.ann);
  if (!FUSIONS.includes(merged.fusion)) throw bad('fusion', `one of ${FUSIONS.join(', ')}`, merged.fusion);
  const weights = {
    dense: assertFinite('weights.dense', merged.weights.dense, 0, 100),
    lexical: assertFinite('weights.lexical', merged.weights.lexical, 0, 100),
  };
  if (weights.dense + weights.lexical === 0) throw bad('weights', 'weights with a positive sum', merged.weights);
  const low = assertFinite('denseRange.low', merged.denseRange.low, -1, 1);
  const high = assertFinite('denseRange.high', merged.denseRange.high, -1, 1);
  if (high <= low) throw bad('denseRange', 'a range with low < high', merged.denseRange);
  if (options.indexDir !== undefined && (typeof options.indexDir !== 'string' || options.indexDir === '')) {
    throw bad('indexDir', 'a folder path', options.indexDir);
  }
  return Object.freeze({
    embedder,
    indexDir: options.indexDir,
    ann: merged.ann,
    hnsw: Object.freeze({ ...merged.hnsw }),
    k: assertPositiveInteger('k', merged.k),
    mode: assertMode('mode', merged.mode),
    fusion: merged.fusion,
    weights: Object.freeze(weights),
    denseShare: assertFinite('denseShare', merged.denseShare, 0, 1),
    longQuery: Object.freeze({
      terms: assertPositiveInteger('longQuery.terms', merged.longQuery.terms),
      denseShare: assertFinite('longQuery.denseShare', merged.longQuery.denseShare, 0, 1),
    }),
    relativeCut: assertFinite('relativeCut', merged.relativeCut, 0, 1),
    denseRange: Object.freeze({ low, high }),
    coverageExponent: assertFinite('coverageExponent', merged.coverageExponent, 0, 4),
    minScore: assertFinite('minScore', merged.minScore, 0, 1),
    minDenseScore: assertFinite('minDenseScore', merged.minDenseScore, -1, 1),
    minLexicalCoverage: assertFinite('minLexicalCoverage', merged.minLexicalCoverage, 0, 1),
    candidates: assertPositiveInteger('candidates', merged.candidates),
    batchSize: assertPositiveInteger('batchSize', merged.batchSize),
    queryCacheSize: assertNonNegativeInteger('queryCacheSize', merged.queryCacheSize),
    crossLingual: Object.freeze({ ...merged.crossLingual }),
  });
}
