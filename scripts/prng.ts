/**
 * mulberry32: a tiny, well-mixed, seeded 32-bit PRNG. Scripts, tests and benchmarks use it so
 * that a generated model, a storm or a soak run can be replayed from its seed.
 */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
