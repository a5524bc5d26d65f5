import { dot } from '../embed/normalize.js';

/** Keeps the `k` highest-scoring items of a stream in a binary min-heap: O(n log k) time, O(k) memory. */
export class TopK<T> {
  readonly #k: number;
  readonly #items: T[] = [];
  readonly #scores: number[] = [];

  constructor(k: number) {
    this.#k = Math.max(0, Math.floor(k));
  }

  /** The score an item must beat to enter (−∞ until the heap is full). */
  get threshold(): number {
    return this.#items.length < this.#k ? Number.NEGATIVE_INFINITY : this.#scores[0]!;
  }

  push(item: T, score: number): void {
    if (this.#k === 0) return;
    if (this.#items.length < this.#k) {
      this.#items.push(item);
      this.#scores.push(score);
      this.#up(this.#items.length - 1);
    } else if (score > this.#scores[0]!) {
      this.#items[0] = item;
      this.#scores[0] = score;
      this.#down(0);
    }
  }

  /** Items with their scores, best first. Ties keep no particular order. */
  sorted(): { item: T; score: number }[] {
    return this.#items.map((item, i) => ({ item, score: this.#scores[i]! })).sort((a, b) => b.score - a.score);
  }

  #swap(a: number, b: number): void {
    [this.#items[a], this.#items[b]] = [this.#items[b]!, this.#items[a]!];
    [this.#scores[a], this.#scores[b]] = [this.#scores[b]!, this.#scores[a]!];
  }

  #up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.#scores[parent]! <= this.#scores[i]!) return;
      this.#swap(parent, i);
      i = parent;
    }
  }

  #down(i: number): void {
    const n = this.#items.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < n && this.#scores[left]! < this.#scores[smallest]!) smallest = left;
      if (right < n && this.#scores[right]! < this.#scores[smallest]!) smallest = right;
      if (smallest === i) return;
      this.#swap(smallest, i);
      i = smallest;
    }
  }
}

/** The `k` of `items` nearest `query` (dot product: cosine on normalised vectors), best first: an exact scan. */
export function nearest<T>(items: Iterable<readonly [T, Float32Array]>, query: Float32Array, k: number): { item: T; score: number }[] {
  const top = new TopK<T>(k);
  for (const [item, vector] of items) {
    const score = dot(vector, query);
    if (score > top.threshold) top.push(item, score);
  }
  return top.sorted();
}
