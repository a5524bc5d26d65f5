import { dot } from '../embed/normalize.js';
import { meanOf } from '../vector-index/catalog-vectors.js';

/**
 * Skill-side centering: cos(q, m − μ) = (q·m − q·μ) / |m − μ|, μ the mean of the catalog's skill
 * vectors. q·μ is one constant per query, so a skill is scored by how much better it matches than
 * the catalog's average skill, per unit of its own distance from it. Only the skill side is
 * centred: queries come from another distribution. The centred cosine is always computed (the
 * relevance model reads it); {@link centres} only says whether it or the plain cosine orders
 * dense candidates (docs/retrieval.md, "Centring").
 */
export class Centroid {
  readonly mean: Float32Array;
  /** Whether the centred cosine orders dense candidates (`EngineOptions.centring`); false: the plain cosine does. */
  readonly centres: boolean;
  /** |μ|²: for unit skill vectors, the catalog's mean pairwise cosine (plus 1/n), reported by `scripts/measure-centring.ts`. */
  readonly meanSquared: number;
  /** |m − μ|² = 1 − 2 m·μ + |μ|² for a unit m, cached per vector key. */
  readonly #norms = new Map<string, number>();

  constructor(mean: Float32Array, { centre = true }: { readonly centre?: boolean } = {}) {
    this.mean = mean;
    this.centres = centre;
    this.meanSquared = dot(mean, mean);
  }

  /** The mean of `vectors` (all of `dimensions` length); a zero mean when there are none. */
  static of(vectors: Iterable<Float32Array>, dimensions: number, options: { readonly centre?: boolean } = {}): Centroid {
    const sum = new Float64Array(dimensions);
    let count = 0;
    for (const vector of vectors) {
      for (let i = 0; i < dimensions; i += 1) sum[i]! += vector[i]!;
      count += 1;
    }
    return new Centroid(meanOf(sum, count), options);
  }

  /**
   * cos(query, vector − μ) given `cosine` = query·vector and `queryMean` = query·μ. A skill equal
   * to the mean (a one-skill catalog) has no direction left and scores 0.
   */
  score(key: string, vector: Float32Array, cosine: number, queryMean: number): number {
    let squared = this.#norms.get(key);
    if (squared === undefined) {
      squared = Math.max(0, 1 - 2 * dot(vector, this.mean) + this.meanSquared);
      this.#norms.set(key, squared);
    }
    return squared < 1e-12 ? 0 : (cosine - queryMean) / Math.sqrt(squared);
  }
}
