import { dot } from '../embed/normalize.js';
import type { CatalogMembers } from '../store/entry-store.js';
import type { DenseSide } from './dense-side.js';
import type { LabelGraph } from './label-graph.js';
import { TopK } from './top-k.js';
import type { VectorMatch } from './vector-index.js';

/**
 * The vector side of a catalog saved in the store, read-only: a search asks the catalog's graph
 * (memory-mapped), with the few vectors an overlay changed scanned beside it, or, for a catalog
 * saved without one (a small one), scans its vectors, read from the store on the first search;
 * a hit's vector is read when ranking asks for it.
 */
export class StoredVectors implements DenseSide {
  readonly version = 0;
  readonly #members: CatalogMembers;
  readonly #dimensions: number;
  readonly #graph: LabelGraph | undefined;
  readonly #mean: Float32Array;
  #all: Map<number, Float32Array> | undefined;
  #overlaid: Map<number, Float32Array> | undefined;

  constructor(options: { members: CatalogMembers; dimensions: number; graph: LabelGraph | undefined; mean: Float32Array }) {
    this.#members = options.members;
    this.#dimensions = options.dimensions;
    this.#graph = options.graph;
    this.#mean = options.mean;
  }

  search(query: Float32Array, k: number): VectorMatch[] {
    const out: VectorMatch[] = [];
    const push = (label: number, score: number): void => {
      for (const id of this.#members.idsLabelled(label)) if (out.length < k) out.push({ id, score });
    };
    if (this.#graph !== undefined) {
      // An overlay's changed members may be missing from its (base's) graph: scanned exactly
      // beside it. The graph answers more than k, so stale labels (no member) are skipped.
      this.#overlaid ??= this.#members.overlaid(this.#dimensions);
      const overlaid = this.#overlaid;
      const matches = this.#graph.search(query, k + 2 * overlaid.size).filter((match) => !overlaid.has(match.label));
      for (const [label, vector] of overlaid) matches.push({ label, score: dot(vector, query) });
      if (overlaid.size > 0) matches.sort((a, b) => b.score - a.score);
      for (const match of matches) {
        if (out.length >= k) break;
        push(match.label, match.score);
      }
      return out;
    }
    this.#all ??= this.#members.labelled(this.#dimensions);
    const top = new TopK<number>(k);
    for (const [label, vector] of this.#all) {
      const score = dot(vector, query);
      if (score > top.threshold) top.push(label, score);
    }
    for (const { item, score } of top.sorted()) push(item, score);
    return out;
  }

  stored(id: string): { readonly key: string; readonly vector: Float32Array } | undefined {
    return this.#members.vectorOf(id, this.#dimensions);
  }

  mean(): Float32Array {
    return this.#mean;
  }
}
