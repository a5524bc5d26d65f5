import { EmbeddingCache } from '../embed/embedding-cache.js';
import { QueryEmbeddingCache } from '../embed/query-cache.js';
import { SkillSearchError, throwIfAborted } from '../errors.js';
import { LexicalIndex, type LexicalMatch } from '../lexical/lexical-index.js';
import { loadLexicalIndex, saveLexicalIndex } from '../lexical/lexical-store.js';
import { CrossLingual } from '../lang/cross-lingual.js';
import { tokenize } from '../lexical/tokenize.js';
import type { AbstainSetting, HitExplanation, SearchHit, SearchMode, SearchRequest, Skill, SkillSearcher } from '../types.js';
import { VectorStore, type VectorStoreStatus } from '../vector-index/store.js';
import { assertAbstainSetting, scoringDepth, thresholdFor } from './abstention.js';
import { applyDiff } from './apply-diff.js';
import { rankDense, rankHybrid, rankLexical, type RankedList } from './candidates.js';
import { Centroid } from './centering.js';
import { DenseQuery } from './dense-query.js';
import { findNamedSkills, normalizeName } from './exact-name.js';
import { denseShareFor } from './fusion.js';
import { assertMode, assertPositiveInteger, resolveEngineOptions, type EngineOptions, type ResolvedEngineOptions } from './options.js';
import { CHUNK_SEPARATOR, chunkListEmbedder, queryChunks, splitVectors } from './query-chunks.js';
import { relevanceFactors, relevanceFrom } from './relevance.js';
import { EMBEDDING_TEXT_VERSION, glossedEmbeddingText, vectorKey } from './skill-text.js';

export interface SyncOptions {
  readonly signal?: AbortSignal;
  /** Called as embedding progresses: `done` of `total` skills that needed a new vector. */
  readonly onProgress?: (done: number, total: number) => void;
  /**
   * Bring the vector index and embedding cache up to date now (embedding new skills).
   * When false only the lexical side is synced and the vectors catch up at the first dense or
   * hybrid search, so a lexical-only process never loads them.
   * @default true unless the engine's default `mode` is `lexical`
   */
  readonly dense?: boolean;
}

export interface SyncResult {
  readonly added: number;
  readonly updated: number;
  readonly removed: number;
  readonly unchanged: number;
  /** Skills whose vector came from the embedder (the rest came from the cache or the index). */
  readonly embedded: number;
}

export interface EngineInfo {
  readonly model: string;
  readonly dimensions: number;
  readonly ann: 'hnsw' | 'exact';
  readonly skills: number;
  /** How the persistent index was found at open (`rebuilt` carries the reason). */
  readonly index: VectorStoreStatus;
}

type Counts = Omit<SyncResult, 'embedded'>;

/** What `rank` gathers beyond the ranked list when a search is explained. */
interface RankExplanation {
  /** The lexical ranker's matches by id, each with its matched terms per field. */
  readonly lexical: ReadonlyMap<string, LexicalMatch>;
  readonly translation?: HitExplanation['translation'];
}

/** The vector side, loaded on first need: reading it costs far more than a lexical search. */
interface DenseState {
  readonly cache: EmbeddingCache;
  readonly store: VectorStore;
  /** Of the vectors the index holds; dropped whenever they change, rebuilt at the next search. */
  centroid: Centroid | undefined;
}

/**
 * Hybrid skill retrieval, a façade over query → candidates (`candidates.ts`) → fusion
 * (`fusion.ts`) → relevance (`relevance.ts`) → abstention (`abstention.ts`): BM25 and sentence
 * embeddings (HNSW or exact), an exact-name fast path, every hit scored by its fitted relevance.
 * The engine itself keeps the lexical and vector indexes in step with the catalog.
 *
 * Invariants: `#skills` and the lexical index always hold the same ids; the vector index holds
 * them too unless `#denseStale`, in which case every dense or hybrid search first brings it up
 * to date (queued like a sync). A sync awaits every embedding first and then mutates the
 * indexes in one synchronous block, so a concurrent `search` sees the old catalog or the new one.
 */
export class SkillSearchEngine implements SkillSearcher {
  readonly options: ResolvedEngineOptions;
  readonly #model: string;
  readonly #dimensions: number;
  readonly #queries: QueryEmbeddingCache;
  /** A message's chunk vectors, one entry (and one model call) per message. */
  readonly #chunks: QueryEmbeddingCache;
  /** Query routing and skill glosses across languages (`src/lang/`). */
  readonly #language: CrossLingual;
  #dense: DenseState | undefined;
  #denseStale = false;
  #lexical = new LexicalIndex();
  /** The persisted lexical index was tried (it is only read into an empty engine). */
  #lexicalTried = false;
  /** The persisted lexical file holds exactly what `#lexical` holds. */
  #lexicalSaved = false;
  readonly #skills = new Map<string, Skill>();
  readonly #names = new Map<string, string[]>();
  #syncing: Promise<unknown> = Promise.resolve();
  #closing: Promise<void> | undefined;

  private constructor(options: ResolvedEngineOptions, dimensions: number) {
    this.options = options;
    this.#model = `${options.embedder.id}#${EMBEDDING_TEXT_VERSION}`;
    this.#dimensions = dimensions;
    this.#queries = new QueryEmbeddingCache(options.embedder, options.queryCacheSize);
    this.#chunks = new QueryEmbeddingCache(chunkListEmbedder(options.embedder), options.queryCacheSize);
    // --- coldpath (#17): CJK skills' languages and glosses are kept with the index. ---
    this.#language = new CrossLingual({ ...options.crossLingual, multilingual: options.embedder.multilingual === true, cacheDir: options.indexDir });
    // --- end coldpath (#17) ---
  }

  static async open(options: EngineOptions): Promise<SkillSearchEngine> {
    const resolved = resolveEngineOptions(options);
    let dimensions = resolved.embedder.dimensions;
    if (!(dimensions > 0)) {
      const [probe] = await resolved.embedder.embed(['dimension probe']);
      dimensions = probe?.length ?? 0;
    }
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw new SkillSearchError('INTERNAL', `embedder ${resolved.embedder.id} reports ${String(dimensions)} dimensions`);
    }
    return new SkillSearchEngine(resolved, dimensions);
  }

  get size(): number {
    return this.#skills.size;
  }

  /** Reads the vector store when it is not loaded yet (to report its status). */
  get info(): EngineInfo {
    return {
      model: this.options.embedder.id,
      dimensions: this.#dimensions,
      ann: this.options.ann,
      skills: this.#skills.size,
      index: this.#loadDense().store.status,
    };
  }

  /**
   * Makes the indexes hold exactly `skills` (by id; first wins on duplicate ids). Only skills
   * whose content hash has no vector yet are embedded; everything is persisted when an
   * `indexDir` is set. Calls are serialised. With `dense: false` the counts are the lexical
   * index's and nothing is embedded yet.
   */
  sync(skills: readonly Skill[], options: SyncOptions = {}): Promise<SyncResult> {
    this.#assertOpen();
    const run = this.#syncing.then(() => this.#sync(skills, options));
    this.#syncing = run.catch(() => undefined);
    return run;
  }

  async #sync(skills: readonly Skill[], { signal, onProgress, dense }: SyncOptions): Promise<SyncResult> {
    throwIfAborted(signal);
    const desired = new Map<string, Skill>();
    for (const skill of skills) if (!desired.has(skill.id)) desired.set(skill.id, skill);
    await this.#language.prepare(desired.values(), signal);

    const withDense = dense ?? this.options.mode !== 'lexical';
    const state = withDense ? this.#loadDense() : undefined;
    const embedded = state === undefined ? 0 : await this.#embedMissing(state, desired.values(), signal, onProgress);
    throwIfAborted(signal);

    const lexical = this.#applyLexical(desired);
    if (state === undefined) {
      this.#denseStale = true;
      return { ...lexical, embedded };
    }
    const counts = this.#applyDense(state, desired);
    this.#denseStale = false;
    return { ...counts, embedded };
  }

  #loadDense(): DenseState {
    this.#dense ??= {
      cache: new EmbeddingCache({ model: this.#model, dimensions: this.#dimensions, dir: this.options.indexDir }),
      store: VectorStore.open({
        kind: this.options.ann,
        model: this.#model,
        dimensions: this.#dimensions,
        dir: this.options.indexDir,
        hnsw: this.options.hnsw,
      }),
      centroid: undefined,
    };
    return this.#dense;
  }

  /** Embeds the skills the cache lacks; returns how many. The cache must hold every current vector (hybrid scores lexical-only candidates from it), so a lost cache file means re-embedding even when the index still has the vector. */
  async #embedMissing(state: DenseState, skills: Iterable<Skill>, signal?: AbortSignal, onProgress?: SyncOptions['onProgress']): Promise<number> {
    const missing = new Map<string, Skill>();
    for (const skill of skills) {
      const key = vectorKey(skill);
      if (state.cache.get(key) === undefined) missing.set(key, skill);
    }
    // Skills with the same text (forks, republished copies) share one embedding.
    const keysByText = new Map<string, string[]>();
    for (const [key, skill] of missing) {
      const text = glossedEmbeddingText(skill, this.#language.glossesOf(skill)?.dense);
      const keys = keysByText.get(text);
      if (keys === undefined) keysByText.set(text, [key]);
      else keys.push(key);
    }
    const pending = [...keysByText];
    let done = 0;
    onProgress?.(0, missing.size);
    for (let start = 0; start < pending.length; start += this.options.batchSize) {
      throwIfAborted(signal);
      const batch = pending.slice(start, start + this.options.batchSize);
      const vectors = await this.options.embedder.embed(
        batch.map(([text]) => text),
        signal,
        'passage',
      );
      batch.forEach(([, keys], i) => {
        for (const key of keys) state.cache.set(key, vectors[i]!);
        done += keys.length;
      });
      onProgress?.(done, missing.size);
    }
    return missing.size;
  }

  /** Synchronous: the lexical index, `#skills` and `#names` now hold `desired`; persisted when changed. */
  #applyLexical(desired: ReadonlyMap<string, Skill>): Counts {
    const dir = this.options.indexDir;
    if (!this.#lexicalTried && dir !== undefined && this.#lexical.size === 0) {
      const loaded = loadLexicalIndex(dir);
      if ('index' in loaded) {
        this.#lexical = loaded.index;
        this.#lexicalSaved = true;
      }
    }
    this.#lexicalTried = true;
    const lexical = this.#lexical;
    const counts = applyDiff(
      lexical.ids(),
      desired,
      (id) => lexical.remove(id),
      (id, skill) => {
        const had = lexical.has(id);
        return !lexical.upsert(skill, this.#language.glossesOf(skill)?.lexical) ? 'unchanged' : had ? 'updated' : 'added';
      },
    );
    this.#skills.clear();
    for (const [id, skill] of desired) this.#skills.set(id, skill);
    this.#names.clear();
    for (const skill of desired.values()) {
      const name = normalizeName(skill.name);
      const ids = this.#names.get(name);
      if (ids === undefined) this.#names.set(name, [skill.id]);
      else ids.push(skill.id);
    }
    if (counts.added + counts.updated + counts.removed > 0) this.#lexicalSaved = false;
    if (dir !== undefined && !this.#lexicalSaved) {
      // --- scale (#17): a save with few changes writes a delta; it replays skills from here. ---
      saveLexicalIndex(dir, this.#lexical, (id) => {
        const skill = this.#skills.get(id);
        return skill === undefined ? undefined : { skill, glosses: this.#language.glossesOf(skill)?.lexical };
      });
      // --- end scale (#17) ---
      this.#lexicalSaved = true;
    }
    return counts;
  }

  /** Synchronous: the vector index holds `desired`, every vector already in the cache; persisted when changed. */
  #applyDense(state: DenseState, desired: ReadonlyMap<string, Skill>): Counts {
    const index = state.store.index;
    const keys = new Set<string>();
    const counts = applyDiff(
      index.ids(),
      desired,
      (id) => index.remove(id),
      (id, skill) => {
        const key = vectorKey(skill);
        keys.add(key);
        const tag = index.tagOf(id);
        if (tag === key) return 'unchanged';
        index.upsert(id, state.cache.get(key)!, key);
        return tag === undefined ? 'added' : 'updated';
      },
    );
    const changed = counts.added + counts.updated + counts.removed > 0;
    if (changed) state.centroid = undefined;
    state.cache.retain(keys);
    state.cache.save();
    if (changed || state.store.status.state !== 'loaded') state.store.save();
    return counts;
  }

  /** The vector side, first brought up to the current catalog when a lexical-only sync left it behind. */
  #denseReady(signal?: AbortSignal): Promise<DenseState> {
    if (!this.#denseStale && this.#dense !== undefined) return Promise.resolve(this.#dense);
    const run = this.#syncing.then(async () => {
      const state = this.#loadDense();
      if (!this.#denseStale) return state;
      // Queued behind every sync and ahead of later ones, so `#skills` cannot move meanwhile.
      const skills = new Map(this.#skills);
      await this.#embedMissing(state, skills.values(), signal);
      throwIfAborted(signal);
      this.#applyDense(state, skills);
      this.#denseStale = false;
      return state;
    });
    this.#syncing = run.catch(() => undefined);
    return run;
  }

  /**
   * The hits for `query`, best first, each scored by its relevance (the calibrated probability
   * that it fits, see `relevance.ts`); hits below the abstention threshold are dropped, so an
   * empty answer means nothing fits. A skill the query names exactly comes first, scored 1.
   */
  async search(query: string, request: SearchRequest = {}): Promise<readonly SearchHit[]> {
    const { k, threshold, model, ranked, exact, explanation } = await this.#rankForScoring(query, request);
    if (ranked.ranked.length === 0 && exact.length === 0) return [];
    const factors = relevanceFactors(model, ranked.ranked, ranked.query);
    const scores = relevanceFrom(factors);
    // Named hits have no scoring evidence: they are shown first with score 1.
    const why = (id: string, score: number, scoring?: Scoring): HitExplanation | undefined =>
      explanation === undefined ? undefined : explainHit(id, score, threshold, explanation, scoring);
    const hits = exact.slice(0, k).map((id) => this.#hit(id, 1, ['exact'], why(id, 1)));
    for (const [i, hit] of ranked.ranked.entries()) {
      if (hits.length === k || scores[i]! < threshold) break;
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
        ),
      );
    }
    return hits;
  }

  /**
   * What `search` and `explain` share: the request checked, the ranked list as deep as the
   * relevance model was fitted on (whatever `k`, so a hit's score does not depend on `k`), the
   * model for the mode and the threshold of the abstention setting.
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
    const { ranked, exact, explanation } = await this.rank(query, { ...request, k: Math.max(k, scoringDepth(this.options.relevance)) });
    return { k, threshold: thresholdFor(this.options.relevance, mode, setting), model: this.options.relevance.models[mode], ranked, exact, explanation };
  }

  /**
   * Why a search shows what it shows: the query's P(answerable), each ranked hit's P(fits) and
   * score, and the threshold, e.g. to explain an empty answer (`eval --per-query`).
   */
  async explain(
    query: string,
    request: SearchRequest = {},
  ): Promise<{ answerable: number; threshold: number; named: readonly string[]; hits: { id: string; name: string; fits: number; score: number }[] }> {
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

  /** The relevance a hit needs to be shown in `mode` under `setting` (default: the engine's). */
  threshold(mode: SearchMode = this.options.mode, setting: AbstainSetting = this.options.abstain): number {
    return thresholdFor(this.options.relevance, mode, setting);
  }

  /**
   * The ranked candidates before scoring and abstention, with the evidence each was ranked on
   * (what `scripts/fit-abstention.ts` fits the relevance model on), and the ids the query names
   * exactly (left out of `ranked`). With `explain`, also the lexical matches with their terms per
   * field and the query's routing (`search` turns them into each hit's `why`).
   */
  async rank(
    query: string,
    request: Omit<SearchRequest, 'abstain'> = {},
  ): Promise<{ ranked: RankedList; exact: readonly string[]; explanation?: RankExplanation }> {
    this.#assertOpen();
    throwIfAborted(request.signal);
    const k = request.k === undefined ? this.options.k : assertPositiveInteger('k', request.k);
    const mode: SearchMode = request.mode === undefined ? this.options.mode : assertMode('mode', request.mode);
    const empty = { ranked: { ranked: [], query: { terms: new Set(tokenize(query)) } }, exact: [] };
    if (query.trim() === '' || this.#skills.size === 0) return empty;
    // A query in another language than the catalog's, as each ranker should read it (src/lang/).
    const routed = await this.#language.route(query, request.signal);
    // Coverage and length count the words of the request as written (one per translated word).
    const terms = new Set(tokenize(routed.measure));
    const nameOf = (id: string): string => this.#skills.get(id)?.name ?? id;
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
      const lexical = this.#lexical.search(routed.lexical, Math.max(k, this.options.candidates), lexicalSearch);
      return { ranked: rankLexical(lexical, terms, k, nameOf), exact: [], ...explained(lexical) };
    }
    const share = mode === 'dense' ? 1 : denseShareFor(terms.size, this.options);
    // The whole message's vector, then one per chunk. Chunk vectors only order candidates: a
    // query whose dense share is 0 needs the whole one alone (for its relevance features).
    const chunks = share > 0 && terms.size >= this.options.queryChunks.minTerms ? queryChunks(routed.dense, this.options.queryChunks.max) : [];
    const [state, whole, parts] = await Promise.all([
      this.#denseReady(request.signal),
      this.#queries.embed(routed.dense, request.signal),
      chunks.length === 0 ? undefined : this.#chunks.embed(chunks.join(CHUNK_SEPARATOR), request.signal),
    ]);
    const vectors = parts === undefined ? [whole] : [whole, ...splitVectors(parts, this.#dimensions)];
    throwIfAborted(request.signal);
    if (this.#skills.size === 0) return empty;
    const dense = new DenseQuery(vectors, this.#centroid(state));
    // `#stored` skips ids a lexical-only sync removed from the catalog while this search awaited its vectors.
    const stored = (id: string): { key: string; vector: Float32Array } | undefined => this.#stored(state, id);
    const denseMatches = dense.matches(state.store.index, Math.max(k, this.options.candidates), stored);
    if (mode === 'dense') return { ranked: rankDense(denseMatches, dense.catalogCosine, terms, k, nameOf), exact: [], ...explained([]) };
    const exact = findNamedSkills(query, (name) => this.#names.get(name));
    const lexical = this.#lexical.search(routed.lexical, this.options.candidates, lexicalSearch);
    const denseOf = (id: string) => {
      const found = stored(id);
      return found === undefined ? { cosine: 0, centered: 0 } : dense.score(found.key, found.vector);
    };
    return {
      ranked: rankHybrid(denseMatches, dense.catalogCosine, lexical, denseOf, { ...this.options, denseShare: share }, terms, k, nameOf, exact),
      exact,
      ...explained(lexical),
    };
  }

  /** Idempotent; waits for a running sync. Later calls return the same promise. */
  close(): Promise<void> {
    this.#closing ??= this.#syncing.then(() => undefined);
    return this.#closing;
  }

  /** Synchronous, so it sees the same catalog as the search that asks for it. */
  #centroid(state: DenseState): Centroid {
    state.centroid ??= Centroid.of(
      [...this.#skills.keys()].flatMap((id) => this.#stored(state, id)?.vector ?? []),
      this.#dimensions,
    );
    return state.centroid;
  }

  /** The cache key and stored vector of a skill still in the catalog. */
  #stored(state: DenseState, id: string): { key: string; vector: Float32Array } | undefined {
    const skill = this.#skills.get(id);
    if (skill === undefined) return undefined;
    const key = vectorKey(skill);
    const vector = state.cache.get(key);
    return vector === undefined ? undefined : { key, vector };
  }

  #hit(id: string, score: number, via: SearchHit['via'], why?: HitExplanation): SearchHit {
    return { skill: this.#skills.get(id)!, score, via, ...(why === undefined ? {} : { why }) };
  }

  #assertOpen(): void {
    if (this.#closing !== undefined) throw new SkillSearchError('INTERNAL', 'the search engine is closed');
  }
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
