import { QueryEmbeddingCache } from '../embed/query-cache.js';
import { throwIfAborted } from '../errors.js';
import type { CrossLingual, RoutedQuery } from '../lang/cross-lingual.js';
import type { LexicalMatch, LexicalSearcher } from '../lexical/lexical-index.js';
import { tokenize } from '../lexical/tokenize.js';
import type { AbstainSetting, HitExplanation, SearchHit, SearchMode, SearchRequest, Skill, SkillSearcher } from '../types.js';
import type { DenseSide } from '../vector-index/vector-index.js';
import { assertAbstainSetting, longEntry, relevanceFor, scoringDepth, shownCount, thresholdFor, type RelevanceModels } from './abstention.js';
import { boundaryOf } from './boundaries.js';
import { rankDense, rankHybrid, rankLexical, type RankedList } from './candidates.js';
import { Centroid } from './centering.js';
import { DenseQuery } from './dense-query.js';
import { findNamedSkills } from './exact-name.js';
import { denseShareFor } from './fusion.js';
import { assertPositiveInteger, assertString } from '../util/option-checks.js';
import { assertMode, type ResolvedEngineOptions } from './options.js';
import { CHUNK_SEPARATOR, chunkListEmbedder, lexicallySettled, queryChunks, splitVectors } from './query-chunks.js';
import { lacksSpecificEvidence } from './everyday-gate.js';
import { relevanceFactors, relevanceFrom } from './relevance.js';
import { BUNDLED_RERANKERS, catalogKind, type CatalogKind } from './rerank.js';

/**
 * A catalog as ranking reads it, wherever it is held: a live index in memory (`engine.ts`) or a
 * catalog saved in the store (`stored-search.ts`).
 */
export interface RankedCatalog {
  readonly size: number;
  /** Changes whenever the catalog does: a search that awaited its vectors meanwhile searches the lexical side again. */
  readonly generation: number;
  skill(id: string): Skill | undefined;
  /** The ids of the skills with this normalised name, in catalog order. */
  idsNamed(name: string): readonly string[] | undefined;
  readonly lexical: LexicalSearcher;
  /** The vector side, brought up to the catalog first when it lags. */
  dense(signal?: AbortSignal): Promise<DenseSide>;
}

/** What `rank` gathers beyond the ranked list when a search is explained. */
interface RankExplanation {
  readonly lexical: ReadonlyMap<string, LexicalMatch>;
  readonly translation?: HitExplanation['translation'];
}

/**
 * Hybrid skill retrieval over a {@link RankedCatalog}: query → candidates (`candidates.ts`) →
 * fusion (`fusion.ts`) → relevance (`relevance.ts`) → abstention (`abstention.ts`), with an
 * exact-name fast path; refused once closed. What the live engine and the search of a saved
 * catalog share: it does not know where the catalog is kept.
 */
export abstract class RankedSearch implements SkillSearcher {
  readonly options: ResolvedEngineOptions;
  protected readonly language: CrossLingual;
  protected readonly dimensions: number;
  /** The catalog searched (read only once a search runs). */
  protected abstract readonly catalog: RankedCatalog;
  readonly #queries: QueryEmbeddingCache;
  /** A message's chunk vectors, one entry (and one model call) per message. */
  readonly #chunks: QueryEmbeddingCache;
  #centroid: { side: DenseSide; version: number; centroid: Centroid } | undefined;
  #kind: { lexical: LexicalSearcher; generation: number; kind: CatalogKind } | undefined;

  protected constructor(options: { engine: ResolvedEngineOptions; dimensions: number; language: CrossLingual }) {
    this.options = options.engine;
    this.language = options.language;
    this.dimensions = options.dimensions;
    this.#queries = new QueryEmbeddingCache(this.options.embedder, this.options.queryCacheSize);
    this.#chunks = new QueryEmbeddingCache(chunkListEmbedder(this.options.embedder), this.options.queryCacheSize);
  }

  /** Throws once the search is closed. */
  protected abstract assertOpen(): void;

  /** How many skills the catalog holds. */
  get size(): number {
    return this.catalog.size;
  }

  /**
   * The hits for `query`, best first, each scored by its relevance (the calibrated probability
   * that it fits, see `relevance.ts`); hits below the abstention threshold are dropped, so an
   * empty answer means nothing fits. Skills the query names exactly are scored 1 and shown alone
   * (first, then the ranked list, with abstention off).
   */
  async search(query: string, request: SearchRequest = {}): Promise<readonly SearchHit[]> {
    this.assertOpen();
    const { k, threshold, model, ranked, exact, explanation } = await this.#rankForScoring(query, request);
    if (ranked.ranked.length === 0 && exact.length === 0) return [];
    const factors = relevanceFactors(model, ranked.ranked, ranked.query);
    const scores = relevanceFrom(factors);
    // Named hits have no scoring evidence: they are shown first with score 1.
    const why = (id: string, score: number, scoring?: Scoring): HitExplanation | undefined =>
      explanation === undefined ? undefined : explainHit(id, score, threshold, explanation, scoring);
    const hits = exact.slice(0, k).map((id) => this.#hit(id, 1, ['exact'], why(id, 1)));
    // The user chose: named skills are shown alone. With abstention off (eval's ranked lists) the ranked list follows them.
    if (hits.length > 0 && threshold > 0) return hits;
    const everyday = lacksSpecificEvidence(ranked.ranked, ranked.query.terms.size, this.size, this.options.everydayGate);
    const shown = everyday && threshold > 0 ? 0 : shownCount(scores, threshold, this.options.shownCut, k - hits.length);
    for (const [i, hit] of ranked.ranked.entries()) {
      if (i === shown) break;
      const scoring = explanation && {
        ...(hit.cosine === undefined ? {} : { dense: { cosine: hit.cosine, centered: hit.centered ?? 0 } }),
        order: hit.order,
        answerable: factors.answerable,
        fits: factors.fits[i]!,
      };
      hits.push(
        this.#hit(
          hit.id,
          scores[i]!,
          hit.cosine === undefined ? ['lexical'] : (hit.lexical ?? 0) > 0 ? ['dense', 'lexical'] : ['dense'],
          why(hit.id, scores[i]!, scoring),
          scores[i]! < threshold,
        ),
      );
    }
    return hits;
  }

  /**
   * The request checked, the ranked list as deep as the relevance model was fitted on (so a hit's
   * score does not depend on `k`), the mode's model and the abstention setting's threshold.
   */
  async #rankForScoring(query: string, request: SearchRequest) {
    const mode: SearchMode = request.mode === undefined ? this.options.mode : assertMode('mode', request.mode);
    const setting =
      request.abstain === undefined || request.abstain === true
        ? this.options.abstain
        : request.abstain === false
          ? 'off'
          : assertAbstainSetting('abstain', request.abstain);
    const k = request.k === undefined ? this.options.k : assertPositiveInteger('k', request.k);
    const models = this.#relevance();
    const { ranked, exact, explanation } = await this.rank(query, { ...request, k: Math.max(k, scoringDepth(models)) });
    const long = longEntry(models, mode, query, this.size);
    return { k, threshold: thresholdFor(models, mode, setting, long), model: long?.model ?? models.models[mode], ranked, exact, explanation };
  }

  /**
   * Why a search shows what it shows: the query's P(answerable), each ranked hit's P(fits) and
   * score, and the threshold, e.g. to explain an empty answer (`eval --per-query`).
   */
  async explain(
    query: string,
    request: SearchRequest = {},
  ): Promise<{ answerable: number; threshold: number; named: readonly string[]; hits: { id: string; name: string; fits: number; score: number }[] }> {
    this.assertOpen();
    const { threshold, model, ranked, exact } = await this.#rankForScoring(query, request);
    const { answerable, fits } = relevanceFactors(model, ranked.ranked, ranked.query);
    const scores = relevanceFrom({ answerable, fits });
    return {
      answerable,
      threshold,
      named: exact,
      hits: ranked.ranked.map((hit, i) => ({ id: hit.id, name: hit.name, fits: fits[i]!, score: scores[i]! })),
    };
  }

  /** The relevance a hit needs to be shown in `mode` under `setting` (default: the engine's), in this catalog (a long message's may differ: `LongMessages`). */
  threshold(mode: SearchMode = this.options.mode, setting: AbstainSetting = this.options.abstain): number {
    return thresholdFor(this.#relevance(), mode, setting);
  }

  /** The relevance models of the catalog's kind. */
  #relevance(): RelevanceModels {
    return relevanceFor(this.options.relevance, this.#kindOf(this.catalog));
  }

  /**
   * The ranked candidates before scoring and abstention, with the evidence each was ranked on
   * (what `scripts/fit-abstention.ts` fits on), and the ids the query names exactly (left out of
   * `ranked`). With `explain`, also the lexical matches and the query's routing.
   */
  async rank(
    query: string,
    request: Omit<SearchRequest, 'abstain'> = {},
  ): Promise<{ ranked: RankedList; exact: readonly string[]; explanation?: RankExplanation }> {
    this.assertOpen();
    assertString('query', query);
    throwIfAborted(request.signal);
    const k = request.k === undefined ? this.options.k : assertPositiveInteger('k', request.k);
    const mode: SearchMode = request.mode === undefined ? this.options.mode : assertMode('mode', request.mode);
    const empty = () => ({ ranked: { ranked: [], query: { terms: new Set(tokenize(query)) } }, exact: [] });
    if (query.trim() === '' || this.catalog.size === 0) return empty();
    // A query in another language than the catalog's, as each ranker should read it (src/lang/).
    const routed = await this.language.route(query, request.signal);
    // Coverage and length count the words of the request as written (one per translated word).
    const terms = new Set(tokenize(routed.measure));
    const catalog = this.catalog;
    const nameOf = (id: string): string => catalog.skill(id)?.name ?? id;
    const explain = request.explain === true;
    const lexicalSearch = {
      boost: this.options.fieldBoosts,
      fuzzy: this.options.fuzzy,
      prefixMinLength: this.options.prefixMinLength,
      explain,
      ...(routed.terms === undefined ? {} : { terms: routed.terms }),
    };
    const explained = (lexical: readonly LexicalMatch[]): { explanation?: RankExplanation } =>
      explain
        ? {
            explanation: {
              lexical: new Map(lexical.map((match) => [match.id, match])),
              ...(routed.lexical === query ? {} : { translation: { language: routed.language, english: routed.lexical } }),
            },
          }
        : {};
    if (mode === 'lexical') {
      const lexical = catalog.lexical.search(routed.lexical, Math.max(k, this.options.candidates), lexicalSearch);
      return { ranked: rankLexical(lexical, terms, k, nameOf), exact: [], ...explained(lexical) };
    }
    // The long-query ramp of the catalogue's kind (`catalogKind`).
    const longQuery = this.options.longQuery[this.#kindOf(catalog)];
    const share = mode === 'dense' ? 1 : denseShareFor(terms.size, { denseShare: this.options.denseShare, longQuery });
    // The lexical side first (synchronous and cheap), so its evidence can spare the chunk embedding.
    const generation = catalog.generation;
    let lexical = mode === 'hybrid' ? catalog.lexical.search(routed.lexical, this.options.candidates, lexicalSearch) : [];
    // Chunk vectors only order candidates: not needed when the dense share is 0 or BM25 has singled a skill out.
    const { minTerms, max } = this.options.queryChunks;
    const settled = lexicallySettled(lexical, this.options.queryChunks);
    const chunks = share > 0 && terms.size >= minTerms && !settled ? queryChunks(routed.dense, max) : [];
    const [state, whole, parts] = await Promise.all([
      catalog.dense(request.signal),
      this.#queries.embed(routed.dense, request.signal),
      chunks.length === 0 ? undefined : this.#chunks.embed(chunks.join(CHUNK_SEPARATOR), request.signal),
    ]);
    const vectors = parts === undefined ? [whole] : [whole, ...splitVectors(parts, this.dimensions)];
    throwIfAborted(request.signal);
    if (this.catalog.size === 0) return empty();
    const dense = new DenseQuery(vectors, this.#centroidOf(state));
    // Skips ids a lexical-only sync removed from the catalog while this search awaited its vectors.
    const stored = (id: string): { readonly key: string; readonly vector: Float32Array } | undefined =>
      catalog.skill(id) === undefined ? undefined : state.stored(id);
    const denseMatches = dense.matches(state, Math.max(k, this.options.candidates), stored);
    // Dense mode orders by the centred cosine whatever `centring` says: its relevance model reads that score as `order`.
    if (mode === 'dense') return { ranked: rankDense(denseMatches, dense.catalogCosine, terms, k, nameOf), exact: [], ...explained([]) };
    const exact = findNamedSkills(query, (name) => catalog.idsNamed(name));
    // A sync that landed while the vectors were computed changed the catalog: search it as it is now.
    if (catalog.generation !== generation) lexical = catalog.lexical.search(routed.lexical, this.options.candidates, lexicalSearch);
    const knobs = fusionFor(this.options, share, routed);
    // The re-ranker of the catalogue's kind (`catalogKind`).
    const fusion = { ...knobs, evidenceRerank: knobs.evidenceRerank && BUNDLED_RERANKERS[this.#kindOf(catalog)] };
    const denseOf = (id: string) => {
      const found = stored(id);
      return found === undefined ? { cosine: 0, centered: 0, plain: 0 } : dense.score(found.key, found.vector);
    };
    return {
      ranked: rankHybrid(denseMatches, dense.catalogCosine, lexical, denseOf, fusion, terms, k, nameOf, exact, {
        of: (id) => {
          const skill = catalog.skill(id);
          return skill === undefined ? undefined : boundaryOf(skill);
        },
        named: (name) => catalog.idsNamed(name),
      }),
      exact,
      ...explained(lexical),
    };
  }

  /** The centroid of the side's vectors, kept until they change. */
  #centroidOf(side: DenseSide): Centroid {
    const cached = this.#centroid;
    if (cached !== undefined && cached.side === side && cached.version === side.version) return cached.centroid;
    const centroid = new Centroid(side.mean(), { centre: this.options.centring });
    this.#centroid = { side, version: side.version, centroid };
    return centroid;
  }

  /** The catalog's kind (`catalogKind`), which picks its re-ranker and relevance models; kept until the catalog changes. */
  #kindOf(catalog: RankedCatalog): CatalogKind {
    const cached = this.#kind;
    if (cached !== undefined && cached.lexical === catalog.lexical && cached.generation === catalog.generation) return cached.kind;
    const kind = catalogKind(catalog.lexical.fieldLengths);
    this.#kind = { lexical: catalog.lexical, generation: catalog.generation, kind };
    return kind;
  }

  /** `companion`: shown below the threshold beside a hit that reached it (`SearchHit.companion`). */
  #hit(id: string, score: number, via: SearchHit['via'], why?: HitExplanation, companion = false): SearchHit {
    return { skill: this.catalog.skill(id)!, score, via, ...(companion ? { companion } : {}), ...(why === undefined ? {} : { why }) };
  }
}

/**
 * The fusion knobs of one hybrid search: the engine's, with the query's dense share. A translated
 * request (its lexical evidence is dictionary glosses) keeps the centred, fused order
 * (docs/retrieval.md, "Both dense scores").
 */
export function fusionFor<T extends { readonly evidenceRerank: boolean; readonly centring: boolean }>(
  options: T,
  denseShare: number,
  routed: Pick<RoutedQuery, 'terms'>,
): T & { readonly denseShare: number } {
  return { ...options, denseShare, ...(routed.terms === undefined ? {} : { evidenceRerank: false, centring: true }) };
}

/** The scoring evidence of one ranked hit, as {@link explainHit} reports it. */
type Scoring = Pick<HitExplanation, 'dense' | 'order' | 'answerable' | 'fits'>;

/** A hit's explanation: what the lexical ranker matched, its scoring evidence, the threshold, how the query was routed. */
function explainHit(id: string, score: number, threshold: number, explanation: RankExplanation, scoring: Scoring | undefined): HitExplanation {
  const match = explanation.lexical.get(id);
  return {
    matched: match?.fields ?? {},
    ...(match === undefined ? {} : { lexical: { bm25: match.score, coverage: match.coverage } }),
    ...scoring,
    threshold,
    passed: score >= threshold,
    ...(scoring === undefined ? { named: true as const } : {}),
    ...(explanation.translation === undefined ? {} : { translation: explanation.translation }),
  };
}
