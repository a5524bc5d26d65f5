import { readFileSync, writeFileSync } from 'node:fs';
import { EntryTable } from './entry-table.js';
import { TopK } from './top-k.js';
import { assertDimensions, type PersistedEntry, type SavedEntry, type VectorIndex, type VectorMatch } from './vector-index.js';

/**
 * Brute-force cosine search over one contiguous Float32Array (row i = vector of `#ids[i]`).
 * Exact by construction: the baseline for HNSW recall and the better choice for small
 * catalogs (a few thousand 512-d rows scan in well under a millisecond).
 * Removal swaps the last row into the hole, so rows stay dense: O(1) update, O(n·d) search.
 */
export class ExactIndex implements VectorIndex {
  readonly kind = 'exact';
  readonly dimensions: number;
  #matrix: Float32Array;
  readonly #ids: string[] = [];
  readonly #tags: string[] = [];
  readonly #rows = new Map<string, number>();

  constructor(dimensions: number, capacity = 64) {
    this.dimensions = dimensions;
    this.#matrix = new Float32Array(dimensions * Math.max(1, capacity));
  }

  /** Rebuilds from {@link writeData} output and the manifest entries (labels are row numbers). */
  static restore(file: string, dimensions: number, saved: readonly SavedEntry[] | EntryTable): ExactIndex {
    // Rows in label order, as the index held them when saved.
    const entries = saved instanceof EntryTable ? saved.rows().sort((a, b) => a[2] - b[2]) : saved;
    const data = readFileSync(file);
    if (data.length !== entries.length * dimensions * 4) {
      throw new RangeError(`exact index data has ${data.length} bytes, expected ${entries.length * dimensions * 4}`);
    }
    const floats = new Float32Array(entries.length * dimensions);
    Buffer.from(floats.buffer).set(data);
    const index = new ExactIndex(dimensions, entries.length);
    for (const [id, tag, label] of entries) index.upsert(id, floats.subarray(label * dimensions, (label + 1) * dimensions), tag);
    return index;
  }

  get size(): number {
    return this.#ids.length;
  }

  has(id: string): boolean {
    return this.#rows.has(id);
  }

  tagOf(id: string): string | undefined {
    const row = this.#rows.get(id);
    return row === undefined ? undefined : this.#tags[row];
  }

  ids(): IterableIterator<string> {
    return this.#rows.keys();
  }

  upsert(id: string, vector: Float32Array, tag: string): void {
    assertDimensions(vector, this.dimensions);
    let row = this.#rows.get(id);
    if (row === undefined) {
      row = this.#ids.length;
      if ((row + 1) * this.dimensions > this.#matrix.length) {
        const grown = new Float32Array(this.#matrix.length * 2);
        grown.set(this.#matrix);
        this.#matrix = grown;
      }
      this.#ids.push(id);
      this.#tags.push(tag);
      this.#rows.set(id, row);
    } else {
      this.#tags[row] = tag;
    }
    this.#matrix.set(vector, row * this.dimensions);
  }

  vectorOf(id: string): Float32Array | undefined {
    const row = this.#rows.get(id);
    return row === undefined ? undefined : this.#matrix.subarray(row * this.dimensions, (row + 1) * this.dimensions);
  }

  remove(id: string): boolean {
    const row = this.#rows.get(id);
    if (row === undefined) return false;
    const last = this.#ids.length - 1;
    if (row !== last) {
      const d = this.dimensions;
      this.#matrix.copyWithin(row * d, last * d, (last + 1) * d);
      this.#ids[row] = this.#ids[last]!;
      this.#tags[row] = this.#tags[last]!;
      this.#rows.set(this.#ids[row]!, row);
    }
    this.#ids.pop();
    this.#tags.pop();
    this.#rows.delete(id);
    return true;
  }

  search(query: Float32Array, k: number): VectorMatch[] {
    assertDimensions(query, this.dimensions);
    const d = this.dimensions;
    const matrix = this.#matrix;
    const top = new TopK<number>(k);
    for (let row = 0; row < this.#ids.length; row += 1) {
      let score = 0;
      const base = row * d;
      for (let i = 0; i < d; i += 1) score += matrix[base + i]! * query[i]!;
      if (score > top.threshold) top.push(row, score);
    }
    return top.sorted().map(({ item, score }) => ({ id: this.#ids[item]!, score }));
  }

  entries(): PersistedEntry[] {
    return this.#ids.map((id, row) => ({ id, tag: this.#tags[row]!, label: row }));
  }

  writeData(file: string): void {
    const used = this.#matrix.subarray(0, this.#ids.length * this.dimensions);
    writeFileSync(file, Buffer.from(used.buffer, used.byteOffset, used.byteLength));
  }

  close(): void {}
}
