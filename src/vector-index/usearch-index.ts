import { appendFileSync, closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { Index, MetricKind, ScalarKind } from 'usearch';
import { SkillSearchError, errorMessage } from '../errors.js';
import { VECTOR_INDEX_DEFAULTS, type HnswOptions as HnswParameters } from './options.js';
import { EntryTable } from './entry-table.js';
import { assertDimensions, type PersistedEntry, type SavedEntry, type VectorIndex, type VectorMatch } from './vector-index.js';

/** Any of the graph parameters; the others come from `VECTOR_INDEX_DEFAULTS.hnsw` (documented on `VectorIndexKnobs.hnsw`). */
export type HnswOptions = Partial<HnswParameters>;

/**
 * The data file (`vector-data`, format 2): usearch's own saved index, then every label's f32 row
 * (`labels × dimensions`, zeros for a free label), then a trailer: `SKUV`, u32 layout version,
 * u32 dimensions, u32 labels, f64 bytes of the usearch part. usearch keeps the vectors too, but
 * exposes no read of one: the rows are ours, read by offset when a search rescores a candidate.
 */
const TRAILER_MAGIC = 'SKUV';
const TRAILER_VERSION = 1;
const TRAILER_BYTES = 24;
/** A search asks usearch for this many times the k it was asked for (see {@link UsearchIndex.search}). */
const SEARCH_WIDTH = 4;
/** usearch's saved index starts with its vector matrix (u32 rows, u32 bytes per row), then its head, which starts with this. */
const USEARCH_MAGIC = 'usearch';

/**
 * An HNSW graph by usearch (prebuilt binaries, no compiler at install) over inner product
 * (= cosine on normalised vectors), behind {@link VectorIndex}.
 *
 * Labels (usearch keys) are small integers owned here: a removed skill's label is removed from
 * the graph and put on a free list for the next new skill, so labels stay dense. A restored
 * index memory-maps its file (`view`: opening is O(1), pages are read as a search visits them);
 * the first change loads the graph into memory, since a viewed graph is read-only.
 *
 * The vectors live once in memory: upserted ones in {@link #recent}; those of the file the index
 * was last saved to or restored from are read from its rows when asked for. An index restored
 * from an {@link EntryTable} answers from the table until its first change or full listing
 * copies the entries into its maps ({@link #own}).
 */
export class UsearchIndex implements VectorIndex {
  readonly kind = 'hnsw';
  readonly dimensions: number;
  readonly #options: Required<HnswOptions>;
  #graph: Index;
  /** The graph is a read-only view of {@link #file}. */
  #viewed = false;
  /** id → label; empty while {@link #table} holds the entries. */
  readonly #labels = new Map<string, number>();
  /** By label: the id and the tag it holds; holes where free. */
  readonly #ids: (string | undefined)[] = [];
  readonly #tags: (string | undefined)[] = [];
  readonly #free: number[] = [];
  #nextLabel = 0;
  /** The data file rows are read from: its descriptor, path, and how many labels have a row in it. */
  #file: ({ fd: number; path: string } & DataFileRows) | undefined;
  /** Vectors upserted since {@link #file} was written: label → vector. */
  readonly #recent = new Map<number, Float32Array>();
  /** The restored entries, until {@link #own} copies them into the fields above. */
  #table: EntryTable | undefined;

  constructor(dimensions: number, options: HnswOptions = {}) {
    this.dimensions = dimensions;
    this.#options = { ...VECTOR_INDEX_DEFAULTS.hnsw, ...options };
    this.#graph = this.#newGraph();
  }

  /**
   * Opens {@link writeData} output with its entries. Throws (a RangeError saying what is wrong)
   * on a file of another layout, an hnswlib graph included, before usearch reads any of it.
   */
  static restore(file: string, dimensions: number, entries: readonly SavedEntry[] | EntryTable, options: HnswOptions = {}): UsearchIndex {
    const fd = openSync(file, 'r');
    const index = new UsearchIndex(dimensions, options);
    try {
      index.#file = { fd, path: file, ...checkDataFile(fd, dimensions) };
      native('view', () => index.#graph.view(file));
      index.#viewed = true;
      if (entries instanceof EntryTable) index.#adoptTable(entries);
      else index.#adoptEntries(entries);
    } catch (error) {
      index.close();
      throw error;
    }
    return index;
  }

  #newGraph(): Index {
    return new Index({
      dimensions: this.dimensions,
      metric: MetricKind.IP,
      quantization: ScalarKind.F32,
      connectivity: this.#options.m,
      expansion_add: this.#options.efConstruction,
      expansion_search: this.#options.efSearch,
      multi: false,
    });
  }

  #adoptTable(table: EntryTable): void {
    if (table.labelCount > this.#file!.labels) throw new RangeError(`vector data lacks label ${table.labelCount - 1}`);
    if (table.size !== this.#graph.size()) throw new RangeError(`the graph holds ${this.#graph.size()} vectors, the entries ${table.size}`);
    this.#table = table;
    this.#nextLabel = table.labelCount;
  }

  #adoptEntries(entries: readonly SavedEntry[]): void {
    let max = -1;
    for (let row = 0; row < entries.length; row += 1) {
      const [id, tag, label] = entries[row]!;
      if (label >= this.#file!.labels || this.#graph.contains(BigInt(label)) !== true) throw new RangeError(`vector data lacks label ${label}`);
      this.#labels.set(id, label);
      this.#ids[label] = id;
      this.#tags[label] = tag;
      max = Math.max(max, label);
    }
    if (entries.length !== this.#graph.size()) throw new RangeError(`the graph holds ${this.#graph.size()} vectors, the entries ${entries.length}`);
    this.#nextLabel = max + 1;
    this.#freeUnheld();
  }

  /** Puts every label below {@link #nextLabel} that no entry holds on the free list. */
  #freeUnheld(): void {
    for (let label = 0; label < this.#nextLabel; label += 1) if (this.#ids[label] === undefined) this.#free.push(label);
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
    const graph = this.#writable();
    let label = this.#own().get(id);
    if (label === undefined) {
      label = this.#free.pop() ?? this.#nextLabel++;
      this.#labels.set(id, label);
      this.#ids[label] = id;
    } else {
      native('remove', () => graph.remove(BigInt(label!)));
    }
    this.#tags[label] = tag;
    native('add', () => graph.add(BigInt(label!), vector, 1));
    this.#recent.set(label, Float32Array.from(vector));
  }

  remove(id: string): boolean {
    const label = this.#own().get(id);
    if (label === undefined) return false;
    const graph = this.#writable();
    native('remove', () => graph.remove(BigInt(label)));
    this.#labels.delete(id);
    this.#ids[label] = undefined;
    this.#tags[label] = undefined;
    this.#recent.delete(label);
    this.#free.push(label);
    return true;
  }

  /** The graph, loaded into memory first when it is a read-only view. */
  #writable(): Index {
    if (this.#viewed) {
      const graph = this.#newGraph();
      native('load', () => graph.load(this.#file!.path));
      this.#graph = graph;
      this.#viewed = false;
    }
    return this.#graph;
  }

  vectorOf(id: string): Float32Array | undefined {
    const label = this.#labelOf(id);
    if (label === undefined) return undefined;
    const recent = this.#recent.get(label);
    if (recent !== undefined) return recent;
    const file = this.#file;
    if (file === undefined || label >= file.labels) return undefined;
    const vector = new Float32Array(this.dimensions);
    const bytes = new Uint8Array(vector.buffer);
    if (readSync(file.fd, bytes, 0, bytes.length, file.rowsStart + label * bytes.length) !== bytes.length) {
      throw new SkillSearchError('INDEX_CORRUPT', `vector data ${file.path} ends before label ${label}'s row`);
    }
    return vector;
  }

  search(query: Float32Array, k: number): VectorMatch[] {
    assertDimensions(query, this.dimensions);
    const n = Math.min(Math.floor(k), this.size);
    if (n <= 0) return [];
    // usearch searches with max(efSearch, k) candidates and takes no per-query value: asking for
    // 4·k keeps hnswlib's max(efSearch, 4·k), without which recall@50 at 24k falls from 0.956 to 0.926.
    const { keys, distances } = native('search', () => this.#graph.search(query, Math.min(this.size, SEARCH_WIDTH * n), 1));
    const out: VectorMatch[] = [];
    for (let i = 0; i < keys.length && out.length < n; i += 1) {
      const id = this.#idOf(Number(keys[i]));
      if (id !== undefined) out.push({ id, score: 1 - distances[i]! });
    }
    return out;
  }

  entries(): PersistedEntry[] {
    return [...this.#own()].map(([id, label]) => ({ id, tag: this.#tags[label]!, label }));
  }

  /** Writes the graph, the rows and the trailer; from then on this index reads its rows from `file` (see {@link readRowsFrom}). */
  writeData(file: string): void {
    native('save', () => this.#graph.save(file));
    const graphBytes = fstatSize(file);
    const labels = this.#nextLabel;
    const rows = new Float32Array(labels * this.dimensions);
    for (let label = 0; label < labels; label += 1) {
      if (this.#idOf(label) === undefined) continue;
      const vector = this.#recent.get(label) ?? this.#rowFromFile(label);
      if (vector !== undefined) rows.set(vector, label * this.dimensions);
    }
    const trailer = Buffer.alloc(TRAILER_BYTES);
    trailer.write(TRAILER_MAGIC, 0, 'latin1');
    trailer.writeUInt32LE(TRAILER_VERSION, 4);
    trailer.writeUInt32LE(this.dimensions, 8);
    trailer.writeUInt32LE(labels, 12);
    trailer.writeDoubleLE(graphBytes, 16);
    appendFileSync(file, Buffer.concat([Buffer.from(rows.buffer), trailer]));
  }

  /**
   * From now on rows are read from `file`, a data file this index wrote (never rewritten in
   * place), and vectors upserted before are dropped from memory.
   */
  readRowsFrom(file: string): void {
    const fd = openSync(file, 'r');
    let rows: DataFileRows;
    try {
      rows = checkDataFile(fd, this.dimensions);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    this.close();
    this.#file = { fd, path: file, ...rows };
    this.#recent.clear();
  }

  close(): void {
    if (this.#file !== undefined) closeSync(this.#file.fd);
    this.#file = undefined;
  }

  #rowFromFile(label: number): Float32Array | undefined {
    const id = this.#idOf(label);
    return id === undefined ? undefined : this.vectorOf(id);
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

  /** The id → label map, the restored table's entries copied in first and its free labels listed. */
  #own(): Map<string, number> {
    const table = this.#table;
    if (table !== undefined) {
      for (let row = 0; row < table.size; row += 1) {
        const label = table.label(row);
        this.#labels.set(table.id(row), label);
        this.#ids[label] = table.id(row);
        this.#tags[label] = table.tag(row);
      }
      this.#table = undefined;
      this.#freeUnheld();
    }
    return this.#labels;
  }
}

function fstatSize(file: string): number {
  const fd = openSync(file, 'r');
  try {
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

/**
 * Checks that the open file is a data file of this layout for `dimensions`-long vectors (its
 * trailer, its size, and usearch's head where the trailer says the graph is), so that no other
 * file (an hnswlib graph from before, a truncated write) reaches usearch, which would misread
 * it; returns where its rows are.
 */
export function checkDataFile(fd: number, dimensions: number): DataFileRows {
  const size = fstatSync(fd).size;
  const read = (at: number, length: number): Buffer => {
    const bytes = Buffer.alloc(length);
    if (at < 0 || readSync(fd, bytes, 0, length, at) !== length) throw new RangeError('the vector data file ends early');
    return bytes;
  };
  if (size < TRAILER_BYTES) throw new RangeError('not a usearch vector data file (too short)');
  const trailer = read(size - TRAILER_BYTES, TRAILER_BYTES);
  if (trailer.toString('latin1', 0, 4) !== TRAILER_MAGIC) throw new RangeError('not a usearch vector data file (an hnswlib graph from an older version?)');
  if (trailer.readUInt32LE(4) !== TRAILER_VERSION) throw new RangeError(`vector data layout ${trailer.readUInt32LE(4)} ≠ ${TRAILER_VERSION}`);
  if (trailer.readUInt32LE(8) !== dimensions) throw new RangeError(`vector data has ${trailer.readUInt32LE(8)} dimensions, expected ${dimensions}`);
  const labels = trailer.readUInt32LE(12);
  const graphBytes = trailer.readDoubleLE(16);
  if (!Number.isSafeInteger(graphBytes) || graphBytes + labels * dimensions * 4 + TRAILER_BYTES !== size) {
    throw new RangeError('the vector data file has the wrong size for its trailer');
  }
  const matrix = read(0, 8);
  const head = 8 + matrix.readUInt32LE(0) * matrix.readUInt32LE(4);
  if (head + USEARCH_MAGIC.length > graphBytes || read(head, USEARCH_MAGIC.length).toString('latin1') !== USEARCH_MAGIC) {
    throw new RangeError('the vector data file holds no usearch index');
  }
  return { labels, rowsStart: graphBytes };
}

/** Where a data file's rows are: how many labels have one, from which byte. */
export interface DataFileRows {
  readonly labels: number;
  readonly rowsStart: number;
}

/**
 * Runs one call into the addon; a throw becomes `INDEX_CORRUPT`, so the owner discards this
 * index and rebuilds rather than reusing a graph the addon may have left half-changed.
 */
function native<T>(call: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw new SkillSearchError('INDEX_CORRUPT', `usearch ${call} failed: ${errorMessage(error)}`, { cause: error });
  }
}
