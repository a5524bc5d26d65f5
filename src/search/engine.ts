import { EmbeddingCache } from '../embed/embedding-cache.js';
import { QueryEmbeddingCache } from '../embed/query-cache.js';
import { SkillSearchError, throwIfAborted } from '../errors.js';
import { LexicalIndex, type LexicalMatch } from '../lexical/lexical-index.js';
import { loadLexicalIndex, saveLexicalIndex } from '../lexical/lexical-store.js';
import { CrossLingual } from '../lang/cross-lingual.js';
import { tokenize } from '../lexical/tokenize.js';
import type { SearchHit, SearchMode, SearchRequest, Skill, SkillSearcher } from '../types.js';
import { VectorStore, type VectorStoreStatus } from '../vector-index/store.js';
import { TopK } from '../vector-index/top-k.js';
import { Centroid } from './centering.js';
import { DenseQuery } from './dense-query.js';
import { findNamedSkills, normalizeName } from './exact-name.js';
import { confidence, denseShareFor, gatherCandidates, hybridScore, rrfScore, type QueryContext } from './fusion.js';
import { assertMode, assertPositiveInteger, resolveEngineOptions, type EngineOptions, type ResolvedEngineOptions } from './options.js';
import { CHUNK_MIN_TERMS, CHUNK_SEPARATOR, chunkListEmbedder, queryChunks, splitVectors } from './query-chunks.js';
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

/** The vector side, loaded on first need: reading it costs far more than a lexical search. */
interface DenseState {
  readonly cache: EmbeddingCache;
  readonly store: VectorStore;
  /** Of the vectors the index holds; dropped whenever they change, rebuilt at the next search. */
  centroid: Centroid | undefined;
}

/**
 * Hybrid skill retrieval: BM25 (lexical) + sentence embeddings (dense, HNSW or exact),
 * fused into a calibrated score, with an exact-name fast path and abstention.
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
    this.#language = new CrossLingual({ ...options.crossLingual, multilingual: options.embedder.multilingual === true });
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
      store: VectorStore.open({ kind: this.options.ann, model: this.#model, dimensions: this.#dimensions, dir: this.options.indexDir, hnsw: this.options.hnsw }),
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
    const pending = [...missing];
    onProgress?.(0, pending.length);
    for (let start = 0; start < pending.length; start += this.options.batchSize) {
      throwIfAborted(signal);
      const batch = pending.slice(start, start + this.options.batchSize);
      const vectors = await this.options.embedder.embed(
        batch.map(([, skill]) => glossedEmbeddingText(skill, this.#language.glossesOf(skill)?.dense)),
        signal,
        'passage',
      );
      batch.forEach(([key], i) => state.cache.set(key, vectors[i]!));
      onProgress?.(Math.min(start + batch.length, pending.length), pending.length);
    }
    return pending.length;
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
    let added = 0;
    let updated = 0;
    let unchanged = 0;
    let removed = 0;
    for (const id of [...this.#lexical.ids()]) {
      if (!desired.has(id)) {
        this.#lexical.remove(id);
        removed += 1;
      }
    }
    this.#skills.clear();
    for (const [id, skill] of desired) {
      const had = this.#lexical.has(id);
      if (!this.#lexical.upsert(skill, this.#language.glossesOf(skill)?.lexical)) unchanged += 1;
      else if (had) updated += 1;
      else added += 1;
      this.#skills.set(id, skill);
    }
    this.#names.clear();
    for (const skill of desired.values()) {
      const name = normalizeName(skill.name);
      const ids = this.#names.get(name);
      if (ids === undefined) this.#names.set(name, [skill.id]);
      else ids.push(skill.id);
    }
    if (added + updated + removed > 0) this.#lexicalSaved = false;
    if (dir !== undefined && !this.#lexicalSaved) {
      // --- scale (#17): a save with few changes writes a delta; it replays skills from here. ---
      saveLexicalIndex(dir, this.#lexical, (id) => {
        const skill = this.#skills.get(id);
        return skill === undefined ? undefined : { skill, glosses: this.#language.glossesOf(skill)?.lexical };
      });
      // --- end scale (#17) ---
      this.#lexicalSaved = true;
    }
    return { added, updated, removed, unchanged };
  }

  /** Synchronous: the vector index holds `desired`, every vector already in the cache; persisted when changed. */
  #applyDense(state: DenseState, desired: ReadonlyMap<string, Skill>): Counts {
    const index = state.store.index;
    let added = 0;
    let updated = 0;
    let unchanged = 0;
    let removed = 0;
    for (const id of [...index.ids()]) {
      if (!desired.has(id)) {
        index.remove(id);
        removed += 1;
      }
    }
    const keys = new Set<string>();
    for (const [id, skill] of desired) {
      const key = vectorKey(skill);
      keys.add(key);
      const tag = index.tagOf(id);
      if (tag === key) unchanged += 1;
      else {
        if (tag === undefined) added += 1;
        else updated += 1;
        index.upsert(id, state.cache.get(key)!, key);
      }
    }
    if (added + updated + removed > 0) state.centroid = undefined;
    state.cache.retain(keys);
    state.cache.save();
    if (added + updated + removed > 0 || state.store.status.state !== 'loaded') state.store.save();
    return { added, updated, removed, unchanged };
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

  async search(query: string, request: SearchRequest = {}): Promise<readonly SearchHit[]> {
    this.#assertOpen();
    throwIfAborted(request.signal);
    const k = request.k === undefined ? this.options.k : assertPositiveInteger('k', request.k);
    const mode: SearchMode = request.mode === undefined ? this.options.mode : assertMode('mode', request.mode);
    const abstain = request.abstain !== false;
    if (query.trim() === '' || this.#skills.size === 0) return [];
    // A query in another language than the catalog's, as each ranker should read it (src/lang/).
    const routed = await this.#language.route(query, request.signal);
    if (mode === 'lexical') return this.#searchLexical(routed.lexical, k, abstain, routed.weights);
    const terms = new Set(tokenize(routed.measure)).size;
    const share = mode === 'dense' ? 1 : denseShareFor(terms, this.options);
    // The whole message's vector, then one per chunk. Chunk vectors only order candidates: a
    // query whose dense share is 0 needs the whole one alone (for abstention).
    const chunks = share > 0 && terms >= CHUNK_MIN_TERMS ? queryChunks(routed.dense) : [];
    const [state, whole, parts] = await Promise.all([
      this.#denseReady(request.signal),
      this.#queries.embed(routed.dense, request.signal),
      chunks.length === 0 ? undefined : this.#chunks.embed(chunks.join(CHUNK_SEPARATOR), request.signal),
    ]);
    const vectors = parts === undefined ? [whole] : [whole, ...splitVectors(parts, this.#dimensions)];
    throwIfAborted(request.signal);
    if (this.#skills.size === 0) return [];
    const dense = new DenseQuery(vectors, this.#centroid(state));
    if (mode === 'dense') return this.#searchDense(state, dense, k, abstain);
    const exact = findNamedSkills(query, (name) => this.#names.get(name));
    const lexical = this.#lexical.search(routed.lexical, this.options.candidates, routed.weights);
    return this.#searchHybrid(state, dense, lexical, exact, share, k, abstain);
  }

  /** Idempotent; waits for a running sync. Later calls return the same promise. */
  close(): Promise<void> {
    this.#closing ??= this.#syncing.then(() => undefined);
    return this.#closing;
  }

  /** Synchronous, so it sees the same catalog as the search that asks for it. */
  #centroid(state: DenseState): Centroid {
    state.centroid ??= Centroid.of([...this.#skills.keys()].flatMap((id) => this.#stored(state, id)?.vector ?? []), this.#dimensions);
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

  #hit(id: string, score: number, via: SearchHit['via']): SearchHit {
    return { skill: this.#skills.get(id)!, score, via };
  }

  #searchLexical(query: string, k: number, abstain: boolean, weights?: ReadonlyMap<string, number>): SearchHit[] {
    const hits: SearchHit[] = [];
    for (const match of this.#lexical.search(query, abstain ? this.options.candidates : k, weights)) {
      if (abstain && match.coverage < this.options.minLexicalCoverage) continue;
      hits.push(this.#hit(match.id, match.score, ['lexical']));
      if (hits.length === k) break;
    }
    return hits;
  }

  /**
   * Ordered by centred cosine; a hit's score stays the raw cosine with the whole message (what
   * callers and `minDenseScore` understand), so scores need not fall strictly down the list.
   */
  #searchDense(state: DenseState, dense: DenseQuery, k: number, abstain: boolean): SearchHit[] {
    const hits: SearchHit[] = [];
    for (const match of dense.matches(state.store.index, Math.max(k, this.options.candidates), (id) => this.#stored(state, id))) {
      if (hits.length === k) break;
      if (!abstain || match.cosine >= this.options.minDenseScore) hits.push(this.#hit(match.id, match.cosine, ['dense']));
    }
    return hits;
  }

  #searchHybrid(state: DenseState, dense: DenseQuery, lexical: readonly LexicalMatch[], exact: readonly string[], denseShare: number, k: number, abstain: boolean): SearchHit[] {
    // `#stored` skips ids a lexical-only sync removed from the catalog while this search awaited its vectors.
    const stored = (id: string): { key: string; vector: Float32Array } | undefined => this.#stored(state, id);
    const candidates = gatherCandidates(dense.matches(state.store.index, Math.max(k, this.options.candidates), stored), lexical, (id) => {
      const found = stored(id);
      return found === undefined ? { cosine: 0, centered: 0 } : dense.score(found.key, found.vector);
    });
    const best = { score: lexical[0]?.score ?? 0, coverage: Math.max(0, ...lexical.map((match) => match.coverage)) };
    let denseMin = Number.POSITIVE_INFINITY;
    let denseMax = Number.NEGATIVE_INFINITY;
    for (const candidate of candidates.values()) {
      denseMin = Math.min(denseMin, candidate.centered);
      denseMax = Math.max(denseMax, candidate.centered);
    }
    const context: QueryContext = { best, denseMin, denseMax, denseShare };
    const top = new TopK<{ id: string; score: number; confidence: number; via: SearchHit['via'] }>(k);
    for (const candidate of candidates.values()) {
      if (exact.includes(candidate.id)) continue;
      const sure = confidence(candidate, best, this.options);
      if (abstain && sure < this.options.minScore) continue;
      const score = hybridScore(candidate, context, this.options);
      const via: SearchHit['via'] =
        candidate.lexical > 0 && Number.isFinite(candidate.denseRank) ? ['dense', 'lexical'] : candidate.lexical > 0 ? ['lexical'] : ['dense'];
      top.push({ id: candidate.id, score, confidence: sure, via }, this.options.fusion === 'rrf' ? rrfScore(candidate) : score);
    }
    let ranked = top.sorted().map(({ item }) => item);
    if (abstain && this.options.relativeCut > 0 && ranked.length > 1) {
      // Relative to the most confident hit kept, not the first: ordering and confidence can disagree.
      const floor = this.options.relativeCut * Math.max(...ranked.map((item) => item.confidence));
      ranked = ranked.filter((item) => item.confidence >= floor);
    }
    const hits = exact.slice(0, k).map((id) => this.#hit(id, 1, ['exact']));
    for (const item of ranked) {
      if (hits.length === k) break;
      hits.push(this.#hit(item.id, item.score, item.via));
    }
    return hits;
  }

  #assertOpen(): void {
    if (this.#closing !== undefined) throw new SkillSearchError('INTERNAL', 'the search engine is closed');
  }
}
