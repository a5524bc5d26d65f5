/**
 * The relevance models' fit (`scripts/fit-abstention.ts`, `scripts/fit-relevance-kind.ts`): weighted
 * logistic regression on standardised features, ridge `L2`, Newton's method from zero weights (no
 * randomness: the same data gives the same model), ordering weights kept ≥ 0.
 */
import { ORDERING_FEATURES, type FeatureName, type LogisticModel } from '../src/search/relevance.js';
import { solve } from './solve.js';

/** Ridge penalty on standardised weights, per unit of sample weight. */
export const L2 = 1e-3;

export const round = (value: number): number => Number(value.toPrecision(6));

/** Weighted L2-regularised logistic regression by Newton's method; `fixed` weights stay 0. */
function newton(x: number[][], y: number[], w: number[], fixed: ReadonlySet<number>, l2: number): { weights: number[]; bias: number } {
  const d = x[0]!.length;
  let beta = new Array<number>(d + 1).fill(0);
  const total = w.reduce((a, b) => a + b, 0);
  const lambda = l2 * total;
  for (let iter = 0; iter < 50; iter += 1) {
    const grad = new Array<number>(d + 1).fill(0);
    const hess = Array.from({ length: d + 1 }, () => new Array<number>(d + 1).fill(0));
    for (let i = 0; i < x.length; i += 1) {
      const row = [1, ...x[i]!];
      let z = 0;
      for (let j = 0; j <= d; j += 1) z += beta[j]! * row[j]!;
      const p = 1 / (1 + Math.exp(-z));
      const g = w[i]! * (p - y[i]!);
      const h = w[i]! * p * (1 - p);
      for (let j = 0; j <= d; j += 1) {
        grad[j]! += g * row[j]!;
        for (let l = 0; l <= j; l += 1) hess[j]![l]! += h * row[j]! * row[l]!;
      }
    }
    for (let j = 0; j <= d; j += 1) for (let l = 0; l < j; l += 1) hess[l]![j] = hess[j]![l]!;
    for (let j = 1; j <= d; j += 1) {
      grad[j]! += lambda * beta[j]!;
      hess[j]![j]! += lambda;
    }
    for (const j of fixed) {
      grad[j + 1] = 0;
      for (let l = 0; l <= d; l += 1) hess[j + 1]![l] = hess[l]![j + 1] = l === j + 1 ? 1 : 0;
    }
    const step = solve(hess, grad);
    beta = beta.map((value, j) => value - step[j]!);
    if (Math.max(...step.map(Math.abs)) < 1e-8) break;
  }
  return { bias: beta[0]!, weights: beta.slice(1) };
}

/**
 * Fits `features` on the given rows (suite-balanced weights); ordering features are kept ≥ 0. A
 * script may name a column of its own (`Name`), which no shipped model can read; `l2` is the ridge
 * penalty ({@link L2} unless a script compares penalties).
 */
export function fitLogistic<Name extends string = FeatureName>(
  features: readonly Name[],
  x: number[][],
  y: number[],
  w: number[],
  l2 = L2,
): Omit<LogisticModel, 'features'> & { readonly features: readonly Name[] } {
  const mean = features.map((_, j) => x.reduce((sum, row) => sum + row[j]!, 0) / x.length);
  const scale = features.map((_, j) => Math.sqrt(x.reduce((sum, row) => sum + (row[j]! - mean[j]!) ** 2, 0) / x.length) || 1);
  const z = x.map((row) => row.map((value, j) => (value - mean[j]!) / scale[j]!));
  const fixed = new Set<number>();
  for (;;) {
    const { weights, bias } = newton(z, y, w, fixed, l2);
    // Ordering features may only raise relevance; a negative one is pinned at 0 and the rest refitted.
    const negative = features.findIndex((name, j) => (ORDERING_FEATURES as readonly string[]).includes(name) && !fixed.has(j) && weights[j]! < 0);
    if (negative < 0) return { features, mean: mean.map(round), scale: scale.map(round), weights: weights.map(round), bias: round(bias) };
    fixed.add(negative);
  }
}
