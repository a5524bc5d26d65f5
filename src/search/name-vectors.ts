import { createHash } from 'node:crypto';
import { throwIfAborted } from '../errors.js';
import type { SharedStore } from '../store/shared-store.js';
import type { Embedder } from '../types.js';
import { humanizeName } from './skill-text.js';

/**
 * A skill's name embedded on its own, kept in the store beside the skill vectors and read by the
 * re-ranker's `nameDense` feature (docs/retrieval.md, twenty-first round). The writer that saved a
 * catalog embeds its names afterwards ({@link NameVectors.complete}); a search only reads them
 * ({@link NameVectors.every}), so no one waits for them and a search never writes one.
 */

/** Bump when {@link nameText} changes: it is part of the store's name model id, so old vectors are not mixed in. */
export const NAME_TEXT_VERSION = 'n1';

/** What the dense model reads for a skill's name: its words (`pdf-extract` → `pdf extract`). */
export const nameText = (name: string): string => humanizeName(name);

/** What starts the text part of a name vector's model id, whatever its version (a skill vector's is `t<version>`). */
export const NAME_MODEL_TAG = 'name-';

/** The store's model id of name vectors: never a skill vector's (`<embedder id>#t2`), nor another embedder's. */
export const nameModel = (embedderId: string): string => `${embedderId}#${NAME_MODEL_TAG}${NAME_TEXT_VERSION}`;

/** The store's key of a name's vector: the sha256 of the text embedded. */
const nameKey = (text: string): string => createHash('sha256').update(text).digest('hex');

export class NameVectors {
  readonly #store: SharedStore;
  readonly #model: string;
  readonly #dimensions: number;
  /** Vectors found in the store, by skill name: under one model id a name's vector never changes. */
  readonly #found = new Map<string, Float32Array>();

  constructor(store: SharedStore, embedderId: string, dimensions: number) {
    this.#store = store;
    this.#model = nameModel(embedderId);
    this.#dimensions = dimensions;
  }

  /** The stored vectors of `names`, in order, or undefined unless every one is stored. A store that fails answers undefined (`SharedStore`). */
  every(names: readonly string[]): Float32Array[] | undefined {
    const wanted = [...new Set(names.filter((name) => !this.#found.has(name)))];
    if (wanted.length > 0) {
      const keys = wanted.map((name) => nameKey(nameText(name)));
      const stored = this.#store.vectors(this.#model, this.#dimensions, keys);
      wanted.forEach((name, i) => {
        const vector = stored.get(keys[i]!);
        if (vector !== undefined) this.#found.set(name, vector);
      });
    }
    const vectors: Float32Array[] = [];
    for (const name of names) {
      const vector = this.#found.get(name);
      if (vector === undefined) return undefined;
      vectors.push(vector);
    }
    return vectors;
  }

  /**
   * Embeds the names of `names` the store lacks, `batchSize` at a time, each batch put once the
   * store's write lock is free (an interrupted run keeps what it embedded); returns how many were embedded.
   */
  async complete(embedder: Embedder, names: Iterable<string>, batchSize: number, signal?: AbortSignal): Promise<number> {
    const texts = [...new Set([...names].map(nameText))];
    const keys = texts.map(nameKey);
    const stored = this.#store.vectors(this.#model, this.#dimensions, keys);
    const missing = texts.filter((_, i) => !stored.has(keys[i]!));
    let embedded = 0;
    for (let start = 0; start < missing.length && this.#store.problem === undefined; start += batchSize) {
      throwIfAborted(signal);
      const batch = missing.slice(start, start + batchSize);
      const vectors = await embedder.embed(batch, signal, 'passage');
      const made = new Map(batch.map((text, i) => [nameKey(text), vectors[i]!]));
      await this.#store.whenFree(() => this.#store.putVectors(this.#model, made), undefined, signal);
      embedded += batch.length;
    }
    return embedded;
  }
}
