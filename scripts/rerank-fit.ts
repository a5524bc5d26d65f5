/**
 * The arithmetic of `scripts/fit-rerank.ts` apart from its command line (so it can be tested): the
 * two losses and their Newton fit, the fold key, and the one-standard-error choice.
 */
import { solve } from './solve.js';

export type Objective = 'softmax' | 'pairwise';

/** One query's re-ranker pool: its suite (each suite weighs alike), ordering scores, feature rows, labels. */
export interface FitListing<S = string> {
  readonly suite: S;
  readonly orders: readonly number[];
  readonly rows: readonly (readonly number[])[];
  readonly labels: readonly boolean[];
}

/** One query's contribution to the loss at `beta` (its rows standardised, column 0 the ordering score): value, gradient, Hessian, each times `w`. */
export type QueryLoss = (
  rows: readonly (readonly number[])[],
  labels: readonly boolean[],
  beta: readonly number[],
  w: number,
  grad: number[] | undefined,
  hess: number[][] | undefined,
) => number;

const linear = (row: readonly number[], beta: readonly number[]): number => row.reduce((acc, value, j) => acc + beta[j]! * value, 0);

/** Listwise: a softmax over the pool, target spread evenly over its relevant members. */
export const softmaxLoss: QueryLoss = (rows, labels, beta, w, grad, hess) => {
  const z = rows.map((row) => linear(row, beta));
  const top = Math.max(...z);
  const e = z.map((value) => Math.exp(value - top));
  const sum = e.reduce((a, b) => a + b, 0);
  const log = top + Math.log(sum);
  const relevant = labels.filter(Boolean).length;
  let value = 0;
  z.forEach((zi, i) => {
    if (labels[i]) value -= (w * (zi - log)) / relevant;
  });
  if (grad === undefined || hess === undefined) return value;
  const p = e.map((v) => v / sum);
  const d = beta.length;
  const mean = new Array<number>(d).fill(0);
  rows.forEach((row, i) => row.forEach((v, j) => (mean[j]! += p[i]! * v)));
  rows.forEach((row, i) => {
    const t = labels[i] ? 1 / relevant : 0;
    for (let j = 0; j < d; j += 1) {
      grad[j]! += w * (p[i]! - t) * row[j]!;
      for (let k = 0; k <= j; k += 1) hess[j]![k]! += w * p[i]! * (row[j]! - mean[j]!) * (row[k]! - mean[k]!);
    }
  });
  return value;
};

/** Pairwise: logistic loss on each relevant member's score minus each irrelevant one's, the query's pairs weighing `w` in all. */
export const pairwiseLoss: QueryLoss = (rows, labels, beta, w, grad, hess) => {
  const z = rows.map((row) => linear(row, beta));
  const pairs: [number, number][] = [];
  labels.forEach((relevant, r) => {
    if (relevant) labels.forEach((other, j) => !other && pairs.push([r, j]));
  });
  if (pairs.length === 0) return 0;
  const each = w / pairs.length;
  const d = beta.length;
  let value = 0;
  for (const [r, j] of pairs) {
    const margin = z[r]! - z[j]!;
    // log(1 + e^−m), stable both ways.
    value += each * (margin > 0 ? Math.log1p(Math.exp(-margin)) : -margin + Math.log1p(Math.exp(margin)));
    if (grad === undefined || hess === undefined) continue;
    const s = 1 / (1 + Math.exp(margin));
    const diff = rows[r]!.map((v, k) => v - rows[j]![k]!);
    for (let a = 0; a < d; a += 1) {
      grad[a]! -= each * s * diff[a]!;
      for (let b = 0; b <= a; b += 1) hess[a]![b]! += each * s * (1 - s) * diff[a]! * diff[b]!;
    }
  }
  return value;
};

/**
 * Fits the weights of `listings` under `objective` (`softmax` or `pairwise`): features standardised on the rows fitted,
 * each query weighted so every suite weighs alike (or as `suiteWeights` says, a suite absent from it weighing 1); parameter 0 (the ordering score's weight, `temperature`)
 * unpenalised, the others with a ridge `l2` × the total weight; Newton's method from zero with step halving.
 */
export function fitListings<S>(
  listings: readonly FitListing<S>[],
  l2: number,
  objective: Objective,
  suiteWeights: ReadonlyMap<S, number> = new Map(),
): { temperature: number; weights: number[]; mean: number[]; scale: number[] } {
  const queryLoss = objective === 'pairwise' ? pairwiseLoss : softmaxLoss;
  const d = listings[0]?.rows[0]?.length ?? 0;
  const suiteCount = new Map<S, number>();
  for (const l of listings) suiteCount.set(l.suite, (suiteCount.get(l.suite) ?? 0) + 1);
  const weightOf = (l: FitListing<S>): number => (suiteWeights.get(l.suite) ?? 1) / suiteCount.get(l.suite)!;
  // Standardise on every row fitted, each weighted like its query.
  const mean = new Array<number>(d).fill(0);
  const square = new Array<number>(d).fill(0);
  let total = 0;
  for (const l of listings) {
    const w = weightOf(l) / l.rows.length;
    for (const row of l.rows) {
      total += w;
      row.forEach((value, j) => {
        mean[j]! += w * value;
        square[j]! += w * value * value;
      });
    }
  }
  for (let j = 0; j < d; j += 1) mean[j]! /= total;
  const scale = square.map((s, j) => Math.sqrt(Math.max(0, s / total - mean[j]! ** 2)) || 1);
  const x = listings.map((l) => l.rows.map((row, i) => [l.orders[i]!, ...row.map((value, j) => (value - mean[j]!) / scale[j]!)]));
  const lambda = l2 * listings.reduce((sum, l) => sum + weightOf(l), 0);
  const penalty = (b: readonly number[]): number => {
    let sum = 0;
    for (let j = 1; j <= d; j += 1) sum += (lambda / 2) * b[j]! ** 2;
    return sum;
  };
  const loss = (b: readonly number[]): number =>
    listings.reduce((sum, l, q) => sum + queryLoss(x[q]!, l.labels, b, weightOf(l), undefined, undefined), 0) + penalty(b);
  let beta = new Array<number>(d + 1).fill(0);
  for (let iter = 0; iter < 100; iter += 1) {
    const grad = new Array<number>(d + 1).fill(0);
    const hess = Array.from({ length: d + 1 }, () => new Array<number>(d + 1).fill(0));
    listings.forEach((l, q) => queryLoss(x[q]!, l.labels, beta, weightOf(l), grad, hess));
    for (let j = 0; j <= d; j += 1) for (let k = 0; k < j; k += 1) hess[k]![j] = hess[j]![k]!;
    for (let j = 1; j <= d; j += 1) {
      grad[j]! += lambda * beta[j]!;
      hess[j]![j]! += lambda;
    }
    hess[0]![0]! += 1e-9;
    const step = solve(hess, grad);
    // Newton's step, halved until the penalised loss does not rise.
    const current = loss(beta);
    let size = 1;
    let next = beta.map((value, j) => value - step[j]!);
    while (size > 1e-6 && !(loss(next) <= current + 1e-12)) {
      size /= 2;
      next = beta.map((value, j) => value - size * step[j]!);
    }
    beta = next;
    if (size * Math.max(...step.map(Math.abs)) < 1e-7) break;
  }
  return { temperature: beta[0]!, weights: beta.slice(1), mean, scale };
}

/** What a case's fold is drawn from: its id (`id`), or the ids of its relevant candidates (`label`; its id when none is a candidate). */
export function foldKey(
  c: { readonly id: string; readonly candidates: readonly { readonly id: string }[]; readonly labels: readonly boolean[] },
  groups: 'id' | 'label',
): string {
  if (groups === 'id') return c.id;
  const relevant = c.candidates.filter((_, i) => c.labels[i]).map((hit) => hit.id);
  return relevant.length === 0 ? `id:${c.id}` : `skills:${[...new Set(relevant)].sort().join('\n')}`;
}

/** A setting's cross-validated score (mean hit@1 + hit@5), MRR, and score on each held-out fold, with how simple it is (smaller first, compared in order). */
export interface ScoredSetting {
  readonly score: number;
  readonly mrr: number;
  readonly foldScores: readonly number[];
  readonly simplicity: readonly number[];
}

/** `a` beats `b`: a higher score, MRR breaking ties. */
export function scoresAbove(a: Pick<ScoredSetting, 'score' | 'mrr'>, b: Pick<ScoredSetting, 'score' | 'mrr'>): boolean {
  return a.score > b.score + 1e-12 || (Math.abs(a.score - b.score) <= 1e-12 && a.mrr > b.mrr + 1e-12);
}

/**
 * The best setting (the earlier one on exact ties), the standard error of its score over the folds, and the simplest setting
 * whose score is within that of the best's (the earlier one among equally simple): the one-standard-error rule.
 */
export function oneStandardError<T extends ScoredSetting>(scored: readonly T[]): { best: T; se: number; within: number; pick: T } {
  if (scored.length === 0) throw new Error('oneStandardError: no settings');
  const best = scored.reduce((top, entry) => (scoresAbove(entry, top) ? entry : top));
  const folds = best.foldScores;
  const mean = folds.reduce((a, b) => a + b, 0) / folds.length;
  const se = folds.length < 2 ? 0 : Math.sqrt(folds.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (folds.length - 1) / folds.length);
  const near = scored.filter((entry) => entry.score >= best.score - se - 1e-12);
  const simpler = (a: readonly number[], b: readonly number[]): boolean => {
    const j = a.findIndex((value, k) => value !== b[k]);
    return j >= 0 && a[j]! < b[j]!;
  };
  return { best, se, within: near.length, pick: near.reduce((a, b) => (simpler(b.simplicity, a.simplicity) ? b : a)) };
}
