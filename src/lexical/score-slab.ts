/** Documents and a value for each (a term's BM25+ parts in one field, a word's sums), in the order reached. */
export interface DocValues {
  readonly docs: Int32Array;
  readonly values: Float64Array;
}

/**
 * {@link DocValues} for the scorer's caches, handed out as views into large shared buffers: a new
 * word allocates two small views rather than two buffers (which kept the collector busy on a large
 * catalog). A full buffer is replaced, not reused: the views handed out keep it.
 */
export class Slab {
  #docs = new Int32Array(0);
  #values = new Float64Array(0);
  #used = 0;

  take(length: number): DocValues {
    if (this.#used + length > this.#docs.length) {
      const size = Math.max(SLAB_ENTRIES, length);
      this.#docs = new Int32Array(size);
      this.#values = new Float64Array(size);
      this.#used = 0;
    }
    const from = this.#used;
    this.#used += length;
    return { docs: this.#docs.subarray(from, this.#used), values: this.#values.subarray(from, this.#used) };
  }
}

/** Entries per {@link Slab} buffer (12 bytes each). */
const SLAB_ENTRIES = 1 << 16;
