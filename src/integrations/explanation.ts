import type { HitExplanation } from '../types.js';

/** An explanation with every number rounded to 4 decimals, for JSON a person or a model reads. */
export function roundExplanation(why: HitExplanation): HitExplanation {
  const r = (value: number): number => Math.round(value * 10_000) / 10_000;
  return {
    matched: why.matched,
    ...(why.lexical === undefined ? {} : { lexical: { bm25: r(why.lexical.bm25), coverage: r(why.lexical.coverage) } }),
    ...(why.dense === undefined ? {} : { dense: { cosine: r(why.dense.cosine), centered: r(why.dense.centered) } }),
    ...(why.order === undefined ? {} : { order: r(why.order) }),
    ...(why.answerable === undefined ? {} : { answerable: r(why.answerable) }),
    ...(why.fits === undefined ? {} : { fits: r(why.fits) }),
    threshold: r(why.threshold),
    passed: why.passed,
    ...(why.named === undefined ? {} : { named: why.named }),
    ...(why.translation === undefined ? {} : { translation: why.translation }),
  };
}
