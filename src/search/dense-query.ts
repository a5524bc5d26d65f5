import { dot } from '../embed/normalize.js';
import type { VectorMatch } from '../vector-index/vector-index.js';
import type { Centroid } from './centering.js';

/** A skill's dense evidence for one query. */
export interface DenseScore {
  /** Raw cosine with the whole message: what the relevance model reads (a chunk's best match would pass more off-topic messages). */
  readonly cosine: number;
  /** Best centred cosine over the query's vectors (see `centering.ts`). */
  readonly centered: number;
  /** Best plain cosine over the query's vectors. */
  readonly plain: number;
}

export interface DenseMatch extends DenseScore {
  readonly id: string;
}

/** The dense score that orders candidates: centred cosine, or plain when `centring` is false. */
export function denseOrder(score: { readonly centered: number; readonly plain: number }, centring: boolean): number {
  return centring ? score.centered : score.plain;
}

/**
 * The dense side of one search: the query's vectors (the whole message first, then its chunks,
 * see `query-chunks.ts`) scored against skill vectors, a skill keeping its best match.
 */
export class DenseQuery {
  readonly vectors: readonly Float32Array[];
  readonly #centroid: Centroid;
  /** q·μ per query vector. */
  readonly #queryMeans: readonly number[];

  constructor(vectors: readonly Float32Array[], centroid: Centroid) {
    this.vectors = vectors;
    this.#centroid = centroid;
    this.#queryMeans = vectors.map((vector) => dot(vector, centroid.mean));
  }

  /** q·μ for the whole message: how close it sits to the catalog's average skill. */
  get catalogCosine(): number {
    return this.#queryMeans[0] ?? 0;
  }

  score(key: string, vector: Float32Array): DenseScore {
    let cosine = 0;
    let centered = Number.NEGATIVE_INFINITY;
    let plain = Number.NEGATIVE_INFINITY;
    this.vectors.forEach((query, i) => {
      const c = dot(query, vector);
      if (i === 0) cosine = c;
      plain = Math.max(plain, c);
      centered = Math.max(centered, this.#centroid.score(key, vector, c, this.#queryMeans[i]!));
    });
    return { cosine, centered, plain };
  }

  /**
   * The union of the index's `limit` nearest skills to each query vector, rescored from the
   * stored vectors and ordered by `denseOrder` (ties by id, so the order is reproducible).
   * `lookup` gives a skill's cache key and vector, or undefined for an id the catalog no longer has.
   */
  matches(
    index: { search(query: Float32Array, k: number): VectorMatch[] },
    limit: number,
    lookup: (id: string) => { readonly key: string; readonly vector: Float32Array } | undefined,
  ): DenseMatch[] {
    const ids = new Set<string>();
    for (const vector of this.vectors) for (const match of index.search(vector, limit)) ids.add(match.id);
    const out: DenseMatch[] = [];
    for (const id of ids) {
      const found = lookup(id);
      if (found !== undefined) out.push({ id, ...this.score(found.key, found.vector) });
    }
    const centring = this.#centroid.centres;
    return out.sort((a, b) => denseOrder(b, centring) - denseOrder(a, centring) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}
