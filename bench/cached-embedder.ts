/**
 * An `Embedder` in front of the real one that serves skill texts from a store of the library's
 * own kind (`SqliteStore`, `<dir>/store.sqlite`, apart from any user's cache), so the 24k-skill
 * pool is embedded once per machine, not once per run. Keys are sha256 of the text.
 *
 * Query texts are never written to disk: a latency suite that found its queries cached
 * would time a hash lookup instead of the model. The hit-rate suite may turn on `memo`
 * (in memory, this process only) so the same query is embedded once across modes.
 */
import path from 'node:path';
import { SqliteStore } from '../src/store/sqlite-store.js';
import type { EmbedKind, Embedder } from '../src/types.js';
import { sha256Hex } from '../src/util/hash.js';

/** How many texts are embedded between two progress reports. */
const PRIME_CHUNK = 512;

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
  /** The vectors stored on disk, or (with no folder) kept in memory for this process. */
  readonly #store: SqliteStore | undefined;
  readonly #memory = new Map<string, Float32Array>();
  #memoOn = false;
  readonly #memo = new Map<string, Float32Array>();
  #modelCalls = 0;
  #modelTexts = 0;

  constructor(inner: Embedder, dir: string | undefined) {
    this.inner = inner;
    this.id = inner.id;
    this.dimensions = inner.dimensions;
    if (inner.multilingual !== undefined) this.multilingual = inner.multilingual;
    this.#store = dir ? SqliteStore.open(path.join(dir, 'store.sqlite')) : undefined;
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
    return this.#store ? this.#store.file : 'in memory';
  }

  /** The stored vectors of those of `keys` held. */
  #cached(keys: readonly string[]): Map<string, Float32Array> {
    if (this.#store) return this.#store.vectors(this.id, this.dimensions, keys);
    return new Map(keys.flatMap((key) => (this.#memory.has(key) ? [[key, this.#memory.get(key)!] as const] : [])));
  }

  #put(vectors: ReadonlyMap<string, Float32Array>): void {
    if (this.#store) this.#store.putVectors(this.id, vectors);
    else for (const [key, vector] of vectors) this.#memory.set(key, vector);
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
    const unique = [...new Set(texts)];
    const held = this.#cached(unique.map((text) => sha256Hex(text)));
    const missing = unique.filter((text) => !held.has(sha256Hex(text)));
    const started = performance.now();
    for (let start = 0; start < missing.length; start += PRIME_CHUNK) {
      const chunk = missing.slice(start, start + PRIME_CHUNK);
      const vectors = await this.#model(chunk);
      this.#put(new Map(chunk.map((text, i) => [sha256Hex(text), vectors[i]!])));
      onProgress?.({ done: start + chunk.length, total: missing.length, elapsedMs: performance.now() - started });
    }
    return missing.length;
  }

  /**
   * Cached vectors for `texts` (primed ones), embedding the rest. Queries are keyed apart from
   * passages: an asymmetric model (e5, bge) embeds the same text differently for each.
   */
  async embed(texts: readonly string[], signal?: AbortSignal, kind?: EmbedKind): Promise<Float32Array[]> {
    const keyOf = (text: string): string => (kind === 'query' ? `query\0${text}` : text);
    const held = this.#cached(texts.map((text) => sha256Hex(keyOf(text))));
    const out: (Float32Array | undefined)[] = texts.map((text) => held.get(sha256Hex(keyOf(text))) ?? (this.#memoOn ? this.#memo.get(keyOf(text)) : undefined));
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
