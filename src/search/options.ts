import type { EntryStore } from '../store/entry-store.js';
import { definedOnly } from '../util/defined.js';
import { assertBoolean, assertFinite, assertKnownKeys, assertNonNegativeInteger, assertPositiveInteger, badKnob, nestedKnobs } from '../util/option-checks.js';
import { SEARCH_MODES, type AbstainSetting, type Embedder, type SearchMode } from '../types.js';
import { CROSS_LINGUAL_DEFAULTS, resolveCrossLingualKnobs, type CrossLingualKnobs, type ResolvedCrossLingualKnobs } from '../lang/options.js';
import { LEXICAL_DEFAULTS, resolveLexicalKnobs, type LexicalKnobs, type ResolvedLexicalKnobs } from '../lexical/options.js';
import { resolveVectorIndexKnobs, VECTOR_INDEX_DEFAULTS, type ResolvedVectorIndexKnobs, type VectorIndexKnobs } from '../vector-index/options.js';
import { assertAbstainSetting, BUNDLED_RELEVANCE, type RelevanceByKind, type RelevanceModels, type ShownCut } from './abstention.js';
import type { EverydayGate } from './everyday-gate.js';
import { CATALOG_KINDS, type CatalogKind } from './rerank.js';

/**
 * Every retrieval knob, documented once on its {@link EngineOptions} field or on the layer's own
 * knobs that EngineOptions extends (`lexical/options.ts`, `vector-index/options.ts`,
 * `lang/options.ts`); how each value was chosen: docs/retrieval.md.
 */

/** Per-sentence query embeddings (see {@link EngineOptions.queryChunks}). */
export interface QueryChunkOptions {
  /** Fewest distinct terms a message needs to be split. */
  readonly minTerms: number;
  /** Most pieces embedded; more sentences are joined into this many runs. */
  readonly max: number;
  /** Ratio of the best to the second BM25 score (or the best alone) at which a hybrid search skips the pieces; 0 never skips. */
  readonly lexicalMargin: number;
  /** Share of the message's terms the best BM25 hit must also match for the pieces to be skipped (0 to 1). */
  readonly lexicalCoverage: number;
}

/**
 * A clear lexical match: the best BM25 hit scores at least `margin` times the second and covers at
 * least `coverage` of the query's terms. Then the dense share is capped at `denseShare`, and with
 * `keepAbove` the BM25 hit is ordered above every candidate that matches fewer of the query's terms.
 * `margin` 0 turns it off (`fusion.ts`).
 */
export interface LexicalEvidenceKnobs {
  readonly margin: number;
  readonly coverage: number;
  readonly denseShare: number;
  readonly keepAbove: boolean;
}

/** Past `terms` distinct query terms the dense share slides linearly to `denseShare` at twice that many (`fusion.ts` `denseShareFor`). */
export interface LongQuery {
  readonly terms: number;
  readonly denseShare: number;
}

/** A {@link LongQuery} per catalogue kind (`catalogKind`), as the re-rankers and relevance models are chosen. */
export type LongQueryByKind = Readonly<Record<CatalogKind, LongQuery>>;

interface Boundaries {
  readonly penalty: number;
  readonly insteadBoost: number;
}

export interface EngineOptions extends VectorIndexKnobs, LexicalKnobs {
  /** The sentence encoder; its `id` keys the embedding cache and the index manifest. */
  readonly embedder: Embedder;
  /** Folder for the persistent index and embedding cache; in-memory when absent. */
  readonly indexDir?: string;
  /** The store shared by every folder and process (`src/store/`), its file or a store: vectors it holds under this model are not embedded again. None when absent. */
  readonly store?: string | EntryStore;
  /**
   * This engine writes its catalogs: its store writes wait `STORE_DEFAULTS.writerBusyTimeoutMs` for another process's;
   * `'async'` (`watch`, the MCP server, a `LiveIndex`) without holding the thread (`StoreOpenOptions.writer`). @default false
   */
  readonly storeWriter?: boolean | 'async';
  /** Results per query when the request does not say. @default 5 */
  readonly k?: number;
  /** Ranker used when the request does not say. @default 'hybrid' */
  readonly mode?: SearchMode;
  /**
   * Hits whose relevance is below this setting's threshold are dropped (`abstention.ts`): `balanced` keeps blanks on
   * answerable requests rare, `strict` shows less that is off-topic, `off` never abstains, a number in [0, 1] is the threshold. @default 'balanced'
   */
  readonly abstain?: AbstainSetting;
  /**
   * The fitted relevance models and operating points, one set per catalogue kind (`catalogKind`) or one for every kind; replace
   * only to try a refit (`npm run fit`, `scripts/fit-relevance-kind.ts`). @default the bundled `relevance-model.json`
   */
  readonly relevance?: RelevanceModels | RelevanceByKind;
  /**
   * A hit after a first one that passed the threshold is shown when it passes too, or scores at least `relative` × the first's
   * and `floor` × the threshold; `{relative: 1, floor: 1}`: the threshold alone. @default {relative: 0.1, floor: 0.25}
   */
  readonly shownCut?: Partial<ShownCut>;
  /**
   * Hybrid searches show nothing when no hit has specific evidence: no hit's raw cosine with the
   * message reaches `cosine` and the first hit matches at most `matchedTerms` of its words, or the
   * first hit matches at least `coverage` of them with BM25 under `bm25Share` of the catalogue's highest IDF a word
   * (`everyday-gate.ts`); `cosine` 0 turns it off, `bm25Share` 0 the second clause. Chosen on train by
   * `scripts/choose-everyday-gate.ts` (docs/retrieval.md, "Everyday messages"). @default {cosine: 0.32, matchedTerms: 1, coverage: 0.6, bm25Share: 0.625}
   */
  readonly everydayGate?: Partial<EverydayGate>;
  /** Share of the hybrid ordering score given to the (min-max normalised) dense ranker. @default 0.65 */
  readonly denseShare?: number;
  /**
   * Past `terms` distinct query terms the dense share slides linearly to `denseShare` at twice that many: one ramp for every
   * catalogue kind, or one per kind (`{skills, tools}`, `catalogKind`). @default {skills: {terms: 24, denseShare: 0}, tools: {terms: 32, denseShare: 0}}
   */
  readonly longQuery?: Partial<LongQuery> | { readonly [K in CatalogKind]?: Partial<LongQuery> };
  /** Share of the hybrid ordering score given to a candidate's lexical coverage (share of the query's terms it matches). @default 0 */
  readonly coverageShare?: number;
  /** A clear lexical match ({@link LexicalEvidenceKnobs}). @default {margin: 0, coverage: 0, denseShare: 0.65, keepAbove: false} */
  readonly lexicalEvidence?: Partial<LexicalEvidenceKnobs>;
  /**
   * Skills' "not for" boundaries (`boundaries.ts`): a hybrid candidate's ordering score is scaled down by `penalty` per query term
   * only its boundary clauses use (at most two), and the skills it names instead move `insteadBoost` per term towards 1. @default {penalty: 0.2, insteadBoost: 0.1}
   */
  readonly boundaries?: Partial<Boundaries>;
  /** Reorder the hybrid list's first candidates by the strength of their lexical evidence (`rerank.ts`); false keeps the fused order. @default true */
  readonly evidenceRerank?: boolean;
  /** The lexical ranker's first this-many hits stay within the first {@link keepLexicalWithin} hybrid hits; 0 turns it off. @default 2 */
  readonly keepLexical?: number;
  /** How far down the hybrid list {@link keepLexical} keeps the lexical ranker's best hits. @default 10 */
  readonly keepLexicalWithin?: number;
  /**
   * Long messages are also embedded sentence by sentence ({@link QueryChunkOptions}); a skill keeps its best match.
   * @default {minTerms: 16, max: 8, lexicalMargin: 1.5, lexicalCoverage: 0.2}
   */
  readonly queryChunks?: Partial<QueryChunkOptions>;
  /** Candidates each ranker contributes to fusion. @default 50 */
  readonly candidates?: number;
  /** Texts per embedder call during sync (and between progress reports): speed and memory only. @default 512 */
  readonly batchSize?: number;
  /** Query vectors remembered (LRU) so a repeated query skips the model; 0 turns it off. Speed only. @default 256 */
  readonly queryCacheSize?: number;
  /** Hybrid fusion reads the dense side as cosine with vectors centred on the catalogue mean (`centering.ts`); false: plain cosine. @default true */
  readonly centring?: boolean;
  /** Chinese and Japanese queries over a catalog in another language (and skills written in them) through the bundled CC-CEDICT dictionary (`src/lang/`). @default {enabled: true} */
  readonly crossLingual?: CrossLingualKnobs;
}

/** Nested knobs whose resolved type is not just their given one made required. */
type ResolvedApart =
  | keyof VectorIndexKnobs
  | keyof LexicalKnobs
  | 'indexDir'
  | 'store'
  | 'shownCut'
  | 'everydayGate'
  | 'longQuery'
  | 'lexicalEvidence'
  | 'boundaries'
  | 'queryChunks'
  | 'crossLingual';

export interface ResolvedEngineOptions extends ResolvedVectorIndexKnobs, ResolvedLexicalKnobs, Readonly<Required<Omit<EngineOptions, ResolvedApart>>> {
  readonly indexDir: string | undefined;
  readonly store: string | EntryStore | undefined;
  readonly shownCut: ShownCut;
  readonly everydayGate: EverydayGate;
  readonly longQuery: LongQueryByKind;
  readonly lexicalEvidence: LexicalEvidenceKnobs;
  readonly boundaries: Boundaries;
  readonly queryChunks: QueryChunkOptions;
  readonly crossLingual: ResolvedCrossLingualKnobs;
}

export const ENGINE_DEFAULTS: ResolvedEngineKnobs = Object.freeze({
  ...VECTOR_INDEX_DEFAULTS,
  k: 5,
  mode: 'hybrid',
  abstain: 'balanced',
  relevance: BUNDLED_RELEVANCE,
  shownCut: Object.freeze({ relative: 0.1, floor: 0.25 }),
  everydayGate: Object.freeze({ cosine: 0.32, matchedTerms: 1, coverage: 0.6, bm25Share: 0.625 }),
  denseShare: 0.65,
  longQuery: Object.freeze({ skills: Object.freeze({ terms: 24, denseShare: 0 }), tools: Object.freeze({ terms: 32, denseShare: 0 }) }),
  coverageShare: 0,
  lexicalEvidence: Object.freeze({ margin: 0, coverage: 0, denseShare: 0.65, keepAbove: false }),
  boundaries: Object.freeze({ penalty: 0.2, insteadBoost: 0.1 }),
  evidenceRerank: true,
  ...LEXICAL_DEFAULTS,
  keepLexical: 2,
  keepLexicalWithin: 10,
  queryChunks: Object.freeze({ minTerms: 16, max: 8, lexicalMargin: 1.5, lexicalCoverage: 0.2 }),
  candidates: 50,
  batchSize: 512,
  queryCacheSize: 256,
  centring: true,
  crossLingual: CROSS_LINGUAL_DEFAULTS,
});

export function assertMode(name: string, value: unknown): SearchMode {
  if (!SEARCH_MODES.includes(value as SearchMode)) throw badKnob(name, `one of ${SEARCH_MODES.join(', ')}`, value);
  return value as SearchMode;
}

/** The tuning knobs: every engine option but the embedder and the index folder. */
export type EngineKnobs = Omit<EngineOptions, 'embedder' | 'indexDir' | 'store' | 'storeWriter'>;
export type ResolvedEngineKnobs = Omit<ResolvedEngineOptions, 'embedder' | 'indexDir' | 'store' | 'storeWriter'>;

/** Every {@link EngineOptions} key: the knobs (each has a default) and the four that are not knobs. */
const ENGINE_OPTION_KEYS: readonly string[] = ['embedder', 'indexDir', 'store', 'storeWriter', ...Object.keys(ENGINE_DEFAULTS)];

/** Merges over {@link ENGINE_DEFAULTS}, validates every field, freezes. */
export function resolveEngineOptions(options: EngineOptions): ResolvedEngineOptions {
  if (typeof options !== 'object' || options === null) throw badKnob('options', 'an object', options);
  assertKnownKeys('SkillSearchEngine', options, ENGINE_OPTION_KEYS);
  const { embedder } = options;
  if (embedder === undefined || typeof embedder.embed !== 'function' || typeof embedder.id !== 'string') {
    throw badKnob('embedder', 'an Embedder ({ id, dimensions, embed })', embedder === undefined ? undefined : '[object]');
  }
  if (options.indexDir !== undefined && (typeof options.indexDir !== 'string' || options.indexDir === '')) {
    throw badKnob('indexDir', 'a folder path', options.indexDir);
  }
  if (options.store !== undefined && (typeof options.store === 'string' ? options.store === '' : typeof options.store?.vectors !== 'function')) {
    throw badKnob('store', 'a file path or an EntryStore', typeof options.store === 'string' ? options.store : '[object]');
  }
  return Object.freeze({
    embedder,
    indexDir: options.indexDir,
    store: options.store,
    storeWriter: options.storeWriter === 'async' ? 'async' : options.storeWriter === true,
    ...resolveKnobs(options),
  });
}

type Check<T> = (name: string, value: unknown) => T;
type NestedKnob = 'shownCut' | 'everydayGate' | 'lexicalEvidence' | 'boundaries' | 'queryChunks';
type Checks<T> = { readonly [F in keyof T]: Check<T[F]> };
const share: Check<number> = (name, value) => assertFinite(name, value, 0, 1);
const ratio: Check<number> = (name, value) => assertFinite(name, value, 0, 1000);

/** `value`'s fields over `defaults` (`nestedKnobs`), each checked under its `name.field` name, in `checks` order; frozen. */
function checkedNested<T extends object>(name: string, defaults: T, value: unknown, checks: Checks<T>): T {
  const given: Record<string, unknown> = nestedKnobs(name, defaults, value);
  const fields = Object.entries(checks).map(([field, check]) => [field, (check as Check<unknown>)(`${name}.${field}`, given[field])]);
  return Object.freeze(Object.fromEntries(fields)) as T;
}

const LONG_QUERY_CHECKS: Checks<LongQuery> = { terms: assertPositiveInteger, denseShare: share };

/** `longQuery` per kind: a `{skills, tools}` object sets each kind's fields over its defaults, any other object every kind's. */
function resolveLongQuery(value: unknown): LongQueryByKind {
  const defaults = ENGINE_DEFAULTS.longQuery;
  if (value === defaults) return defaults;
  const isObject = typeof value === 'object' && value !== null;
  if (isObject) assertKnownKeys('SkillSearchEngine', value, [...Object.keys(LONG_QUERY_CHECKS), ...CATALOG_KINDS], 'longQuery');
  const byKind = isObject && CATALOG_KINDS.some((kind) => kind in value);
  // Per kind, the fields of one ramp are not also given for every kind.
  if (byKind) assertKnownKeys('SkillSearchEngine', value, CATALOG_KINDS, 'longQuery');
  const entry = (kind: CatalogKind): LongQuery =>
    byKind
      ? checkedNested(`longQuery.${kind}`, defaults[kind], (value as Partial<Record<CatalogKind, unknown>>)[kind] ?? defaults[kind], LONG_QUERY_CHECKS)
      : checkedNested('longQuery', defaults[kind], value, LONG_QUERY_CHECKS);
  return Object.freeze({ skills: entry('skills'), tools: entry('tools') });
}

/** {@link resolveEngineOptions} for the knobs alone (e.g. a config file's, checked before any model loads). */
export function resolveKnobs(options: EngineKnobs): ResolvedEngineKnobs {
  const { embedder: _embedder, indexDir: _indexDir, store: _store, storeWriter: _storeWriter, ...knobs } = options as EngineOptions;
  const merged = { ...ENGINE_DEFAULTS, ...definedOnly(knobs) };
  /** A nested knob's fields over its defaults, checked (`checkedNested`). */
  const nested = <K extends NestedKnob>(name: K, checks: Checks<ResolvedEngineKnobs[K]>) =>
    checkedNested<ResolvedEngineKnobs[K]>(name, ENGINE_DEFAULTS[name], merged[name], checks);
  return Object.freeze({
    ...resolveVectorIndexKnobs(knobs),
    k: assertPositiveInteger('k', merged.k),
    mode: assertMode('mode', merged.mode),
    abstain: assertAbstainSetting('abstain', merged.abstain),
    relevance: merged.relevance,
    shownCut: nested('shownCut', { relative: share, floor: share }),
    everydayGate: nested('everydayGate', { cosine: share, matchedTerms: assertNonNegativeInteger, coverage: share, bm25Share: ratio }),
    denseShare: share('denseShare', merged.denseShare),
    longQuery: resolveLongQuery(merged.longQuery),
    coverageShare: share('coverageShare', merged.coverageShare),
    lexicalEvidence: nested('lexicalEvidence', { margin: ratio, coverage: share, denseShare: share, keepAbove: assertBoolean }),
    boundaries: nested('boundaries', { penalty: share, insteadBoost: share }),
    evidenceRerank: assertBoolean('evidenceRerank', merged.evidenceRerank),
    ...resolveLexicalKnobs(knobs),
    keepLexical: assertNonNegativeInteger('keepLexical', merged.keepLexical),
    keepLexicalWithin: assertPositiveInteger('keepLexicalWithin', merged.keepLexicalWithin),
    queryChunks: nested('queryChunks', {
      minTerms: assertPositiveInteger,
      max: assertNonNegativeInteger,
      lexicalMargin: ratio,
      lexicalCoverage: share,
    }),
    candidates: assertPositiveInteger('candidates', merged.candidates),
    batchSize: assertPositiveInteger('batchSize', merged.batchSize),
    queryCacheSize: assertNonNegativeInteger('queryCacheSize', merged.queryCacheSize),
    centring: assertBoolean('centring', merged.centring),
    crossLingual: resolveCrossLingualKnobs(merged.crossLingual),
  });
}
