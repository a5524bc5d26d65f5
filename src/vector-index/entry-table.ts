import { sortedByBytes, TextColumn } from '../util/text-column.js';
import type { SavedEntry, VectorIndexKind } from './vector-index.js';

/**
 * `vector-entries` as a binary table (format 2): every entry of a saved vector index and the
 * running sum of its vectors, read by a cold search without parsing or visiting each entry. The
 * rows are sorted by the UTF-8 bytes of their ids, so an id is found by binary search and
 * decoded only when a query reaches it, and what a restore needs by label (each label's row) is
 * saved by label, ready to use; a process that changes the index copies the rows out first
 * (`UsearchIndex`). The row offsets are -1 since the graph is usearch's (the data file finds its
 * own rows): the column stays so the layout is unchanged. Format 1, JSON of the same facts,
 * is still read (`store.ts`).
 *
 * Layout (little-endian, every section 8-byte aligned): `SKVE`, then u32s: kind (0 hnsw,
 * 1 exact), count n, dimensions d, labels m (the highest label + 1), whether every row's offset
 * is known (0/1), the byte lengths of the id and tag texts; then Σ (f64 × d), each row's label
 * (u32 × n), each label's row (i32 × m, -1 for a free label), each label's row offset in the
 * graph file (f64 × m, -1 when unknown), where each id and each tag ends in its text (u32 × n
 * each), the ids' text and the tags' text.
 */
export const ENTRY_TABLE_FORMAT = 2;
const MAGIC = 'SKVE';
const HEADER_BYTES = 32;
const KINDS: readonly VectorIndexKind[] = ['hnsw', 'exact'];

export class EntryTable {
  readonly kind: VectorIndexKind;
  /** Σ of the stored vectors, per dimension. */
  readonly sum: Float64Array;
  /** By label: its row, -1 for a label no entry holds. */
  readonly rowOfLabel: Int32Array;
  /** By label: where its vector starts in the HNSW graph file, -1 when unknown. */
  readonly offsets: Float64Array;
  /** Every row's offset is known. */
  readonly rowsKnown: boolean;
  readonly #labels: Uint32Array;
  /** Sorted by their bytes. */
  readonly #ids: TextColumn;
  readonly #tags: TextColumn;
  /** Rows found by {@link rowOf} (-1 for none): a search asks for each candidate's tag and vector in turn. */
  readonly #found = new Map<string, number>();

  private constructor(kind: VectorIndexKind, rowsKnown: boolean, sections: Sections) {
    this.kind = kind;
    this.rowsKnown = rowsKnown;
    this.sum = sections.sum;
    this.rowOfLabel = sections.rowOfLabel;
    this.offsets = sections.offsets;
    this.#labels = sections.labels;
    this.#ids = sections.ids;
    this.#tags = sections.tags;
  }

  /** The table of `entries` (ids and labels unique), rows sorted by id. */
  static encode(kind: VectorIndexKind, entries: readonly SavedEntry[], sum: Float64Array): Buffer {
    const sorted = Array.from(sortedByBytes(entries.map((entry) => entry[0])), (from) => entries[from]!);
    const ids = TextColumn.encode(sorted.map((entry) => entry[0]));
    const tags = TextColumn.encode(sorted.map((entry) => entry[1]));
    const labels = Uint32Array.from(sorted, (entry) => entry[2]);
    const labelCount = labels.reduce((max, label) => Math.max(max, label + 1), 0);
    const rowOfLabel = new Int32Array(labelCount).fill(-1);
    const offsets = new Float64Array(labelCount).fill(-1);
    sorted.forEach(([, , label, offset], row) => {
      rowOfLabel[label] = row;
      offsets[label] = offset;
    });
    const header = Buffer.alloc(HEADER_BYTES);
    header.write(MAGIC, 0, 'latin1');
    [KINDS.indexOf(kind), sorted.length, sum.length, labelCount, sorted.every((entry) => entry[3] >= 0) ? 1 : 0, ids.text.length, tags.text.length].forEach(
      (value, i) => header.writeUInt32LE(value, 4 + 4 * i),
    );
    const parts = [header, sum, labels, rowOfLabel, offsets, ids.ends, tags.ends].map((part) =>
      padded(Buffer.from(part.buffer, part.byteOffset, part.byteLength)),
    );
    return Buffer.concat([...parts, padded(ids.text), tags.text]);
  }

  /** Reads {@link encode} output made with `dimensions`-long vectors; throws an Error saying what is wrong. */
  static decode(bytes: Buffer, dimensions: number): EntryTable {
    if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, 4) !== MAGIC) throw new Error('not an entry table');
    const [kindCode, n, sumLength, labelCount, rowsKnown, idBytes, tagBytes] = Array.from({ length: 7 }, (_, i) => bytes.readUInt32LE(4 + 4 * i));
    const kind = KINDS[kindCode!];
    if (kind === undefined) throw new Error(`unknown index kind ${kindCode}`);
    if (sumLength !== dimensions) throw new Error(`Σ has ${sumLength} dimensions, expected ${dimensions}`);
    let at = HEADER_BYTES;
    const take = <T>(make: (length: number) => T & ArrayBufferView, length: number, unit: number): T => {
      const view = make(length);
      const end = at + length * unit;
      if (end > bytes.length) throw new Error('the table ends early');
      Buffer.from(view.buffer).set(bytes.subarray(at, end));
      at = align8(end);
      return view;
    };
    const sum = take((length) => new Float64Array(length), dimensions, 8);
    const labels = take((length) => new Uint32Array(length), n!, 4);
    const rowOfLabel = take((length) => new Int32Array(length), labelCount!, 4);
    const offsets = take((length) => new Float64Array(length), labelCount!, 8);
    const idEnds = take((length) => new Uint32Array(length), n!, 4);
    const tagEnds = take((length) => new Uint32Array(length), n!, 4);
    const ids = bytes.subarray(at, at + idBytes!);
    at = align8(at + idBytes!);
    const tags = bytes.subarray(at, at + tagBytes!);
    if (ids.length !== idBytes || at + tagBytes! !== bytes.length) throw new Error('the texts do not end with the table');
    return new EntryTable(kind, rowsKnown === 1, {
      sum,
      labels,
      rowOfLabel,
      offsets,
      ids: new TextColumn(ids, idEnds),
      tags: new TextColumn(tags, tagEnds),
    });
  }

  /** The highest label + 1. */
  get labelCount(): number {
    return this.rowOfLabel.length;
  }

  get size(): number {
    return this.#labels.length;
  }

  label(row: number): number {
    return this.#labels[row]!;
  }

  id(row: number): string {
    return this.#ids.at(row);
  }

  tag(row: number): string {
    return this.#tags.at(row);
  }

  entry(row: number): SavedEntry {
    return [this.id(row), this.tag(row), this.label(row), this.offsets[this.label(row)]!];
  }

  /** Every row decoded, in id order. */
  rows(): SavedEntry[] {
    return Array.from({ length: this.size }, (_, row) => this.entry(row));
  }

  /** The row holding `id` (O(log n) byte comparisons), undefined when none does. */
  rowOf(id: string): number | undefined {
    let row = this.#found.get(id);
    if (row === undefined) {
      row = this.#ids.equalRange(id)[0] ?? -1;
      this.#found.set(id, row);
    }
    return row < 0 ? undefined : row;
  }
}

interface Sections {
  readonly sum: Float64Array;
  readonly labels: Uint32Array;
  readonly rowOfLabel: Int32Array;
  readonly offsets: Float64Array;
  readonly ids: TextColumn;
  readonly tags: TextColumn;
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

/** `part` followed by zeros up to a multiple of 8 bytes. */
function padded(part: Buffer): Buffer {
  const length = align8(part.length);
  return length === part.length ? part : Buffer.concat([part, Buffer.alloc(length - part.length)]);
}
