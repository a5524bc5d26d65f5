/** What {@link bestOf} picks from: the first `count` documents reached and their scores, in first-reached order. */
export interface Reached {
  readonly docs: Int32Array;
  readonly scores: Float64Array;
  readonly count: number;
  readonly limit: number;
  /** Scratch space for the heap of arrival orders, reused across searches. */
  readonly heap: Int32Array;
  /** Catalog position by document (`PostingsSource.positions`); absent: the document number. */
  readonly positions: ArrayLike<number> | undefined;
}

/** The `limit` highest-scoring reached documents, best first, equal scores by catalog position, in O(n log limit) without allocating per document. */
export function bestOf({ docs, scores, count, limit, heap, positions }: Reached): { doc: number; score: number }[] {
  if (limit <= 0) return [];
  const position = positions === undefined ? (order: number) => docs[order]! : (order: number) => positions[docs[order]!]!;
  // A min-heap on (score, then later position): its root is the weakest kept document.
  const weaker = (a: number, b: number) => scores[a]! < scores[b]! || (scores[a] === scores[b] && position(a) > position(b));
  let size = 0;
  for (let order = 0; order < count; order += 1) {
    if (size === limit && !weaker(heap[0]!, order)) continue;
    let i: number;
    if (size < limit) {
      i = size;
      size += 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!weaker(order, heap[parent]!)) break;
        heap[i] = heap[parent]!;
        i = parent;
      }
    } else {
      i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= size) break;
        const right = left + 1;
        const child = right < size && weaker(heap[right]!, heap[left]!) ? right : left;
        if (!weaker(heap[child]!, order)) break;
        heap[i] = heap[child]!;
        i = child;
      }
    }
    heap[i] = order;
  }
  const kept = Array.from(heap.subarray(0, size)).sort((a, b) => scores[b]! - scores[a]! || position(a) - position(b));
  return kept.map((order) => ({ doc: docs[order]!, score: scores[order]! }));
}
