/**
 * Many strings saved as one UTF-8 text and where each ends (u32), so a cold process reads them
 * without parsing: a string is decoded only when asked for, and found by binary search over
 * rows sorted by their bytes ({@link sortedByBytes}).
 *
 * The search compares *byte images*: the UTF-8 bytes read as latin1, one UTF-16 unit per byte,
 * so comparing two images as strings compares the bytes. Decoding a short image and comparing
 * strings costs less than `Buffer#compare` on a range (which validates each argument in JS) in a
 * cold process; each compared row's image is kept, since every search passes the same first levels
 * (at most one string per row, for a reader that looks up a small part of the column).
 */
export class TextColumn {
  readonly #text: Buffer;
  readonly #ends: Uint32Array;
  readonly #images = new Map<number, string>();

  /**
   * Over `text` and where each string ends; throws when the last end does not close `text`.
   * The ends are not checked one by one (O(n) on every cold open): the files these come from
   * are checksummed, and a bad end decodes as a wrong string, never out of bounds.
   */
  constructor(text: Buffer, ends: Uint32Array) {
    if ((ends.length === 0 ? 0 : ends[ends.length - 1]) !== text.length) throw new Error('the texts do not fill their section');
    this.#text = text;
    this.#ends = ends;
  }

  /** The text of `strings` in order and where each ends; throws past 4 GiB. */
  static encode(strings: readonly string[]): { readonly text: Buffer; readonly ends: Uint32Array } {
    const parts = strings.map((string) => Buffer.from(string, 'utf8'));
    const ends = new Uint32Array(parts.length);
    let end = 0;
    parts.forEach((part, row) => {
      end += part.length;
      ends[row] = end;
    });
    if (end > 0xffff_ffff) throw new RangeError('texts exceed 4 GiB');
    return { text: Buffer.concat(parts), ends };
  }

  get length(): number {
    return this.#ends.length;
  }

  at(row: number): string {
    return this.#text.toString('utf8', row === 0 ? 0 : this.#ends[row - 1]!, this.#ends[row]!);
  }

  /** How the byte image `key` sorts against row `row`'s: negative before it, 0 equal, positive after. */
  #compare(key: string, row: number): number {
    let image = this.#images.get(row);
    if (image === undefined) {
      image = this.#text.toString('latin1', row === 0 ? 0 : this.#ends[row - 1]!, this.#ends[row]!);
      this.#images.set(row, image);
    }
    return key < image ? -1 : key > image ? 1 : 0;
  }

  /**
   * The rows whose text is `value`, found by binary search: over `order` (the rows sorted by
   * their bytes, see {@link sortedByBytes}), in its order, or over the rows themselves when
   * they are so sorted. O(log n) byte comparisons.
   */
  equalRange(value: string, order?: Uint32Array): number[] {
    const key = Buffer.from(value, 'utf8').toString('latin1');
    const rowAt = order === undefined ? (at: number) => at : (at: number) => order[at]!;
    const length = order?.length ?? this.#ends.length;
    let low = 0;
    let high = length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#compare(key, rowAt(middle)) > 0) low = middle + 1;
      else high = middle;
    }
    const rows: number[] = [];
    for (let at = low; at < length && this.#compare(key, rowAt(at)) === 0; at += 1) rows.push(rowAt(at));
    return rows;
  }
}

/** The rows of `strings` sorted by their UTF-8 bytes, ties in row order (compared as byte images, like the search). */
export function sortedByBytes(strings: readonly string[]): Uint32Array {
  const images = strings.map((string) => Buffer.from(string, 'utf8').toString('latin1'));
  return Uint32Array.from(strings.keys()).sort((a, b) => (images[a]! < images[b]! ? -1 : images[a]! > images[b]! ? 1 : a - b));
}
