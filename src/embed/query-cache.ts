import type { Embedder } from '../types.js';
import { raceAbort } from './abortable.js';

/** Whitespace runs collapse and ends are trimmed: `  fix  CI ` and `fix CI` are one query. Case is kept (the encoder sees it). */
export function normalizeQueryText(query: string): string {
  return query.trim().replace(/\s+/g, ' ');
}

/**
 * A small LRU of query vectors in front of an embedder: one message is often searched more than once. Concurrent
 * callers share one model call, run without any caller's signal (each races its own); a failed call is forgotten.
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
    const text = normalizeQueryText(query);
    const key = `${this.#embedder.id}\0${text}`;
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = this.#call(text);
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

  async #call(query: string, signal?: AbortSignal): Promise<Float32Array> {
    const [vector] = await this.#embedder.embed([query], signal, 'query');
    return vector!;
  }
}
