import type { VectorMatch } from './vector-index.js';

/**
 * What ranking needs from the vector side of a catalog, whoever holds it: a live index in memory
 * ({@link CatalogVectors}) or a catalog saved in the store (`StoredVectors`).
 */
export interface DenseSide {
  /** At most `k` members nearest `query`, best first. */
  search(query: Float32Array, k: number): VectorMatch[];
  /** The content key and vector of member `id`; undefined for a non-member. */
  stored(id: string): { readonly key: string; readonly vector: Float32Array } | undefined;
  /** The mean of the members' vectors (centering, `src/search/centering.ts`). */
  mean(): Float32Array;
  /** Changes whenever the members' vectors do (a cached mean is then stale). */
  readonly version: number;
}

/** The vector layer's knobs. */
export const VECTOR_DEFAULTS = Object.freeze({
  /**
   * Catalogs with fewer distinct vectors are searched exactly and keep no graph: a scan of 2k
   * 512-d rows takes about a millisecond, and exact search is the recall baseline.
   */
  exactBelow: 2048,
});
