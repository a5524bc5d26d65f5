import { SkillSearchError } from '../errors.js';

/** A nearest-neighbour match: `score` is the cosine similarity (vectors are normalised). */
export interface VectorMatch {
  readonly id: string;
  readonly score: number;
}

/** `exact` scans every vector (the recall baseline); `hnsw` asks a graph above `VECTOR_DEFAULTS.exactBelow` vectors. */
export type VectorIndexKind = 'hnsw' | 'exact';

export function assertDimensions(vector: Float32Array, dimensions: number): void {
  if (vector.length !== dimensions) {
    throw new SkillSearchError('INTERNAL', `Expected a ${dimensions}-dimensional vector, got ${vector.length}`);
  }
}
