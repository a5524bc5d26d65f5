import { SkillSearchError } from '../errors.js';
import { LabelGraph } from './label-graph.js';
import type { HnswOptions } from './options.js';
import { nearest } from './top-k.js';
import { assertDimensions, EXACT_BELOW, type DenseSide, type VectorIndexKind, type VectorMatch } from './vector-index.js';

export interface CatalogVectorsOptions {
  readonly kind: VectorIndexKind;
  readonly dimensions: number;
  readonly hnsw?: HnswOptions;
  /** Fewer distinct vectors than this are searched exactly. @default EXACT_BELOW */
  readonly exactBelow?: number;
  /** A saved graph to derive the graph from, with the labels it holds, asked for when a graph is first needed; else it is built. */
  readonly base?: () => { readonly file: string; readonly labels: Iterable<number> } | undefined;
}

interface Held {
  readonly label: number;
  readonly vector: Float32Array;
  /** The members holding this vector (skills with the same text share it). */
  readonly ids: Set<string>;
}

/**
 * The vectors of a live catalog, in memory, each held once by content key under its store label.
 * Below `exactBelow` distinct vectors (or with `kind: 'exact'`) a search scans them; above, it
 * asks a {@link LabelGraph} built on first need (derived from `base` when given), kept in step after.
 */
export class CatalogVectors implements DenseSide {
  readonly dimensions: number;
  readonly #options: CatalogVectorsOptions;
  readonly #keyOf = new Map<string, string>();
  readonly #held = new Map<string, Held>();
  readonly #byLabel = new Map<number, string>();
  /** Σ of the members' vectors, one per member (float64 so updates in any order agree to ~1e-12). */
  readonly #sum: Float64Array;
  #graph: LabelGraph | undefined;
  #version = 0;

  constructor(options: CatalogVectorsOptions) {
    this.dimensions = options.dimensions;
    this.#options = options;
    this.#sum = new Float64Array(options.dimensions);
  }

  get version(): number {
    return this.#version;
  }

  get size(): number {
    return this.#keyOf.size;
  }

  has(id: string): boolean {
    return this.#keyOf.has(id);
  }

  keyOf(id: string): string | undefined {
    return this.#keyOf.get(id);
  }

  ids(): IterableIterator<string> {
    return this.#keyOf.keys();
  }

  /** The label of member `id`'s vector. */
  labelOf(id: string): number | undefined {
    const key = this.#keyOf.get(id);
    return key === undefined ? undefined : this.#held.get(key)!.label;
  }

  holdsKey(key: string): boolean {
    return this.#held.has(key);
  }

  /** The vector held under content key `key` (a view). */
  vectorOfKey(key: string): Float32Array | undefined {
    return this.#held.get(key)?.vector;
  }

  /** Member `id` now holds the vector of content key `key`: `vector` (normalised) with `label` when the key is new here. */
  set(id: string, key: string, vector: Float32Array, label: number): void {
    if (this.#keyOf.get(id) === key) return;
    this.remove(id);
    let held = this.#held.get(key);
    if (held === undefined) {
      assertDimensions(vector, this.dimensions);
      if (this.#byLabel.has(label)) throw new SkillSearchError('INTERNAL', `label ${label} is held by another key`);
      held = { label, vector: Float32Array.from(vector), ids: new Set() };
      this.#held.set(key, held);
      this.#byLabel.set(label, key);
      this.#graph?.add(label, held.vector);
    }
    held.ids.add(id);
    this.#keyOf.set(id, key);
    this.#addToSum(held.vector, 1);
  }

  remove(id: string): boolean {
    const key = this.#keyOf.get(id);
    if (key === undefined) return false;
    this.#keyOf.delete(id);
    const held = this.#held.get(key)!;
    held.ids.delete(id);
    this.#addToSum(held.vector, -1);
    if (held.ids.size === 0) {
      this.#held.delete(key);
      this.#byLabel.delete(held.label);
      // The label stays in the graph, stale (see LabelGraph); searches skip it.
      if (this.#graph?.tooStale(this.#held.size) === true) this.#graph = undefined;
    }
    return true;
  }

  #addToSum(vector: Float32Array, sign: 1 | -1): void {
    for (let i = 0; i < vector.length; i += 1) this.#sum[i]! += sign * vector[i]!;
    this.#version += 1;
  }

  stored(id: string): { readonly key: string; readonly vector: Float32Array } | undefined {
    const key = this.#keyOf.get(id);
    return key === undefined ? undefined : { key, vector: this.#held.get(key)!.vector };
  }

  mean(): Float32Array {
    return meanOf(this.#sum, this.#keyOf.size);
  }

  /** Σ of the members' vectors (a copy): saved with the catalog, so a changed one moves it by its changes only. */
  sum(): Float64Array {
    return this.#sum.slice();
  }

  /** Whether `distinct` vectors are searched through a graph under `options`. */
  static graphs(options: Pick<CatalogVectorsOptions, 'kind' | 'exactBelow'>, distinct: number): boolean {
    return options.kind === 'hnsw' && distinct >= (options.exactBelow ?? EXACT_BELOW);
  }

  /** The graph over the held vectors (built or derived on first call); undefined when they are searched by a scan. */
  graph(): LabelGraph | undefined {
    if (!CatalogVectors.graphs(this.#options, this.#held.size)) return undefined;
    this.#graph ??= this.#derived() ?? this.#built();
    return this.#graph;
  }

  search(query: Float32Array, k: number): VectorMatch[] {
    assertDimensions(query, this.dimensions);
    const graph = this.graph();
    const out: VectorMatch[] = [];
    const push = (label: number, score: number): void => {
      const key = this.#byLabel.get(label);
      if (key === undefined) return;
      for (const id of this.#held.get(key)!.ids) if (out.length < k) out.push({ id, score });
    };
    if (graph !== undefined) {
      for (const match of graph.search(query, k)) {
        if (out.length >= k) break;
        push(match.label, match.score);
      }
      return out;
    }
    const labelled = Array.from(this.#held.values(), (held) => [held.label, held.vector] as const);
    for (const { item, score } of nearest(labelled, query, k)) push(item, score);
    return out;
  }

  #built(): LabelGraph {
    const graph = LabelGraph.create(this.dimensions, this.#options.hnsw);
    for (const held of this.#held.values()) graph.add(held.label, held.vector);
    return graph;
  }

  /** The base graph brought to the held vectors; undefined when there is none or it cannot be read. */
  #derived(): LabelGraph | undefined {
    const base = this.#options.base?.();
    if (base === undefined) return undefined;
    let graph: LabelGraph;
    try {
      graph = LabelGraph.load(base.file, this.dimensions, this.#options.hnsw);
    } catch {
      return undefined;
    }
    graph.update(
      [...base.labels].filter((label) => !this.#byLabel.has(label)),
      [...this.#held.values()].map((held) => [held.label, held.vector] as const),
    );
    return graph.tooStale(this.#held.size) ? undefined : graph;
  }
}

/** The mean vector of `members` vectors summing to `sum` (float32, as a catalog keeps it). */
export function meanOf(sum: Float64Array, members: number): Float32Array {
  return Float32Array.from(sum, (value) => (members === 0 ? 0 : value / members));
}
