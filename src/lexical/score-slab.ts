/**
 * Paired document / value arrays for the caches, handed out as views into large shared buffers:
 * a word seen for the first time then allocates two small views instead of two buffers of its
 * own, which on a large catalog kept the collector busy (each buffer is memory outside the heap
 * that it tracks). A full buffer is replaced, not reused: the views already handed out keep it.
 */
export class Slab {
  #docs = new Int32Array(0);
  #values = new Float64Array(0);
  #used = 0;
  #bytes = new Uint8Array(0);
  #bytesUsed = 0;

  take(length: number): { docs: Int32Array; values: Float64Array } {
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

  /** A byte view of `length` (a word's per-document field bits), from a buffer of its own. */
  takeBytes(length: number): Uint8Array {
    if (this.#bytesUsed + length > this.#bytes.length) {
      this.#bytes = new Uint8Array(Math.max(SLAB_ENTRIES, length));
      this.#bytesUsed = 0;
    }
    const from = this.#bytesUsed;
    this.#bytesUsed += length;
    return this.#bytes.subarray(from, this.#bytesUsed);
  }
}

/** Entries per {@link Slab} buffer (12 bytes each). */
const SLAB_ENTRIES = 1 << 16;
