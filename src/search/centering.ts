import { dot } from '../embed/normalize.js';

export interface CentroidOptions {
  /** Order dense candidates by centred cosine; false: by plain cosine (`EngineOptions.centring`). @default true */
  readonly centre?: boolean;
}

/**
 * Skill-side centering: dense candidates are ordered by cos(q, m − μ) instead of cos(q, m), where
 * μ is the mean of the catalog's skill vectors.
 *
 * cos(q, m − μ) = (q·m − q·μ) / |m − μ|. The q·μ term is one constant per query, so what changes
 * the order is the division: a skill is scored by how much better it matches than the catalog's
 * average skill, per unit of its own distance from that average. By raw cosine, a skill whose
 * vector lies far from the rest (another language, unusual wording) can outscore the others on
 * whatever sets it apart; sentence encoders also give every tool description a large shared
 * component, which raw cosine counts for every skill alike. Only the skill side is centred: μ
 * comes from the catalog alone, and queries come from a different distribution whose mean we do
 * not know. It raised dense and hybrid hit rates on MetaTool, small subsets included
 * (docs/retrieval.md).
 *
 * Raw cosines still feed the relevance model (`relevance.ts`); this only orders. μ is the
 * vector store's running sum over its count (`VectorStore.mean`), persisted with the vectors,
 * so a reopened index orders exactly as before without reading every vector.
 *
 * The centred cosine is always computed (the relevance model reads it); {@link centres} only says
 * which of the two orders candidates (`DenseQuery.order`). Plain cosine ordered better than
 * centred on most catalogues measured (not MetaTool's 199 tools alone), and far better with a
 * set's skills among thousands of registry skills (`scripts/measure-centring.ts`,
 * docs/retrieval.md "Centring").
 */
export class Centroid {
  readonly mean: Float32Array;
  /** Whether the centred cosine orders dense candidates; false: the plain cosine does. */
  readonly centres: boolean;
  /** |m − μ|² = 1 − 2 m·μ + |μ|² for a unit m, cached per vector key. */
  readonly #norms = new Map<string, number>();
  readonly #meanSquared: number;

  private constructor(mean: Float32Array, options: CentroidOptions) {
    this.mean = mean;
    this.centres = options.centre !== false;
    this.#meanSquared = dot(mean, mean);
  }

  /** A centroid at `mean` (e.g. `VectorStore.mean()`). */
  static ofMean(mean: Float32Array, options: CentroidOptions = {}): Centroid {
    return new Centroid(mean, options);
  }

  /**
   * |μ|²: for unit skill vectors, the catalogue's mean pairwise cosine (plus 1/n) — how much of
   * every skill's vector the catalogue shares. Reported by `scripts/measure-centring.ts`.
   */
  get meanSquared(): number {
    return this.#meanSquared;
  }

  /** The mean of `vectors` (all of `dimensions` length); a zero mean when there are none. */
  static of(vectors: Iterable<Float32Array>, dimensions: number, options: CentroidOptions = {}): Centroid {
    const sum = new Float64Array(dimensions);
    let count = 0;
    for (const vector of vectors) {
      for (let i = 0; i < dimensions; i += 1) sum[i]! += vector[i]!;
      count += 1;
    }
    const mean = new Float32Array(dimensions);
    if (count > 0) for (let i = 0; i < dimensions; i += 1) mean[i] = sum[i]! / count;
    return new Centroid(mean, options);
  }

  /**
   * cos(query, vector − μ) given `cosine` = query·vector and `queryMean` = query·μ. A skill equal
   * to the mean (a one-skill catalog) has no direction left and scores 0.
   */
  score(key: string, vector: Float32Array, cosine: number, queryMean: number): number {
    let squared = this.#norms.get(key);
    if (squared === undefined) {
      squared = Math.max(0, 1 - 2 * dot(vector, this.mean) + this.#meanSquared);
      this.#norms.set(key, squared);
    }
    return squared < 1e-12 ? 0 : (cosine - queryMean) / Math.sqrt(squared);
  }
}
