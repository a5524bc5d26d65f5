/**
 * The arithmetic of `scripts/fit-rerank.ts` apart from its command line (so it can be tested): the
 * two losses and their Newton fit, the fold key, and the one-standard-error choice.
 */
import { treeValue, type RerankTree } from '../src/search/rerank.js';
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

/** How `boostTrees` grows its trees. */
export interface BoostOptions {
  /** How many trees. */
  readonly trees: number;
  /** Splits from the root to a leaf. */
  readonly depth: number;
  /** Each tree's leaves are shrunk by this. */
  readonly rate: number;
  /** Ridge on each leaf's value (added to its Hessian), in units of one query's weight. */
  readonly l2: number;
  /** Least Hessian each side of a split keeps (in the same units), so no leaf rests on a query or two. */
  readonly minHessian: number;
  /** Thresholds tried per feature at most (quantiles of its values when it has more). */
  readonly bins?: number;
}

/**
 * Gradient-boosted regression trees over `listings`' raw rows, added to each member's `base` score (the linear model's), fitted to
 * the same listwise softmax loss as `fitListings` (target spread evenly over each query's relevant members), each suite weighing
 * alike as there (`suiteWeights`), every query weighing 1 on average. Each tree is one Newton step: a member's gradient
 * `p − t` and Hessian `p(1 − p)` (its query's weight times), splits chosen greedily by the gain of the regularised Newton
 * leaves, leaf `−rate · G / (H + l2)`. No randomness: every row, every feature, thresholds from the data's quantiles.
 */
export function boostTrees<S>(
  listings: readonly FitListing<S>[],
  base: readonly (readonly number[])[],
  options: BoostOptions,
  suiteWeights: ReadonlyMap<S, number> = new Map(),
): RerankTree[] {
  const { trees: count, depth, rate, l2, minHessian, bins = 32 } = options;
  const d = listings[0]?.rows[0]?.length ?? 0;
  const suiteCount = new Map<S, number>();
  for (const l of listings) suiteCount.set(l.suite, (suiteCount.get(l.suite) ?? 0) + 1);
  const raw = listings.map((l) => (suiteWeights.get(l.suite) ?? 1) / suiteCount.get(l.suite)!);
  const total = raw.reduce((a, b) => a + b, 0);
  const queryWeight = raw.map((w) => (w * listings.length) / total);
  // Flat rows: which query each belongs to, its features, its bin per feature.
  const rows = listings.flatMap((l) => l.rows);
  const thresholds = Array.from({ length: d }, (_, j) => {
    const values = [...new Set(rows.map((row) => row[j]!))].sort((a, b) => a - b);
    if (values.length <= bins) return values;
    return [...new Set(Array.from({ length: bins }, (_, b) => values[Math.floor(((b + 1) * (values.length - 1)) / bins)]!))];
  });
  const binOf = rows.map((row) =>
    row.map((value, j) => {
      const cuts = thresholds[j]!;
      let low = 0;
      let high = cuts.length - 1;
      while (low < high) {
        const mid = (low + high) >> 1;
        if (value <= cuts[mid]!) high = mid;
        else low = mid + 1;
      }
      return low;
    }),
  );
  const score = listings.map((l, q) => l.rows.map((_, i) => base[q]![i]!));
  const grad = new Float64Array(rows.length);
  const hess = new Float64Array(rows.length);
  const grow = (members: readonly number[], left: number): RerankTree => {
    let g = 0;
    let h = 0;
    for (const r of members) {
      g += grad[r]!;
      h += hess[r]!;
    }
    // `|| 0`: a leaf of no gradient is 0, not −0.
    const leaf = (-rate * g) / (h + l2) || 0;
    if (left === 0) return leaf;
    const parent = (g * g) / (h + l2);
    let best = { gain: 1e-12, feature: -1, bin: -1 };
    for (let j = 0; j < d; j += 1) {
      const n = thresholds[j]!.length;
      const gs = new Float64Array(n);
      const hs = new Float64Array(n);
      for (const r of members) {
        gs[binOf[r]![j]!]! += grad[r]!;
        hs[binOf[r]![j]!]! += hess[r]!;
      }
      let gl = 0;
      let hl = 0;
      for (let b = 0; b < n - 1; b += 1) {
        gl += gs[b]!;
        hl += hs[b]!;
        const hr = h - hl;
        if (hl < minHessian || hr < minHessian) continue;
        const gain = (gl * gl) / (hl + l2) + ((g - gl) * (g - gl)) / (hr + l2) - parent;
        if (gain > best.gain) best = { gain, feature: j, bin: b };
      }
    }
    if (best.feature < 0) return leaf;
    const { feature, bin } = best;
    const below = members.filter((r) => binOf[r]![feature]! <= bin);
    const above = members.filter((r) => binOf[r]![feature]! > bin);
    return [feature, thresholds[feature]![bin]!, grow(below, left - 1), grow(above, left - 1)];
  };
  const everyRow = rows.map((_, r) => r);
  const fitted: RerankTree[] = [];
  for (let t = 0; t < count; t += 1) {
    let r = 0;
    listings.forEach((l, q) => {
      const z = score[q]!;
      const top = Math.max(...z);
      const e = z.map((value) => Math.exp(value - top));
      const sum = e.reduce((a, b) => a + b, 0);
      const relevant = l.labels.filter(Boolean).length;
      e.forEach((value, i) => {
        const p = value / sum;
        grad[r] = queryWeight[q]! * (p - (l.labels[i] ? 1 / relevant : 0));
        hess[r] = queryWeight[q]! * Math.max(p * (1 - p), 1e-6);
        r += 1;
      });
    });
    const tree = grow(everyRow, depth);
    fitted.push(tree);
    listings.forEach((l, q) => l.rows.forEach((row, i) => (score[q]![i] = score[q]![i]! + treeValue(tree, row))));
  }
  return fitted;
}
