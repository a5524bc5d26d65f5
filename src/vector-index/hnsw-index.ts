import { closeSync, openSync, readSync } from 'node:fs';
import hnswlib from 'hnswlib-node';
import { SkillSearchError, errorMessage } from '../errors.js';
import { ENGINE_DEFAULTS, type HnswOptions as HnswParameters } from '../search/options.js';
import { EntryTable } from './entry-table.js';
import { assertDimensions, type PersistedEntry, type SavedEntry, type VectorIndex, type VectorMatch } from './vector-index.js';

/** Any of the graph parameters; the others come from `ENGINE_DEFAULTS.hnsw` (documented on `EngineOptions.hnsw`). */
export type HnswOptions = Partial<HnswParameters>;

const INITIAL_CAPACITY = 256;
/** Fixed so that the same inputs build the same graph (reproducible benchmarks). */
const RANDOM_SEED = 100;

/**
 * hnswlib's HierarchicalNSW over inner product (= cosine on normalised vectors).
 *
 * Labels are small integers owned here: a removed skill's label is marked deleted and put on
 * a free list; the next new skill revives that label with its own vector (hnswlib updates a
 * deleted label in place), so the graph does not grow with churn. `resizeIndex` doubles
 * capacity when every label is in use. The addon wants plain arrays: Float32Array → number[]
 * happens only at that boundary.
 *
 * The vectors live once, in the graph. JS reads a stored vector (to rescore a candidate) from
 * the graph file the index was last saved to or restored from, at the row's offset in
 * hnswlib's level-0 block ({@link graphRows}), and keeps in memory only the vectors upserted
 * since that file (all of them when it has none, e.g. an engine without an index folder):
 * `getPoint` would cost ~0.1 ms per vector through the addon.
 *
 * An index restored from an {@link EntryTable} answers from the table until its first change
 * or full listing copies the entries into its maps ({@link #own}): a cold search decodes only
 * the ids it returns or asks about, instead of building maps of the whole catalog.
 */
export class HnswIndex implements VectorIndex {
  readonly kind = 'hnsw';
  readonly dimensions: number;
  readonly #options: Required<HnswOptions>;
  readonly #graph: hnswlib.HierarchicalNSW;
  /** id → label; empty while {@link #table} holds the entries. */
  readonly #labels = new Map<string, number>();
  /** By label (labels are small dense integers): the id and the tag it holds; holes where free. */
  readonly #ids: (string | undefined)[] = [];
  readonly #tags: (string | undefined)[] = [];
  readonly #free: number[] = [];
  #nextLabel = 0;
  /** The graph file rows are read from, and where each label's row is in it. */
  #file: { fd: number; rows: GraphRows } | undefined;
  /** Vectors upserted since {@link #file} was written: label → vector. */
  readonly #recent = new Map<number, Float32Array>();
  /** The restored entries, until {@link #own} copies them into the fields above. */
  #table: EntryTable | undefined;

  constructor(dimensions: number, options: HnswOptions = {}, graph?: hnswlib.HierarchicalNSW) {
    this.dimensions = dimensions;
    this.#options = { ...ENGINE_DEFAULTS.hnsw, ...options };
    if (graph === undefined) {
      this.#graph = new hnswlib.HierarchicalNSW('ip', dimensions);
      this.#graph.initIndex(INITIAL_CAPACITY, this.#options.m, this.#options.efConstruction, RANDOM_SEED);
    } else {
      this.#graph = graph;
    }
  }

  /**
   * Reads {@link writeData} output. Labels in the graph that no entry names are deleted
   * points from before the save; they go back on the free list. When every entry knows its
   * row's offset in `file`, stored vectors are read from there (see {@link readRowsFrom}).
   */
  static restore(file: string, dimensions: number, entries: readonly SavedEntry[] | EntryTable, options: HnswOptions = {}): HnswIndex {
    const graph = new hnswlib.HierarchicalNSW('ip', dimensions);
    graph.readIndexSync(file);
    return HnswIndex.#adopt(graph, file, dimensions, entries, options);
  }

  /** Starts reading a graph file on the thread pool (see {@link fromGraph}). */
  static readGraph(file: string, dimensions: number): Promise<hnswlib.HierarchicalNSW> {
    const graph = new hnswlib.HierarchicalNSW('ip', dimensions);
    return graph.readIndex(file).then(() => graph);
  }

  /** {@link restore} over a graph whose read {@link readGraph} started, so the caller's thread went on meanwhile. */
  static async fromGraph(
    reading: Promise<hnswlib.HierarchicalNSW>,
    file: string,
    dimensions: number,
    entries: readonly SavedEntry[] | EntryTable,
    options: HnswOptions = {},
  ): Promise<HnswIndex> {
    return HnswIndex.#adopt(await reading, file, dimensions, entries, options);
  }

  static #adopt(
    graph: hnswlib.HierarchicalNSW,
    file: string,
    dimensions: number,
    entries: readonly SavedEntry[] | EntryTable,
    options: HnswOptions,
  ): HnswIndex {
    if (graph.getNumDimensions() !== dimensions) {
      throw new RangeError(`hnsw data has ${graph.getNumDimensions()} dimensions, expected ${dimensions}`);
    }
    if (graph.getMaxElements() < graph.getCurrentCount()) {
      throw new RangeError(`hnsw data holds ${graph.getCurrentCount()} elements in a capacity of ${graph.getMaxElements()}`);
    }
    const index = new HnswIndex(dimensions, options, graph);
    if (entries instanceof EntryTable) index.#adoptTable(file, entries);
    else index.#adoptEntries(file, entries);
    return index;
  }

  /**
   * Takes the table as it is (O(1)): a graph this index wrote holds every label below its count
   * (labels are dense), those no entry holds already marked deleted, so the free list can wait
   * for the first change ({@link #own}).
   */
  #adoptTable(file: string, table: EntryTable): void {
    const count = this.#graph.getCurrentCount();
    if (table.labelCount > count) throw new RangeError(`hnsw data lacks label ${table.labelCount - 1}`);
    this.#table = table;
    this.#nextLabel = count;
    if (table.rowsKnown) this.readRowsFrom(file, { offsets: table.offsets });
  }

  /** Copies parsed entries in, checking each label against the graph's. */
  #adoptEntries(file: string, entries: readonly SavedEntry[]): void {
    // Labels are small dense integers: flags and offsets by label instead of sets and maps, and
    // indexed loops (destructuring runs the iterator protocol per tuple, slow in a cold process).
    const stored = this.#graph.getIdsList();
    let max = -1;
    for (let i = 0; i < stored.length; i += 1) max = Math.max(max, stored[i]!);
    const inGraph = new Uint8Array(max + 1);
    for (let i = 0; i < stored.length; i += 1) inGraph[stored[i]!] = 1;
    const offsets = new Float64Array(max + 1).fill(-1);
    let everyOffset = true;
    for (let row = 0; row < entries.length; row += 1) {
      const entry = entries[row]!;
      const label = entry[2];
      if (inGraph[label] !== 1) throw new RangeError(`hnsw data lacks label ${label}`);
      this.#labels.set(entry[0], label);
      this.#ids[label] = entry[0];
      this.#tags[label] = entry[1];
      offsets[label] = entry[3];
      if (entry[3] < 0) everyOffset = false;
    }
    if (everyOffset) this.readRowsFrom(file, { offsets });
    this.#nextLabel = max + 1;
    this.#freeUnheld((label) => inGraph[label] === 1);
  }

  /** Puts every label below {@link #nextLabel} that no entry holds on the free list, marked deleted in the graph when it is there. */
  #freeUnheld(inGraph: (label: number) => boolean): void {
    for (let label = 0; label < this.#nextLabel; label += 1) {
      if (this.#ids[label] !== undefined) continue;
      this.#free.push(label);
      if (inGraph(label)) this.#markDeletedQuietly(label);
    }
  }

  get size(): number {
    return this.#table?.size ?? this.#labels.size;
  }

  has(id: string): boolean {
    return this.#labelOf(id) !== undefined;
  }

  tagOf(id: string): string | undefined {
    if (this.#table !== undefined) {
      const row = this.#table.rowOf(id);
      return row === undefined ? undefined : this.#table.tag(row);
    }
    const label = this.#labels.get(id);
    return label === undefined ? undefined : this.#tags[label];
  }

  ids(): IterableIterator<string> {
    return this.#own().keys();
  }

  upsert(id: string, vector: Float32Array, tag: string): void {
    assertDimensions(vector, this.dimensions);
    let label = this.#own().get(id);
    if (label === undefined) {
      label = this.#free.pop();
      if (label === undefined) {
        label = this.#nextLabel;
        this.#nextLabel += 1;
        this.#reserve(label + 1);
      }
      this.#labels.set(id, label);
      this.#ids[label] = id;
    }
    this.#tags[label] = tag;
    native('addPoint', () => this.#graph.addPoint(Array.from(vector), label));
    this.#recent.set(label, Float32Array.from(vector));
  }

  /**
   * Grows the graph to hold `count` labels. A graph saved empty is restored with capacity 0,
   * and hnswlib's `resizeIndex(0)` reallocs its base layer to nothing, throws, and leaves a
   * freed pointer its destructor frees again (SIGABRT): capacity never goes below
   * {@link INITIAL_CAPACITY} nor below the count.
   */
  #reserve(count: number): void {
    const capacity = this.#graph.getMaxElements();
    if (count <= capacity) return;
    native('resizeIndex', () => this.#graph.resizeIndex(Math.max(INITIAL_CAPACITY, 2 * capacity, count)));
  }

  remove(id: string): boolean {
    const label = this.#own().get(id);
    if (label === undefined) return false;
    this.#graph.markDelete(label);
    this.#labels.delete(id);
    this.#ids[label] = undefined;
    this.#tags[label] = undefined;
    this.#recent.delete(label);
    this.#free.push(label);
    return true;
  }

  vectorOf(id: string): Float32Array | undefined {
    const label = this.#labelOf(id);
    if (label === undefined) return undefined;
    const recent = this.#recent.get(label);
    if (recent !== undefined) return recent;
    const offset = this.#file?.rows.offsets[label] ?? -1;
    if (offset < 0) return Float32Array.from(this.#graph.getPoint(label));
    const vector = new Float32Array(this.dimensions);
    const bytes = new Uint8Array(vector.buffer);
    if (readSync(this.#file!.fd, bytes, 0, bytes.length, offset) !== bytes.length) return Float32Array.from(this.#graph.getPoint(label));
    return vector;
  }

  /**
   * From now on rows are read from `file` (a graph this index wrote or was restored from, never
   * rewritten in place) and vectors upserted before are dropped from memory.
   */
  readRowsFrom(file: string, rows: GraphRows): void {
    const fd = openSync(file, 'r');
    this.close();
    this.#file = { fd, rows };
    this.#recent.clear();
  }

  close(): void {
    if (this.#file !== undefined) closeSync(this.#file.fd);
    this.#file = undefined;
  }

  search(query: Float32Array, k: number): VectorMatch[] {
    assertDimensions(query, this.dimensions);
    const n = Math.min(Math.floor(k), this.size);
    if (n <= 0) return [];
    // readIndex resets ef to 10 and a small ef loses recall; set it on every query.
    this.#graph.setEf(Math.max(this.#options.efSearch, 4 * n));
    const { neighbors, distances } = this.#graph.searchKnn(Array.from(query), n);
    const out: VectorMatch[] = [];
    for (let i = 0; i < neighbors.length; i += 1) {
      const id = this.#idOf(neighbors[i]!);
      if (id !== undefined) out.push({ id, score: 1 - distances[i]! });
    }
    return out;
  }

  entries(): PersistedEntry[] {
    return [...this.#own()].map(([id, label]) => ({ id, tag: this.#tags[label]!, label }));
  }

  writeData(file: string): void {
    this.#graph.writeIndexSync(file);
  }

  #labelOf(id: string): number | undefined {
    if (this.#table === undefined) return this.#labels.get(id);
    const row = this.#table.rowOf(id);
    return row === undefined ? undefined : this.#table.label(row);
  }

  #idOf(label: number): string | undefined {
    if (this.#table === undefined) return this.#ids[label];
    const row = this.#table.rowOfLabel[label] ?? -1;
    return row < 0 ? undefined : this.#table.id(row);
  }

  /** The id → label map, the restored table's entries copied in first (rows in id order) and its free labels listed. */
  #own(): Map<string, number> {
    const table = this.#table;
    if (table !== undefined) {
      for (let row = 0; row < table.size; row += 1) {
        const id = table.id(row);
        const label = table.label(row);
        this.#labels.set(id, label);
        this.#ids[label] = id;
        this.#tags[label] = table.tag(row);
      }
      this.#table = undefined;
      this.#freeUnheld(() => true);
    }
    return this.#labels;
  }

  #markDeletedQuietly(label: number): void {
    try {
      this.#graph.markDelete(label);
    } catch {
      // Already deleted when the graph was saved.
    }
  }
}

/**
 * Runs one call into the addon; a throw becomes `INDEX_CORRUPT`, so the owner discards this
 * index and rebuilds rather than reusing a graph the addon may have left half-changed.
 */
function native<T>(call: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw new SkillSearchError('INDEX_CORRUPT', `hnsw ${call} failed: ${errorMessage(error)}`, { cause: error });
  }
}

/** Where each label's vector starts in a graph file. */
export interface GraphRows {
  /** Byte offset by label; -1 (or past the end) for a label with no row. */
  readonly offsets: Float64Array;
}

/** Bytes of hnswlib's file header (`saveIndex`): six size_t, an int, a u32, four size_t/double, one size_t. */
const GRAPH_HEADER_BYTES = 96;

/**
 * The rows of a graph file written by hnswlib's `saveIndex`: after the header comes the level-0
 * block, one element after another, each `[links · vector · u64 label]`. Undefined when the
 * header does not describe `dimensions`-long f32 vectors laid out that way (another hnswlib
 * build): vectors are then read through the addon.
 */
export function graphRows(bytes: Buffer, dimensions: number): GraphRows | undefined {
  if (bytes.length < GRAPH_HEADER_BYTES) return undefined;
  const field = (at: number) => Number(bytes.readBigUInt64LE(at));
  const [offsetLevel0, count, elementBytes, labelOffset, dataOffset] = [field(0), field(16), field(24), field(32), field(40)];
  if (offsetLevel0 !== 0 || labelOffset !== dataOffset + 4 * dimensions || elementBytes !== labelOffset + 8) return undefined;
  if (GRAPH_HEADER_BYTES + count * elementBytes > bytes.length) return undefined;
  // Our labels are dense: every label below the element count is in the graph (deleted ones too).
  const offsets = new Float64Array(count).fill(-1);
  for (let slot = 0; slot < count; slot += 1) {
    const start = GRAPH_HEADER_BYTES + slot * elementBytes;
    const label = bytes.readUInt32LE(start + labelOffset) + bytes.readUInt32LE(start + labelOffset + 4) * 2 ** 32;
    if (label >= count) return undefined;
    offsets[label] = start + dataOffset;
  }
  return { offsets };
}
