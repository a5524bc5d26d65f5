import type { EntryStore } from '../store/entry-store.js';
import { badOption, type SkillSearchError } from '../errors.js';
import { definedOnly } from '../util/defined.js';
import { SEARCH_MODES, type AbstainSetting, type Embedder, type SearchMode } from '../types.js';
import type { VectorIndexKind } from '../vector-index/vector-index.js';
import { assertAbstainSetting, BUNDLED_RELEVANCE, type RelevanceModels, type ShownCut } from './abstention.js';

/** How queries and skills in other languages are translated (`src/lang/`). */
export interface CrossLingualKnobs {
  /** Translate CJK queries and skills with the bundled dictionary. @default true */
  readonly enabled?: boolean;
  /** Where the reduced dictionary is cached. @default `dictionaries/` under the cache root (`$SKILL_SEARCH_CACHE_DIR`, `$XDG_CACHE_HOME/skill-search` or `~/.cache/skill-search`) */
  readonly dictionaryDir?: string;
  /**
   * BM25 weights of a translated query word's glosses, in dictionary order; a word's glosses
   * share one unit of weight, so the first sense counts most. Hand-set, not tuned
   * (docs/retrieval.md). @default [1, 0.6, 0.4]
   */
  readonly glossWeights?: readonly number[];
}

/**
 * Every retrieval knob: its meaning, default and origin are documented once, on its
 * {@link EngineOptions} field; the values live in {@link ENGINE_DEFAULTS}; measurements behind them
 * are in docs/retrieval.md. The lexical ranker, the HNSW index and the query splitter read their
 * fallbacks from here too, so a module used on its own behaves like the engine.
 */

/** BM25 weight per indexed field of a skill (see {@link EngineOptions.fieldBoosts}). */
export interface FieldBoosts {
  readonly name: number;
  readonly whenToUse: number;
  readonly keywords: number;
  readonly description: number;
  readonly body: number;
  /** English glosses of a skill written in Chinese or Japanese (`src/lang/`). */
  readonly glosses: number;
}

/** The HNSW graph's build and search parameters (usearch's `connectivity`, `expansion_add`, `expansion_search`; see {@link EngineOptions.hnsw}). */
export interface HnswOptions {
  /** Graph degree: links per node per layer. */
  readonly m: number;
  /** Candidate list while building. */
  readonly efConstruction: number;
  /** Candidate list while searching (usearch widens it to k when k is larger). */
  readonly efSearch: number;
}

/** Per-sentence query embeddings (see {@link EngineOptions.queryChunks}). */
export interface QueryChunkOptions {
  /** Fewest distinct terms a message needs to be split. */
  readonly minTerms: number;
  /** Most pieces embedded; more sentences are joined into this many runs. */
  readonly max: number;
  /** Ratio of the best to the second BM25 score at which a hybrid search skips the pieces; 0 never skips. */
  readonly lexicalMargin: number;
  /** Share of the message's terms the best BM25 hit must also match for the pieces to be skipped (0 to 1). */
  readonly lexicalCoverage: number;
}

/** Typo tolerance of the lexical ranker (see {@link EngineOptions.fuzzy}). */
export interface FuzzyOptions {
  /** Shortest query word that may match with edits. */
  readonly minLength: number;
  /** Edits allowed, as a share of the word's length. */
  readonly ratio: number;
}

/** The evidence gate's knobs: what they mean is `LexicalEvidence` in `fusion.ts`. */
export interface LexicalEvidenceKnobs {
  readonly margin: number;
  readonly coverage: number;
  readonly denseShare: number;
  readonly keepAbove: boolean;
}

export interface EngineOptions {
  /** The sentence encoder; its `id` keys the embedding cache and the index manifest. */
  readonly embedder: Embedder;
  /** Folder for the persistent index and embedding cache; in-memory when absent. */
  readonly indexDir?: string;
  /**
   * The store shared by every folder and process (`src/store/`): its file, or a store. A skill
   * whose vector it holds under this model is not embedded again; new vectors go into it.
   * None when absent.
   */
  readonly store?: string | EntryStore;
  /** Nearest-neighbour structure: `exact` scans every vector (the recall baseline; fine for small catalogs). @default 'hnsw' */
  readonly ann?: VectorIndexKind;
  /**
   * HNSW graph parameters (`ann: 'hnsw'`). `m` and `efConstruction` are the usual HNSW values;
   * `efSearch` trades a little latency for agreement with the exact scan on large catalogs
   * (docs/retrieval.md). The graph is built with the values in force when a skill is added:
   * changing `m` or `efConstruction` takes effect on a fresh index.
   * @default {m: 16, efConstruction: 200, efSearch: 128}
   */
  readonly hnsw?: Partial<HnswOptions>;
  /** Results per query when the request does not say: a product default, not tuned. @default 5 */
  readonly k?: number;
  /** Ranker used when the request does not say; hybrid is never behind the others in hit@1 on any test suite (docs/retrieval.md). @default 'hybrid' */
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
   * How far the shown list reaches past a first hit that passed the threshold: a later hit is
   * shown when it passes too, or scores at least `relative` × the first's and `floor` × the
   * threshold (`abstention.ts`). `{relative: 1, floor: 1}`: the threshold alone. Chosen on the dev
   * splits by `scripts/choose-shown-cut.ts` (docs/retrieval.md). @default {relative: 0.05, floor: 0.5}
   */
  readonly shownCut?: Partial<ShownCut>;
  /**
   * Share of the hybrid ordering score given to the (min-max normalised) dense ranker.
   * Hand-set on a MetaTool dev sample; fitting it on the train splits gives the same value
   * (docs/retrieval.md). @default 0.65
   */
  readonly denseShare?: number;
  /**
   * Long queries lean on BM25: past `terms` distinct query terms the dense share slides linearly
   * to `denseShare` at twice that many. Hand-set (docs/retrieval.md). @default {terms: 32, denseShare: 0}
   */
  readonly longQuery?: Partial<{ readonly terms: number; readonly denseShare: number }>;
  /**
   * Share of the hybrid ordering score given to a candidate's lexical coverage (the share of the
   * query's distinct terms it matches), the rest being the dense/BM25 mix. Fitted on the train
   * splits and chosen on dev by `scripts/fit-fusion.ts` (docs/retrieval.md). @default 0
   */
  readonly coverageShare?: number;
  /**
   * A clear lexical match caps the dense share: when BM25's first hit scores at least `margin`
   * times its second and covers at least `coverage` of the query's terms, the dense share is at
   * most `denseShare` (`fusion.ts`); margin 0 turns it off. Fitted on the train splits and chosen
   * on dev by `scripts/fit-fusion.ts` (docs/retrieval.md). @default {margin: 0, coverage: 0, denseShare: 0.65}
   */
  readonly lexicalEvidence?: Partial<LexicalEvidenceKnobs>;
  /**
   * Skills' "not for" boundaries (`boundaries.ts`): a hybrid candidate's ordering score is scaled
   * down by `penalty` per query term only its boundary clauses use (at most two), and the skills it
   * names as alternatives move `insteadBoost` per term of the way to 1. 0 and 0 turn it off. Chosen on dev by
   * `scripts/fit-fusion.ts` (docs/retrieval.md). @default {penalty: 0.2, insteadBoost: 0.1}
   */
  readonly boundaries?: Partial<{ readonly penalty: number; readonly insteadBoost: number }>;
  /**
   * Reorder the hybrid list's first candidates by the strength of their lexical evidence (rare
   * matched words, several of the request's words, name words; `rerank.ts`), with the model
   * `scripts/fit-rerank.ts` fitted on train and chose on dev (docs/retrieval.md). false keeps the
   * fused order. @default true
   */
  readonly evidenceRerank?: boolean;
  /**
   * BM25 weight of each skill field; 0 leaves a field out of the search. The body field holds
   * SKILL.md headings, list items and first paragraphs (`lexical/body-text.ts`).
   * A word in the name says most; `name` and `body` were chosen on the dev splits; `keywords`
   * (frontmatter tags, aliases, triggers) weighs like `whenToUse`, unmeasured for lack of
   * labelled data with them; `glosses` (the English of a skill written in Chinese or Japanese)
   * weighs like the description (2 helped a 15-request dev set but cost English requests in a
   * registry with many Chinese skills; docs/retrieval.md).
   * Fields left out of an override keep their default.
   * @default {name: 2, whenToUse: 1.5, keywords: 1.5, description: 1, body: 0.3, glosses: 1}
   */
  readonly fieldBoosts?: Partial<FieldBoosts>;
  /**
   * Typo tolerance for query words the catalog does not have (a known word is matched exactly
   * and by prefix): words of at least `minLength` characters match with up to `ratio` × length
   * edits: one edit in a five-letter word is still the same word. Known words are not expanded:
   * that was slow and ranked no better (docs/retrieval.md). @default {minLength: 5, ratio: 0.2}
   */
  readonly fuzzy?: Partial<FuzzyOptions>;
  /**
   * Query words of at least this many characters also match longer indexed words they start;
   * shorter prefixes (`m`, `de`) would match half the vocabulary. @default 4
   */
  readonly prefixMinLength?: number;
  /**
   * The lexical ranker's first this-many hits always stay within the first
   * {@link keepLexicalWithin} hybrid hits, so a weak dense signal cannot push a strong BM25 match
   * out of sight. 0 turns the guard off. Hand-set; a safety net that leaves hit rates as they
   * are (docs/retrieval.md). @default 2
   */
  readonly keepLexical?: number;
  /** How far down the hybrid list {@link keepLexical} keeps the lexical ranker's best hits. @default 10 */
  readonly keepLexicalWithin?: number;
  /**
   * Messages of at least `minTerms` distinct terms are also embedded sentence by sentence, in at
   * most `max` pieces (`query-chunks.ts`); a skill keeps its best match. A hybrid search skips
   * that second embedding when BM25 has already singled one skill out: its best hit scores at
   * least `lexicalMargin` times the second (or is the only one) and matches at least
   * `lexicalCoverage` of the message's terms; margin 0 never skips. `minTerms` and `max`
   * hand-set, `lexicalMargin` and `lexicalCoverage` chosen on the dev splits by
   * `scripts/choose-chunk-gate.ts` (docs/retrieval.md, Long messages).
   * @default {minTerms: 16, max: 8, lexicalMargin: 1.5, lexicalCoverage: 0.2}
   */
  readonly queryChunks?: Partial<QueryChunkOptions>;
  /** Candidates each ranker contributes to fusion. Hand-set, not tuned: deeper than any k shown. @default 50 */
  readonly candidates?: number;
  /**
   * Texts per embedder call during sync (and between progress reports): speed and memory only,
   * never the results. USE-lite sorts each call's texts by length to pad its batches less, so
   * bigger calls embed faster (docs/cold-build.md). @default 512
   */
  readonly batchSize?: number;
  /** Query vectors remembered (LRU) so a repeated query skips the model; 0 turns it off. Speed only. @default 256 */
  readonly queryCacheSize?: number;
  /**
   * Chinese and Japanese queries over a catalog in another language (and skills written in
   * them) through the bundled CC-CEDICT dictionary; see `src/lang/`. `multilingual` comes from
   * the embedder. @default {enabled: true}
   */
  readonly crossLingual?: CrossLingualKnobs;
}

export interface ResolvedEngineOptions {
  readonly embedder: Embedder;
  readonly indexDir: string | undefined;
  readonly store: string | EntryStore | undefined;
  readonly ann: VectorIndexKind;
  readonly hnsw: HnswOptions;
  readonly k: number;
  readonly mode: SearchMode;
  readonly abstain: AbstainSetting;
  readonly relevance: RelevanceModels;
  readonly shownCut: ShownCut;
  readonly denseShare: number;
  readonly longQuery: { readonly terms: number; readonly denseShare: number };
  readonly coverageShare: number;
  readonly lexicalEvidence: LexicalEvidenceKnobs;
  readonly boundaries: { readonly penalty: number; readonly insteadBoost: number };
  readonly evidenceRerank: boolean;
  readonly fieldBoosts: FieldBoosts;
  readonly fuzzy: FuzzyOptions;
  readonly prefixMinLength: number;
  readonly keepLexical: number;
  readonly keepLexicalWithin: number;
  readonly queryChunks: QueryChunkOptions;
  readonly candidates: number;
  readonly batchSize: number;
  readonly queryCacheSize: number;
  readonly crossLingual: CrossLingualKnobs & { readonly enabled: boolean; readonly glossWeights: readonly number[] };
}

export const ENGINE_DEFAULTS: ResolvedEngineKnobs = Object.freeze({
  ann: 'hnsw',
  hnsw: Object.freeze({ m: 16, efConstruction: 200, efSearch: 128 }),
  k: 5,
  mode: 'hybrid',
  abstain: 'balanced',
  relevance: BUNDLED_RELEVANCE,
  shownCut: Object.freeze({ relative: 0.05, floor: 0.5 }),
  denseShare: 0.65,
  longQuery: Object.freeze({ terms: 32, denseShare: 0 }),
  coverageShare: 0,
  lexicalEvidence: Object.freeze({ margin: 0, coverage: 0, denseShare: 0.65, keepAbove: false }),
  boundaries: Object.freeze({ penalty: 0.2, insteadBoost: 0.1 }),
  evidenceRerank: true,
  fieldBoosts: Object.freeze({ name: 2, whenToUse: 1.5, keywords: 1.5, description: 1, body: 0.3, glosses: 1 }),
  fuzzy: Object.freeze({ minLength: 5, ratio: 0.2 }),
  prefixMinLength: 4,
  keepLexical: 2,
  keepLexicalWithin: 10,
  queryChunks: Object.freeze({ minTerms: 16, max: 8, lexicalMargin: 1.5, lexicalCoverage: 0.2 }),
  candidates: 50,
  batchSize: 512,
  queryCacheSize: 256,
  crossLingual: Object.freeze({ enabled: true, glossWeights: Object.freeze([1, 0.6, 0.4]) }),
});

/** The `BAD_OPTION` error for a knob, its value shown as JSON (a string knob in quotes). */
function bad(name: string, expected: string, value: unknown): SkillSearchError {
  return badOption(name, `be ${expected}`, JSON.stringify(value) ?? String(value));
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

function assertBoolean(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw bad(name, 'true or false', value);
  return value;
}

export function assertMode(name: string, value: unknown): SearchMode {
  if (!SEARCH_MODES.includes(value as SearchMode)) throw bad(name, `one of ${SEARCH_MODES.join(', ')}`, value);
  return value as SearchMode;
}

/** A group of knobs: the fields given override the defaults one by one; unknown fields are refused. */
function nested<T extends object>(name: string, defaults: T, value: unknown): Record<keyof T, unknown> {
  if (value === defaults) return defaults as Record<keyof T, unknown>;
  const fields = Object.keys(defaults);
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).some((key) => !fields.includes(key))) {
    throw bad(name, `an object with fields among ${fields.join(', ')}`, value);
  }
  return { ...defaults, ...definedOnly(value) } as Record<keyof T, unknown>;
}

/** Dictionary translation settings over their defaults; `dictionaryDir` stays optional (the cache root's). */
function resolveCrossLingual(value: unknown): ResolvedEngineOptions['crossLingual'] {
  if (value === ENGINE_DEFAULTS.crossLingual) return ENGINE_DEFAULTS.crossLingual;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('crossLingual', 'an object', value);
  const given = value as CrossLingualKnobs;
  const { enabled, glossWeights } = { ...ENGINE_DEFAULTS.crossLingual, ...definedOnly(given) };
  if (typeof enabled !== 'boolean') throw bad('crossLingual.enabled', 'a boolean', enabled);
  if (
    !Array.isArray(glossWeights) ||
    glossWeights.length === 0 ||
    !glossWeights.every((w) => typeof w === 'number' && Number.isFinite(w) && w >= 0) ||
    !glossWeights.some((w) => w > 0)
  ) {
    throw bad('crossLingual.glossWeights', 'a list of non-negative numbers, one above 0', glossWeights);
  }
  return Object.freeze({ ...given, enabled, glossWeights: Object.freeze([...glossWeights]) });
}

/** The tuning knobs: every engine option but the embedder and the index folder. */
export type EngineKnobs = Omit<EngineOptions, 'embedder' | 'indexDir' | 'store'>;
export type ResolvedEngineKnobs = Omit<ResolvedEngineOptions, 'embedder' | 'indexDir' | 'store'>;

/** Merges over {@link ENGINE_DEFAULTS}, validates every field, freezes. */
export function resolveEngineOptions(options: EngineOptions): ResolvedEngineOptions {
  const { embedder } = options;
  if (embedder === undefined || typeof embedder.embed !== 'function' || typeof embedder.id !== 'string') {
    throw bad('embedder', 'an Embedder ({ id, dimensions, embed })', embedder === undefined ? undefined : '[object]');
  }
  if (options.indexDir !== undefined && (typeof options.indexDir !== 'string' || options.indexDir === '')) {
    throw bad('indexDir', 'a folder path', options.indexDir);
  }
  if (options.store !== undefined && (typeof options.store === 'string' ? options.store === '' : typeof options.store.vectors !== 'function')) {
    throw bad('store', 'a file path or an EntryStore', typeof options.store === 'string' ? options.store : '[object]');
  }
  return Object.freeze({ embedder, indexDir: options.indexDir, store: options.store, ...resolveKnobs(options) });
}

/** {@link resolveEngineOptions} for the knobs alone (e.g. a config file's, checked before any model loads). */
export function resolveKnobs(options: EngineKnobs): ResolvedEngineKnobs {
  const { embedder: _embedder, indexDir: _indexDir, store: _store, ...knobs } = options as EngineOptions;
  const merged = { ...ENGINE_DEFAULTS, ...definedOnly(knobs) };
  if (merged.ann !== 'hnsw' && merged.ann !== 'exact') throw bad('ann', '"hnsw" or "exact"', merged.ann);
  const hnsw = nested('hnsw', ENGINE_DEFAULTS.hnsw, merged.hnsw);
  const longQuery = nested('longQuery', ENGINE_DEFAULTS.longQuery, merged.longQuery);
  const shownCut = nested('shownCut', ENGINE_DEFAULTS.shownCut, merged.shownCut);
  const lexicalEvidence = nested('lexicalEvidence', ENGINE_DEFAULTS.lexicalEvidence, merged.lexicalEvidence);
  const boundaries = nested('boundaries', ENGINE_DEFAULTS.boundaries, merged.boundaries);
  const fieldBoosts = nested('fieldBoosts', ENGINE_DEFAULTS.fieldBoosts, merged.fieldBoosts);
  const fuzzy = nested('fuzzy', ENGINE_DEFAULTS.fuzzy, merged.fuzzy);
  const queryChunks = nested('queryChunks', ENGINE_DEFAULTS.queryChunks, merged.queryChunks);
  return Object.freeze({
    ann: merged.ann,
    hnsw: Object.freeze({
      m: assertPositiveInteger('hnsw.m', hnsw.m),
      efConstruction: assertPositiveInteger('hnsw.efConstruction', hnsw.efConstruction),
      efSearch: assertPositiveInteger('hnsw.efSearch', hnsw.efSearch),
    }),
    k: assertPositiveInteger('k', merged.k),
    mode: assertMode('mode', merged.mode),
    abstain: assertAbstainSetting('abstain', merged.abstain),
    relevance: merged.relevance,
    shownCut: Object.freeze({
      relative: assertFinite('shownCut.relative', shownCut.relative, 0, 1),
      floor: assertFinite('shownCut.floor', shownCut.floor, 0, 1),
    }),
    denseShare: assertFinite('denseShare', merged.denseShare, 0, 1),
    longQuery: Object.freeze({
      terms: assertPositiveInteger('longQuery.terms', longQuery.terms),
      denseShare: assertFinite('longQuery.denseShare', longQuery.denseShare, 0, 1),
    }),
    coverageShare: assertFinite('coverageShare', merged.coverageShare, 0, 1),
    lexicalEvidence: Object.freeze({
      margin: assertFinite('lexicalEvidence.margin', lexicalEvidence.margin, 0, 1000),
      coverage: assertFinite('lexicalEvidence.coverage', lexicalEvidence.coverage, 0, 1),
      denseShare: assertFinite('lexicalEvidence.denseShare', lexicalEvidence.denseShare, 0, 1),
      keepAbove: assertBoolean('lexicalEvidence.keepAbove', lexicalEvidence.keepAbove),
    }),
    boundaries: Object.freeze({
      penalty: assertFinite('boundaries.penalty', boundaries.penalty, 0, 1),
      insteadBoost: assertFinite('boundaries.insteadBoost', boundaries.insteadBoost, 0, 1),
    }),
    evidenceRerank: assertBoolean('evidenceRerank', merged.evidenceRerank),
    fieldBoosts: Object.freeze(
      Object.fromEntries(
        Object.keys(ENGINE_DEFAULTS.fieldBoosts).map((field) => [field, assertFinite(`fieldBoosts.${field}`, fieldBoosts[field as keyof FieldBoosts], 0, 100)]),
      ) as unknown as FieldBoosts,
    ),
    fuzzy: Object.freeze({
      minLength: assertPositiveInteger('fuzzy.minLength', fuzzy.minLength),
      ratio: assertFinite('fuzzy.ratio', fuzzy.ratio, 0, 1),
    }),
    prefixMinLength: assertPositiveInteger('prefixMinLength', merged.prefixMinLength),
    keepLexical: assertNonNegativeInteger('keepLexical', merged.keepLexical),
    keepLexicalWithin: assertPositiveInteger('keepLexicalWithin', merged.keepLexicalWithin),
    queryChunks: Object.freeze({
      minTerms: assertPositiveInteger('queryChunks.minTerms', queryChunks.minTerms),
      max: assertNonNegativeInteger('queryChunks.max', queryChunks.max),
      lexicalMargin: assertFinite('queryChunks.lexicalMargin', queryChunks.lexicalMargin, 0, 1000),
      lexicalCoverage: assertFinite('queryChunks.lexicalCoverage', queryChunks.lexicalCoverage, 0, 1),
    }),
    candidates: assertPositiveInteger('candidates', merged.candidates),
    batchSize: assertPositiveInteger('batchSize', merged.batchSize),
    queryCacheSize: assertNonNegativeInteger('queryCacheSize', merged.queryCacheSize),
    crossLingual: resolveCrossLingual(merged.crossLingual),
  });
}
