import type { SavedEntry, VectorIndexKind } from './vector-index.js';

/**
 * `vector-entries` as a binary table (format 2): every entry of a saved vector index and the
 * running sum of its vectors, read by a cold search without parsing anything per entry. The
 * rows are sorted by the UTF-8 bytes of their ids, so an id is found by binary search and
 * decoded only when a query reaches it; a process that changes the index copies the rows out
 * first (`HnswIndex`). Format 1, JSON of the same facts, is still read (`store.ts`).
 *
 * Layout (little-endian, every section 8-byte aligned): `SKVE`, kind (u32: 0 hnsw, 1 exact),
 * count n, dimensions d, the byte lengths of the id and tag texts (u32 each), then Σ (f64 × d),
 * the rows' labels (u32 × n), their row offsets in the HNSW graph file (f64 × n, -1 when
 * unknown), where each id and each tag ends in its text (u32 × n each), the ids' text and the
 * tags' text.
 */
export const ENTRY_TABLE_FORMAT = 2;
const MAGIC = 'SKVE';
const HEADER_BYTES = 24;
const KINDS: readonly VectorIndexKind[] = ['hnsw', 'exact'];

export class EntryTable {
  readonly kind: VectorIndexKind;
  /** Σ of the stored vectors, per dimension. */
  readonly sum: Float64Array;
  readonly #labels: Uint32Array;
  readonly #offsets: Float64Array;
  readonly #idEnds: Uint32Array;
  readonly #tagEnds: Uint32Array;
  readonly #ids: Buffer;
  readonly #tags: Buffer;

  private constructor(kind: VectorIndexKind, sections: Sections) {
    this.kind = kind;
    this.sum = sections.sum;
    this.#labels = sections.labels;
    this.#offsets = sections.offsets;
    this.#idEnds = sections.idEnds;
    this.#tagEnds = sections.tagEnds;
    this.#ids = sections.ids;
    this.#tags = sections.tags;
  }

  /** The table of `entries` (ids unique), rows sorted by id. */
  static encode(kind: VectorIndexKind, entries: readonly SavedEntry[], sum: Float64Array): Buffer {
    const ids = entries.map((entry) => Buffer.from(entry[0], 'utf8'));
    const order = Uint32Array.from(entries.keys()).sort((a, b) => Buffer.compare(ids[a]!, ids[b]!));
    const tags = entries.map((entry) => Buffer.from(entry[1], 'utf8'));
    const n = entries.length;
    const labels = new Uint32Array(n);
    const offsets = new Float64Array(n);
    const idEnds = new Uint32Array(n);
    const tagEnds = new Uint32Array(n);
    let idEnd = 0;
    let tagEnd = 0;
    order.forEach((from, row) => {
      labels[row] = entries[from]![2];
      offsets[row] = entries[from]![3];
      idEnd += ids[from]!.length;
      tagEnd += tags[from]!.length;
      idEnds[row] = idEnd;
      tagEnds[row] = tagEnd;
    });
    if (idEnd > 0xffff_ffff || tagEnd > 0xffff_ffff) throw new RangeError('vector entries: ids or tags exceed 4 GiB');
    const header = Buffer.alloc(HEADER_BYTES);
    header.write(MAGIC, 0, 'latin1');
    header.writeUInt32LE(KINDS.indexOf(kind), 4);
    header.writeUInt32LE(n, 8);
    header.writeUInt32LE(sum.length, 12);
    header.writeUInt32LE(idEnd, 16);
    header.writeUInt32LE(tagEnd, 20);
    const parts = [header, sum, labels, offsets, idEnds, tagEnds].map((part) => padded(Buffer.from(part.buffer, part.byteOffset, part.byteLength)));
    return Buffer.concat([...parts, padded(Buffer.concat(Array.from(order, (from) => ids[from]!))), Buffer.concat(Array.from(order, (from) => tags[from]!))]);
  }

  /** Reads {@link encode} output made with `dimensions`-long vectors; throws an Error saying what is wrong. */
  static decode(bytes: Buffer, dimensions: number): EntryTable {
    if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, 4) !== MAGIC) throw new Error('not an entry table');
    const kind = KINDS[bytes.readUInt32LE(4)];
    const n = bytes.readUInt32LE(8);
    if (kind === undefined) throw new Error(`unknown index kind ${bytes.readUInt32LE(4)}`);
    if (bytes.readUInt32LE(12) !== dimensions) throw new Error(`Σ has ${bytes.readUInt32LE(12)} dimensions, expected ${dimensions}`);
    let at = align8(HEADER_BYTES);
    const take = <T>(make: (length: number) => T & ArrayBufferView, length: number, unit: number): T => {
      const view = make(length);
      const end = at + length * unit;
      if (end > bytes.length) throw new Error('the table ends early');
      Buffer.from(view.buffer).set(bytes.subarray(at, end));
      at = align8(end);
      return view;
    };
    const sum = take((length) => new Float64Array(length), dimensions, 8);
    const labels = take((length) => new Uint32Array(length), n, 4);
    const offsets = take((length) => new Float64Array(length), n, 8);
    const idEnds = take((length) => new Uint32Array(length), n, 4);
    const tagEnds = take((length) => new Uint32Array(length), n, 4);
    const [idBytes, tagBytes] = [bytes.readUInt32LE(16), bytes.readUInt32LE(20)];
    const ids = bytes.subarray(at, at + idBytes);
    at = align8(at + idBytes);
    const tags = bytes.subarray(at, at + tagBytes);
    if (ids.length !== idBytes || at + tagBytes !== bytes.length) throw new Error('the texts do not end with the table');
    if (!ascending(idEnds, idBytes) || !ascending(tagEnds, tagBytes)) throw new Error('an id or tag ends outside its text');
    return new EntryTable(kind, { sum, labels, offsets, idEnds, tagEnds, ids, tags });
  }

  get size(): number {
    return this.#labels.length;
  }

  label(row: number): number {
    return this.#labels[row]!;
  }

  /** Where the row's vector starts in the HNSW graph file, -1 when unknown. */
  offset(row: number): number {
    return this.#offsets[row]!;
  }

  id(row: number): string {
    return this.#ids.toString('utf8', row === 0 ? 0 : this.#idEnds[row - 1]!, this.#idEnds[row]!);
  }

  tag(row: number): string {
    return this.#tags.toString('utf8', row === 0 ? 0 : this.#tagEnds[row - 1]!, this.#tagEnds[row]!);
  }

  entry(row: number): SavedEntry {
    return [this.id(row), this.tag(row), this.label(row), this.offset(row)];
  }

  /** Every row decoded, in id order. */
  rows(): SavedEntry[] {
    return Array.from({ length: this.size }, (_, row) => this.entry(row));
  }

  /** The row holding `id` (O(log n) byte comparisons), undefined when none does. */
  rowOf(id: string): number | undefined {
    const key = Buffer.from(id, 'utf8');
    let low = 0;
    let high = this.#labels.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const order = key.compare(this.#ids, middle === 0 ? 0 : this.#idEnds[middle - 1]!, this.#idEnds[middle]!);
      if (order === 0) return middle;
      if (order > 0) low = middle + 1;
      else high = middle;
    }
    return undefined;
  }
}

interface Sections {
  readonly sum: Float64Array;
  readonly labels: Uint32Array;
  readonly offsets: Float64Array;
  readonly idEnds: Uint32Array;
  readonly tagEnds: Uint32Array;
  readonly ids: Buffer;
  readonly tags: Buffer;
}

/** Each end at or after the one before, the last at `length`. */
function ascending(ends: Uint32Array, length: number): boolean {
  let previous = 0;
  for (let row = 0; row < ends.length; row += 1) {
    if (ends[row]! < previous) return false;
    previous = ends[row]!;
  }
  return previous === length;
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

/** `part` followed by zeros up to a multiple of 8 bytes. */
function padded(part: Buffer): Buffer {
  const length = align8(part.length);
  return length === part.length ? part : Buffer.concat([part, Buffer.alloc(length - part.length)]);
}
