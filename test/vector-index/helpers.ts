import { normalizeInPlace } from '../../src/embed/normalize.js';

/** Deterministic pseudo-random unit vectors (mulberry32), so index tests are reproducible. */
export function randomVectors(count: number, dimensions: number, seed = 7): Float32Array[] {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
  return Array.from({ length: count }, () => normalizeInPlace(Float32Array.from({ length: dimensions }, next)));
}

export function unit(...values: number[]): Float32Array {
  return normalizeInPlace(Float32Array.from(values));
}
