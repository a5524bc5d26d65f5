import { SkillSearchError } from '../errors.js';

/** A nearest-neighbour match: `score` is the cosine similarity (vectors are normalised). */
export interface VectorMatch {
  readonly id: string;
  readonly score: number;
}

/** `exact` scans every vector (the recall baseline); `hnsw` asks a graph from {@link EXACT_BELOW} distinct vectors up. */
export type VectorIndexKind = 'hnsw' | 'exact';

/** Catalogs with fewer distinct vectors are searched exactly and keep no graph (docs/vector-index.md, "The graph file"). */
export const EXACT_BELOW = 2048;

/**
 * What ranking needs from the vector side of a catalog, whoever holds it: a live index in memory
 * (`CatalogVectors`) or a catalog saved in the store (`StoredVectors`).
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

export function assertDimensions(vector: Float32Array, dimensions: number): void {
  if (vector.length !== dimensions) {
    throw new SkillSearchError('INTERNAL', `Expected a ${dimensions}-dimensional vector, got ${vector.length}`);
  }
}
