import { SkillSearchError } from '../errors.js';
import type { CrossLingualOptions } from '../lang/cross-lingual.js';
import { SEARCH_MODES, type AbstainSetting, type Embedder, type SearchMode } from '../types.js';
import { LEXICAL_BOOST, type FieldBoosts } from '../lexical/lexical-index.js';
import type { HnswOptions } from '../vector-index/hnsw-index.js';
import type { VectorIndexKind } from '../vector-index/vector-index.js';
import { assertAbstainSetting, BUNDLED_RELEVANCE, type RelevanceModels } from './abstention.js';
import { CHUNK_MIN_TERMS, MAX_QUERY_CHUNKS } from './query-chunks.js';

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
   * When a search shows nothing: hits whose relevance is below the threshold of this setting
   * are dropped (see `abstention.ts`). `balanced` keeps blanks on answerable requests rare,
   * `strict` shows less that is off-topic, `off` never abstains, a number in [0, 1] is the
   * threshold itself. Chosen on the dev split; the curve is in docs/retrieval.md.
   * @default 'balanced'
   */
  readonly abstain?: AbstainSetting;
  /**
   * The fitted relevance models and operating points. Replace only to try a refit
   * (`npm run fit` writes the bundled file). @default the bundled `relevance-model.json`
   */
  readonly relevance?: RelevanceModels;
  /**
   * Share of the hybrid ordering score given to the (min-max normalised) dense ranker.
   * Hand-set on the MetaTool dev sample (docs/retrieval.md). @default 0.65
   */
  readonly denseShare?: number;
  /**
   * Long queries lean on BM25: past `terms` distinct query terms the dense share slides linearly
   * to `denseShare` at twice that many. Hand-set (docs/retrieval.md). @default {terms: 32, denseShare: 0}
   */
  readonly longQuery?: { readonly terms: number; readonly denseShare: number };
  /**
   * BM25 weight of each skill field; 0 leaves a field out of the search. The body field holds
   * SKILL.md headings, list items and first paragraphs (`lexical/body-text.ts`).
   * Chosen on the dev splits (docs/retrieval.md). @default {name: 2, whenToUse: 1.5, keywords: 1.5, description: 1, body: 0.3}
   */
  readonly fieldBoosts?: FieldBoosts;
  /**
   * The lexical ranker's first this-many hits always stay within the first 10 hybrid hits, so a
   * weak dense signal cannot push a strong BM25 match out of sight. 0 turns the guard off.
   * @default 2
   */
  readonly keepLexical?: number;
  /**
   * Messages of at least `minTerms` distinct terms are also embedded sentence by sentence, in at
   * most `max` pieces (`query-chunks.ts`); a skill keeps its best match. Hand-set
   * (docs/retrieval.md). @default {minTerms: 16, max: 8}
   */
  readonly queryChunks?: { readonly minTerms: number; readonly max: number };
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
  readonly abstain: AbstainSetting;
  readonly relevance: RelevanceModels;
  readonly denseShare: number;
  readonly longQuery: { readonly terms: number; readonly denseShare: number };
  readonly fieldBoosts: FieldBoosts;
  readonly keepLexical: number;
  readonly queryChunks: { readonly minTerms: number; readonly max: number };
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
  abstain: 'balanced',
  relevance: BUNDLED_RELEVANCE,
  denseShare: 0.65,
  longQuery: Object.freeze({ terms: 32, denseShare: 0 }),
  fieldBoosts: LEXICAL_BOOST,
  keepLexical: 2,
  queryChunks: Object.freeze({ minTerms: CHUNK_MIN_TERMS, max: MAX_QUERY_CHUNKS }),
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
    abstain: assertAbstainSetting('abstain', merged.abstain),
    relevance: merged.relevance,
    denseShare: assertFinite('denseShare', merged.denseShare, 0, 1),
    longQuery: Object.freeze({
      terms: assertPositiveInteger('longQuery.terms', merged.longQuery.terms),
      denseShare: assertFinite('longQuery.denseShare', merged.longQuery.denseShare, 0, 1),
    }),
    fieldBoosts: Object.freeze(
      Object.fromEntries(Object.keys(LEXICAL_BOOST).map((field) => [field, assertFinite(`fieldBoosts.${field}`, (merged.fieldBoosts as Record<string, unknown>)[field] ?? LEXICAL_BOOST[field as keyof FieldBoosts], 0, 100)])) as unknown as FieldBoosts,
    ),
    keepLexical: assertNonNegativeInteger('keepLexical', merged.keepLexical),
    queryChunks: Object.freeze({
      minTerms: assertPositiveInteger('queryChunks.minTerms', merged.queryChunks.minTerms),
      max: assertNonNegativeInteger('queryChunks.max', merged.queryChunks.max),
    }),
    candidates: assertPositiveInteger('candidates', merged.candidates),
    batchSize: assertPositiveInteger('batchSize', merged.batchSize),
    queryCacheSize: assertNonNegativeInteger('queryCacheSize', merged.queryCacheSize),
    crossLingual: Object.freeze({ ...merged.crossLingual }),
  });
}
