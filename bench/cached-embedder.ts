/**
 * An `Embedder` in front of the real one that serves skill texts from the library's
 * on-disk `EmbeddingCache`, so the 24k-skill pool is embedded once per machine, not once
 * per run. Keys are sha256 of the text — the same key as `Skill.contentHash`.
 *
 * Query texts are never written to disk: a latency suite that found its queries cached
 * would time a hash lookup instead of the model. The hit-rate suite may turn on `memo`
 * (in memory, this process only) so the same query is embedded once across modes.
 */
import { mkdirSync } from 'node:fs';
import { EmbeddingCache } from '../src/embed/index.js';
import type { EmbedKind, Embedder } from '../src/types.js';
import { sha256Hex } from '../src/util/hash.js';

/** How many texts are embedded between two progress reports. */
const PRIME_CHUNK = 512;
/** The cache file is rewritten whole, so it is saved at most this often while priming (and at the end). */
const SAVE_EVERY_MS = 60_000;

export interface PrimeProgress {
  readonly done: number;
  readonly total: number;
  readonly elapsedMs: number;
}

export class CachedEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly multilingual?: boolean;
  readonly inner: Embedder;
  readonly #cache: EmbeddingCache;
  #memoOn = false;
  readonly #memo = new Map<string, Float32Array>();
  #modelCalls = 0;
  #modelTexts = 0;

  constructor(inner: Embedder, dir: string | undefined) {
    this.inner = inner;
    this.id = inner.id;
    this.dimensions = inner.dimensions;
    if (inner.multilingual !== undefined) this.multilingual = inner.multilingual;
    if (dir) mkdirSync(dir, { recursive: true });
    this.#cache = new EmbeddingCache({ model: inner.id, dimensions: inner.dimensions, ...(dir ? { dir } : {}) });
  }

  /**
   * Remember query embeddings in memory while on. Turning it off forgets them, so a latency
   * suite after the hit-rate suite cannot be served a query the hit-rate suite embedded.
   */
  get memo(): boolean {
    return this.#memoOn;
  }

  set memo(on: boolean) {
    this.#memoOn = on;
    if (!on) this.#memo.clear();
  }

  get cacheStatus(): string {
    return `${this.#cache.status}, ${this.#cache.size} vectors`;
  }

  /** Texts sent to the model so far (cache misses), for the report. */
  get modelTexts(): number {
    return this.#modelTexts;
  }

  get modelCalls(): number {
    return this.#modelCalls;
  }

  /** Embeds every text not yet cached and persists them; returns how many were embedded. */
  async prime(texts: readonly string[], onProgress?: (progress: PrimeProgress) => void): Promise<number> {
    const missing = [...new Set(texts)].filter((text) => this.#cache.get(sha256Hex(text)) === undefined);
    const started = performance.now();
    let savedAt = started;
    for (let start = 0; start < missing.length; start += PRIME_CHUNK) {
      const chunk = missing.slice(start, start + PRIME_CHUNK);
      const vectors = await this.#model(chunk);
      chunk.forEach((text, i) => this.#cache.set(sha256Hex(text), vectors[i]!));
      if (performance.now() - savedAt > SAVE_EVERY_MS) {
        this.#cache.save();
        savedAt = performance.now();
      }
      onProgress?.({ done: start + chunk.length, total: missing.length, elapsedMs: performance.now() - started });
    }
    this.#cache.save();
    return missing.length;
  }

  /**
   * Cached vectors for `texts` (primed ones), embedding the rest. Queries are keyed apart from
   * passages: an asymmetric model (e5, bge) embeds the same text differently for each.
   */
  async embed(texts: readonly string[], signal?: AbortSignal, kind?: EmbedKind): Promise<Float32Array[]> {
    const keyOf = (text: string): string => (kind === 'query' ? `query\0${text}` : text);
    const out: (Float32Array | undefined)[] = texts.map(
      (text) => this.#cache.get(sha256Hex(keyOf(text))) ?? (this.#memoOn ? this.#memo.get(keyOf(text)) : undefined),
    );
    const misses = texts.filter((_, i) => out[i] === undefined);
    if (misses.length > 0) {
      const vectors = await this.#model(misses, signal, kind);
      let next = 0;
      for (let i = 0; i < out.length; i++) {
        if (out[i] !== undefined) continue;
        const vector = vectors[next++]!;
        out[i] = vector;
        if (this.#memoOn) this.#memo.set(keyOf(texts[i]!), vector);
      }
    }
    return out as Float32Array[];
  }

  async #model(texts: readonly string[], signal?: AbortSignal, kind?: EmbedKind): Promise<Float32Array[]> {
    this.#modelCalls++;
    this.#modelTexts += texts.length;
    return this.inner.embed(texts, signal, kind);
  }
}
