import { chmodSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Usearch from 'usearch';
import { SkillSearchError, errorMessage } from '../errors.js';
import { bundledVersion } from '../util/bundled.js';
import { installedPackage } from '../util/installed-package.js';
import { VECTOR_INDEX_DEFAULTS, type HnswOptions } from './options.js';
import { assertDimensions } from './vector-index.js';

/** A search asks usearch for this many times the k it was asked for (see {@link LabelGraph.search}). */
const SEARCH_WIDTH = 4;

/**
 * Labels a graph may hold beyond its catalog's vectors, as a share of its size, before it is
 * built anew (see {@link LabelGraph.update}): each costs a search a wasted candidate.
 */
export const STALE_SHARE = 0.1;

export interface LabelMatch {
  readonly label: number;
  /** Cosine similarity (the vectors are normalised). */
  readonly score: number;
}

let usearch: typeof Usearch | undefined;

/**
 * usearch and its native binding, loaded with the first graph: a catalog too small for one never
 * pays their `require`. In the CLI bundle its JavaScript is the bundle's (scripts/bundle-cli.ts)
 * when the installed package is the version bundled, since that JavaScript and the addon go
 * together (docs/cold-start.md).
 */
function loadUsearch(): typeof Usearch {
  if (usearch === undefined) {
    const installed = installedUsearch();
    usearch =
      installed !== undefined && installed.version === bundledVersion('usearch')
        ? (require('usearch') as typeof Usearch)
        : (createRequire(import.meta.url)(installed?.entry ?? 'usearch') as typeof Usearch);
  }
  return usearch;
}

/**
 * The file `require('usearch')` would load (found as Node's lookup finds it, named by its
 * package's `exports` for `require`), and the package's version: requiring it by path skips
 * loading Node's ES module resolver. Undefined when not found that way (then the name).
 */
export function installedUsearch(): { readonly entry: string; readonly version: unknown } | undefined {
  const installed = installedPackage('usearch', path.dirname(fileURLToPath(import.meta.url)));
  const exported = installed?.manifest.exports as { '.'?: { require?: unknown } } | undefined;
  const entry = exported?.['.']?.require;
  return installed !== undefined && typeof entry === 'string' ? { entry: path.join(installed.root, entry), version: installed.manifest.version } : undefined;
}

/**
 * An HNSW graph by usearch over inner product (= cosine on normalised vectors), keyed by the
 * store's vector labels (`SqliteStore.labels`), so one graph serves any catalog holding the same
 * vectors and a catalog that differs by a few skills derives its graph from another's. The file
 * is usearch's own format: a reader opens it with {@link view} (memory-mapped, read-only), a
 * writer with {@link load}.
 *
 * usearch misreads a saved graph with removed, unrefilled slots (docs/vector-index.md), so a
 * label is removed only to make room for one added at once, and a graph with a vacant slot is
 * never saved. Labels a catalog no longer holds otherwise stay, stale: searches return more than
 * k so callers skip them, and a graph more than {@link STALE_SHARE} stale is built anew.
 */
export class LabelGraph {
  readonly dimensions: number;
  readonly #graph: Usearch.Index;
  readonly #writable: boolean;
  /** Slots removed and not yet refilled by an add: while above 0 the graph cannot be saved. */
  #vacant = 0;

  private constructor(dimensions: number, options: Partial<HnswOptions>, writable: boolean) {
    if (!Number.isInteger(dimensions) || dimensions < 1) throw new SkillSearchError('INTERNAL', `a graph needs a positive dimension count, got ${dimensions}`);
    this.dimensions = dimensions;
    const merged = { ...VECTOR_INDEX_DEFAULTS.hnsw, ...options };
    const { Index, MetricKind, ScalarKind } = loadUsearch();
    this.#graph = new Index({
      dimensions,
      metric: MetricKind.IP,
      quantization: ScalarKind.F32,
      connectivity: merged.m,
      expansion_add: merged.efConstruction,
      expansion_search: merged.efSearch,
      multi: false,
    });
    this.#writable = writable;
  }

  static create(dimensions: number, options: Partial<HnswOptions> = {}): LabelGraph {
    return new LabelGraph(dimensions, options, true);
  }

  /** A read-only graph over `file`, memory-mapped. */
  static view(file: string, dimensions: number, options: Partial<HnswOptions> = {}): LabelGraph {
    return LabelGraph.#open('view', file, dimensions, options);
  }

  /** `file` read into memory, to be changed and saved under another name. */
  static load(file: string, dimensions: number, options: Partial<HnswOptions> = {}): LabelGraph {
    return LabelGraph.#open('load', file, dimensions, options);
  }

  static #open(how: 'view' | 'load', file: string, dimensions: number, options: Partial<HnswOptions>): LabelGraph {
    const graph = new LabelGraph(dimensions, options, how === 'load');
    native(how, () => graph.#graph[how](file));
    const found = graph.#graph.dimensions();
    if (found !== dimensions) throw new SkillSearchError('INDEX_CORRUPT', `graph ${file} has ${found} dimensions, expected ${dimensions}`);
    return graph;
  }

  get size(): number {
    return this.#graph.size();
  }

  has(label: number): boolean {
    return this.#graph.contains(BigInt(label)) === true;
  }

  add(label: number, vector: Float32Array): void {
    assertDimensions(vector, this.dimensions);
    this.#assertWritable();
    native('add', () => this.#graph.add(BigInt(label), vector, 1));
    if (this.#vacant > 0) this.#vacant -= 1;
  }

  /**
   * Brought towards another set of vectors: the labels of `add` it lacks come in, each taking
   * the slot of one label of `stale` it holds; the stale labels left over stay (see the class
   * comment). Returns how many of `stale` it still holds.
   */
  update(stale: Iterable<number>, add: Iterable<readonly [number, Float32Array]>): number {
    this.#assertWritable();
    const held = [...stale].filter((label) => this.has(label));
    const coming = [...add].filter(([label]) => !this.has(label));
    const replaced = Math.min(held.length, coming.length);
    for (const label of held.slice(0, replaced)) {
      native('remove', () => this.#graph.remove(BigInt(label)));
      this.#vacant += 1;
    }
    for (const [label, vector] of coming) this.add(label, vector);
    return held.length - replaced;
  }

  /** Whether a graph holding `live` of its labels for its catalog is too stale to keep (see {@link STALE_SHARE}). */
  tooStale(live: number): boolean {
    return this.size - live > STALE_SHARE * this.size;
  }

  /**
   * Labels best first: at least `k` where the graph holds them, and up to {@link SEARCH_WIDTH}·k,
   * so a caller skipping stale labels still fills k.
   */
  search(query: Float32Array, k: number): LabelMatch[] {
    assertDimensions(query, this.dimensions);
    const size = this.size;
    const n = Math.min(Math.floor(k), size);
    if (n <= 0) return [];
    // usearch searches with max(efSearch, k) candidates and takes no per-query value: asking for
    // 4·k keeps hnswlib's max(efSearch, 4·k) (recall: docs/vector-index.md).
    const { keys, distances } = native('search', () => this.#graph.search(query, Math.min(size, SEARCH_WIDTH * n), 1));
    const out: LabelMatch[] = [];
    for (let i = 0; i < keys.length; i += 1) out.push({ label: Number(keys[i]), score: 1 - distances[i]! });
    return out;
  }

  /** Writes the graph to `file` whole (private, 0600): a temp file renamed into place, so a reader never maps half a graph. */
  save(file: string): void {
    if (this.#vacant > 0) throw new SkillSearchError('INTERNAL', `a graph with ${this.#vacant} vacant slot(s) cannot be saved (usearch would misread it)`);
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.tmp`;
    try {
      native('save', () => this.#graph.save(temp));
      chmodSync(temp, 0o600);
      renameSync(temp, file);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
  }

  #assertWritable(): void {
    if (!this.#writable) throw new SkillSearchError('INTERNAL', 'a viewed graph is read-only');
  }
}

/**
 * Runs one call into the addon; a throw becomes `INDEX_CORRUPT`, so the owner discards this
 * graph and builds anew rather than reusing one the addon may have left half-changed.
 */
function native<T>(call: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw new SkillSearchError('INDEX_CORRUPT', `usearch ${call} failed: ${errorMessage(error)}`, { cause: error });
  }
}
