import { describe, expect, it } from 'vitest';
import { normalizeInPlace } from '../../src/embed/normalize.js';
import { Centroid } from '../../src/search/centering.js';

const unit = (...values: number[]): Float32Array => normalizeInPlace(Float32Array.from(values));
const dot = (a: Float32Array, b: Float32Array): number => a.reduce((sum, value, i) => sum + value * b[i]!, 0);

/** cos(q, m − μ) the long way, to check the shortcut the class takes. */
function centredCosine(query: Float32Array, vector: Float32Array, mean: Float32Array): number {
  const centred = vector.map((value, i) => value - mean[i]!);
  return dot(query, centred) / Math.sqrt(dot(centred, centred));
}

describe('Centroid', () => {
  const skills = [unit(1, 0, 0, 0), unit(1, 1, 0, 0), unit(1, 0, 1, 0), unit(3, 1, 1, 1)];
  const centroid = Centroid.of(skills, 4);

  it('is the mean of the catalog vectors', () => {
    const expected = [0, 1, 2, 3].map((i) => skills.reduce((sum, vector) => sum + vector[i]!, 0) / skills.length);
    expect([...centroid.mean].map((value, i) => value - expected[i]!).every((difference) => Math.abs(difference) < 1e-6)).toBe(true);
  });

  it('scores cos(query, skill − mean) from the raw cosine and query·mean', () => {
    const query = unit(1, 0.3, 0, 0.2);
    skills.forEach((vector, i) => {
      const score = centroid.score(`k${i}`, vector, dot(query, vector), dot(query, centroid.mean));
      expect(score).toBeCloseTo(centredCosine(query, vector, centroid.mean), 5);
    });
  });

  it('reorders: a skill far from the rest of the catalog no longer wins on what merely sets it apart', () => {
    // Three skills share a direction (think "a tool that helps users…"); the fourth lies apart.
    const catalog = [unit(2, 1, 0, 0), unit(2, 0, 1, 0), unit(2, -1, 0, 0), unit(0.2, 0, 0, 1)];
    const mean = Centroid.of(catalog, 4);
    const query = unit(0.5, 0.5, 0, 0.6);
    const raw = catalog.map((vector) => dot(query, vector));
    const centred = catalog.map((vector, i) => mean.score(`k${i}`, vector, raw[i]!, dot(query, mean.mean)));
    const best = (scores: number[]): number => scores.indexOf(Math.max(...scores));
    expect(best(raw)).toBe(3);
    expect(best(centred)).toBe(0);
  });

  it('scores 0 when a skill is the mean itself (a one-skill catalog)', () => {
    const only = unit(1, 2, 3, 4);
    const single = Centroid.of([only], 4);
    expect(single.score('only', only, 0.9, 0.9)).toBe(0);
  });

  it('has a zero mean for an empty catalog, leaving cosines as they are', () => {
    const empty = Centroid.of([], 4);
    expect([...empty.mean]).toEqual([0, 0, 0, 0]);
    expect(empty.score('a', unit(1, 0, 0, 0), 0.42, 0)).toBeCloseTo(0.42, 6);
  });

  it('still scores the centred cosine when told not to centre (only ordering changes), and reports |mean|² as the catalogue statistic', () => {
    const catalog = [unit(2, 1, 0, 0), unit(2, 0, 1, 0), unit(2, -1, 0, 0), unit(0.2, 0, 0, 1)];
    const plain = Centroid.of(catalog, 4, { centre: false });
    const query = unit(0.5, 0.5, 0, 0.6);
    expect(plain.centres).toBe(false);
    expect(Centroid.of(catalog, 4).centres).toBe(true);
    catalog.forEach((vector, i) =>
      expect(plain.score(`k${i}`, vector, dot(query, vector), dot(query, plain.mean))).toBeCloseTo(centredCosine(query, vector, plain.mean), 5),
    );
    expect(plain.meanSquared).toBeCloseTo(dot(plain.mean, plain.mean), 6);
    expect(new Centroid(plain.mean, { centre: false }).centres).toBe(false);
  });
});
