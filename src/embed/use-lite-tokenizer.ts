/**
 * USE-lite's SentencePiece-style unigram tokenizer: NFKC, spaces become `▁` (one in front too), then the best
 * segmentation into pieces (Viterbi); uncovered characters become one unknown id 0 per run. Its ids are the original
 * JavaScript wrapper's, hence its tie rules: a later piece wins a tie, a best score of exactly 0 counts as unreached,
 * backtracking steps by UTF-16 length.
 */

/** Ids below this are control symbols that never match text. */
const RESERVED_SYMBOLS = 6;
const WORD_BOUNDARY = '\u2581';
const UNKNOWN_ID = 0;

export type Vocabulary = readonly (readonly [piece: string, score: number])[];

/** The pieces as a trie in typed arrays, edges in one open-addressing table keyed by (node, code point): no object per node to collect. Node 0 is the root. */
class PieceTrie {
  /** Vocabulary id of the piece ending at each node, -1 where none does. */
  readonly ids: Int32Array;
  readonly scores: Float64Array;
  readonly #edgeParent: Int32Array;
  readonly #edgeSymbol: Int32Array;
  /** The child each edge leads to; 0 marks an empty slot (the root is nobody's child). */
  readonly #edgeChild: Int32Array;
  readonly #mask: number;
  #nodes = 1;

  /** Room for `maxNodes` nodes besides the root (the pieces' total length bounds it), or the arrays of a saved trie. */
  constructor(maxNodes: number, saved?: TrieArrays) {
    // A power of two at least twice the edges keeps probes short.
    const slots = 2 ** Math.ceil(Math.log2(2 * maxNodes + 2));
    this.ids = saved?.ids ?? new Int32Array(maxNodes + 1).fill(-1);
    this.scores = saved?.scores ?? new Float64Array(maxNodes + 1);
    this.#edgeParent = saved?.edgeParent ?? new Int32Array(slots);
    this.#edgeSymbol = saved?.edgeSymbol ?? new Int32Array(slots);
    this.#edgeChild = saved?.edgeChild ?? new Int32Array(slots);
    this.#mask = slots - 1;
  }

  get arrays(): TrieArrays {
    return { ids: this.ids, scores: this.scores, edgeParent: this.#edgeParent, edgeSymbol: this.#edgeSymbol, edgeChild: this.#edgeChild };
  }

  /** The child of `node` by `symbol` (a code point), or 0 when there is none. */
  child(node: number, symbol: number): number {
    for (let slot = this.#slot(node, symbol); ; slot = (slot + 1) & this.#mask) {
      const child = this.#edgeChild[slot]!;
      if (child === 0 || (this.#edgeParent[slot] === node && this.#edgeSymbol[slot] === symbol)) return child;
    }
  }

  /** The child of `node` by `symbol`, made when missing. */
  childOrNew(node: number, symbol: number): number {
    let slot = this.#slot(node, symbol);
    for (; this.#edgeChild[slot] !== 0; slot = (slot + 1) & this.#mask) {
      if (this.#edgeParent[slot] === node && this.#edgeSymbol[slot] === symbol) return this.#edgeChild[slot]!;
    }
    const child = this.#nodes;
    this.#nodes += 1;
    this.#edgeParent[slot] = node;
    this.#edgeSymbol[slot] = symbol;
    this.#edgeChild[slot] = child;
    return child;
  }

  #slot(node: number, symbol: number): number {
    return (Math.imul(Math.imul(node, 0x01000193) ^ symbol, 0x9e3779b1) >>> 0) & this.#mask;
  }
}

interface TrieArrays {
  readonly ids: Int32Array;
  readonly scores: Float64Array;
  readonly edgeParent: Int32Array;
  readonly edgeSymbol: Int32Array;
  readonly edgeChild: Int32Array;
}

/**
 * A tokenizer's table (`table()` / `fromTable`), so a cold process maps typed arrays instead of building the trie.
 * Little-endian: int32 tag, format, vocabulary size, trie capacity, then the arrays, each at a multiple of 8 bytes.
 */
const TABLE_TAG = 0x544c5355; // "USLT"
const TABLE_FORMAT = 1;
const TABLE_HEADER_BYTES = 16;

export class UseLiteTokenizer {
  /** Each vocabulary piece's length in UTF-16 units (how far back a chosen piece steps). */
  readonly #pieceLengths: Int32Array;
  readonly #trie: PieceTrie;

  /** From the vocabulary, or from a table's arrays ({@link fromTable}). */
  constructor(source: Vocabulary | { readonly pieceLengths: Int32Array; readonly trie: PieceTrie }) {
    if ('trie' in source) {
      this.#pieceLengths = source.pieceLengths;
      this.#trie = source.trie;
      return;
    }
    const vocabulary = source;
    this.#pieceLengths = Int32Array.from(vocabulary, ([piece]) => piece.length);
    let length = 0;
    for (let id = RESERVED_SYMBOLS; id < vocabulary.length; id += 1) length += vocabulary[id]![0].length;
    const trie = new PieceTrie(length);
    for (let id = RESERVED_SYMBOLS; id < vocabulary.length; id += 1) {
      const [piece, score] = vocabulary[id]!;
      let node = 0;
      for (let at = 0; at < piece.length; ) {
        const symbol = piece.codePointAt(at)!;
        at += symbol > 0xffff ? 2 : 1;
        node = trie.childOrNew(node, symbol);
      }
      // A duplicated piece keeps its last id, as the original trie did.
      if (node !== 0) {
        trie.ids[node] = id;
        trie.scores[node] = score;
      }
    }
    this.#trie = trie;
  }

  /** A tokenizer from {@link table}'s bytes; undefined when they are not a table of this format. */
  static fromTable(bytes: Uint8Array): UseLiteTokenizer | undefined {
    if (bytes.byteLength < TABLE_HEADER_BYTES || bytes.byteOffset % 8 !== 0) return undefined;
    const [tag, format, vocabularySize, capacity] = new Int32Array(bytes.buffer, bytes.byteOffset, 4);
    if (tag !== TABLE_TAG || format !== TABLE_FORMAT || !(vocabularySize! > 0) || !(capacity! > 0)) return undefined;
    const slots = 2 ** Math.ceil(Math.log2(2 * (capacity! - 1) + 2));
    const layout = tableLayout(vocabularySize!, capacity!, slots);
    if (layout.bytes !== bytes.byteLength) return undefined;
    const ints = (at: number, count: number) => new Int32Array(bytes.buffer, bytes.byteOffset + at, count);
    const trie = new PieceTrie(capacity! - 1, {
      ids: ints(layout.ids, capacity!),
      scores: new Float64Array(bytes.buffer, bytes.byteOffset + layout.scores, capacity!),
      edgeParent: ints(layout.edgeParent, slots),
      edgeSymbol: ints(layout.edgeSymbol, slots),
      edgeChild: ints(layout.edgeChild, slots),
    });
    return new UseLiteTokenizer({ pieceLengths: ints(layout.pieceLengths, vocabularySize!), trie });
  }

  /** This tokenizer as bytes for {@link fromTable}. */
  table(): Uint8Array {
    const arrays = { pieceLengths: this.#pieceLengths, ...this.#trie.arrays };
    const layout = tableLayout(this.#pieceLengths.length, arrays.ids.length, arrays.edgeChild.length);
    const out = new Uint8Array(layout.bytes);
    new Int32Array(out.buffer, 0, 4).set([TABLE_TAG, TABLE_FORMAT, this.#pieceLengths.length, arrays.ids.length]);
    for (const [name, array] of Object.entries(arrays) as [keyof typeof arrays, Int32Array | Float64Array][]) {
      out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), layout[name]);
    }
    return out;
  }

  encode(text: string): number[] {
    const normalized = text.normalize('NFKC');
    if (normalized.length === 0) return [];
    const symbols = Array.from(WORD_BOUNDARY + normalized.replaceAll(' ', WORD_BOUNDARY), (symbol) => symbol.codePointAt(0)!);
    const n = symbols.length;
    const trie = this.#trie;
    // Forward Viterbi: best[start] is final when `start` is reached, and relaxing by increasing
    // start reproduces the original's tie order.
    const best = new Float64Array(n + 1);
    const chosen = new Int32Array(n + 1);
    const relax = (start: number, end: number, id: number, pieceScore: number): void => {
      const score = pieceScore + best[start]!;
      if (best[end] === 0 || score >= best[end]!) {
        best[end] = score;
        chosen[end] = id;
      }
    };
    for (let start = 0; start < n; start += 1) {
      let node = trie.child(0, symbols[start]!);
      let matched = false;
      for (let end = start + 1; node !== 0; end += 1) {
        if (trie.ids[node]! >= 0) {
          relax(start, end, trie.ids[node]!, trie.scores[node]!);
          matched = true;
        }
        node = end < n ? trie.child(node, symbols[end]!) : 0;
      }
      if (!matched) relax(start, start + 1, UNKNOWN_ID, 0);
    }

    const reversed: number[] = [];
    let previousUnknown = false;
    for (let position = n; position > 0; position -= this.#pieceLengths[chosen[position]!]!) {
      const id = chosen[position]!;
      if (!(previousUnknown && id === UNKNOWN_ID)) reversed.push(id);
      previousUnknown = id === UNKNOWN_ID;
    }
    return reversed.reverse();
  }
}

/** Where each array of a table starts, and its total size. */
function tableLayout(vocabularySize: number, capacity: number, slots: number) {
  const at8 = (offset: number): number => Math.ceil(offset / 8) * 8;
  const pieceLengths = TABLE_HEADER_BYTES;
  const ids = at8(pieceLengths + 4 * vocabularySize);
  const scores = at8(ids + 4 * capacity);
  const edgeParent = scores + 8 * capacity;
  const edgeSymbol = at8(edgeParent + 4 * slots);
  const edgeChild = at8(edgeSymbol + 4 * slots);
  return { pieceLengths, ids, scores, edgeParent, edgeSymbol, edgeChild, bytes: at8(edgeChild + 4 * slots) };
}
