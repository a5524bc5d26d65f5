import { dot } from '../embed/normalize.js';
import type { StoredMembers } from '../store/stored-members.js';
import type { LabelGraph, LabelMatch } from './label-graph.js';
import { nearest } from './top-k.js';
import type { DenseSide, VectorMatch } from './vector-index.js';

/**
 * The vector side of a catalog saved in the store, read-only: a search asks the catalog's graph,
 * with the few vectors an overlay changed scanned beside it, or scans its vectors (a catalog saved
 * without a graph); the hits' members are read together, in one statement each.
 */
export class StoredVectors implements DenseSide {
  readonly version = 0;
  readonly #members: StoredMembers;
  readonly #dimensions: number;
  readonly #graph: LabelGraph | undefined;
  readonly #mean: Float32Array;
  #all: Map<number, Float32Array> | undefined;
  #overlaid: Map<number, Float32Array> | undefined;

  constructor(options: { members: StoredMembers; dimensions: number; graph: LabelGraph | undefined; mean: Float32Array }) {
    this.#members = options.members;
    this.#dimensions = options.dimensions;
    this.#graph = options.graph;
    this.#mean = options.mean;
  }

  search(query: Float32Array, k: number): VectorMatch[] {
    const matches = this.#graph === undefined ? this.#scan(query, k) : this.#searchGraph(this.#graph, query, k);
    const out: VectorMatch[] = [];
    // The members of as many labels as places are left, read together; a stale label (no
    // member) leaves places for the next ones, so only they cost another read.
    for (let next = 0; next < matches.length && out.length < k; ) {
      const batch = matches.slice(next, next + k - out.length);
      next += batch.length;
      const ids = this.#members.idsLabelled(batch.map((match) => match.label));
      for (const { label, score } of batch) for (const id of ids.get(label) ?? []) if (out.length < k) out.push({ id, score });
    }
    return out;
  }

  /** The graph's nearest labels, best first (more than k, so stale labels can be skipped), an overlay's changed members scanned beside it. */
  #searchGraph(graph: LabelGraph, query: Float32Array, k: number): LabelMatch[] {
    this.#overlaid ??= this.#members.catalog.overlaid(this.#dimensions);
    const overlaid = this.#overlaid;
    const matches = graph.search(query, k + 2 * overlaid.size).filter((match) => !overlaid.has(match.label));
    for (const [label, vector] of overlaid) matches.push({ label, score: dot(vector, query) });
    if (overlaid.size > 0) matches.sort((a, b) => b.score - a.score);
    return matches;
  }

  /** The best `k` labels by an exact scan of every vector (a catalog saved without a graph). */
  #scan(query: Float32Array, k: number): LabelMatch[] {
    this.#all ??= this.#members.catalog.labelled(this.#dimensions);
    return nearest(this.#all, query, k).map(({ item, score }) => ({ label: item, score }));
  }

  stored(id: string): { readonly key: string; readonly vector: Float32Array } | undefined {
    return this.#members.stored(id);
  }

  mean(): Float32Array {
    return this.#mean;
  }
}
