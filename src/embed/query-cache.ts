import type { Embedder } from '../types.js';
import { raceAbort } from './abortable.js';

/** Whitespace runs collapse and ends are trimmed: `  fix  CI ` and `fix CI` are one query. Case is kept (the encoder sees it). */
export function normalizeQueryText(query: string): string {
  return query.trim().replace(/\s+/g, ' ');
}

/**
 * A small LRU of query vectors in front of an embedder (embedded as `query`, so asymmetric
 * models add their query prompt). The same message is often searched
 * more than once (the prefetch path and a hook on one turn, a retried turn, eval modes), and
 * the query embedding is most of a warm search's time.
 *
 * In-flight embeddings are shared: concurrent searches for one query wait on a single model
 * call. That call runs without any caller's signal (one caller aborting must not fail the
 * others); each caller races its own signal instead. A failed call is forgotten.
 */
export class QueryEmbeddingCache {
  readonly capacity: number;
  readonly #embedder: Embedder;
  readonly #entries = new Map<string, Promise<Float32Array>>();

  constructor(embedder: Embedder, capacity: number) {
    this.#embedder = embedder;
    this.capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  embed(query: string, signal?: AbortSignal): Promise<Float32Array> {
    if (this.capacity === 0) return this.#call(query, signal);
    const key = `${this.#embedder.id}\0${normalizeQueryText(query)}`;
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = this.#call(normalizeQueryText(query));
      entry.catch(() => {
        if (this.#entries.get(key) === entry) this.#entries.delete(key);
      });
    } else {
      this.#entries.delete(key);
    }
    this.#entries.set(key, entry);
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
    return raceAbort(entry, signal);
  }

  clear(): void {
    this.#entries.clear();
  }

  async #call(query: string, signal?: AbortSignal): Promise<Float32Array> {
    const [vector] = await this.#embedder.embed([query], signal, 'query');
    return vector!;
  }
}
