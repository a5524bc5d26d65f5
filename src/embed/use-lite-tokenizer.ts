/**
 * The SentencePiece-style unigram tokenizer of the bundled Universal Sentence Encoder lite:
 * NFKC, spaces become `▁` (plus one in front), then the highest-scoring segmentation into
 * vocabulary pieces (Viterbi over log-probabilities); characters no piece covers become the
 * unknown id 0, and runs of unknowns collapse into one.
 *
 * It must produce exactly the ids the model was fed by its original JavaScript wrapper, so
 * vectors stay identical whichever runtime computes them. That fixes the tie rules below: a
 * later (shorter) piece wins a tie, a position whose best score is exactly 0 counts as
 * unreached, and backtracking steps back by each piece's UTF-16 length.
 */

/** Ids below this are control symbols that never match text. */
const RESERVED_SYMBOLS = 6;
const WORD_BOUNDARY = '\u2581';
export const UNKNOWN_ID = 0;

export type Vocabulary = readonly (readonly [piece: string, score: number])[];

interface TrieNode {
  readonly children: Map<string, TrieNode>;
  /** Vocabulary id when a piece ends here, else -1. */
  id: number;
  score: number;
}

const newNode = (): TrieNode => ({ children: new Map(), id: -1, score: 0 });

export class UseLiteTokenizer {
  readonly #vocabulary: Vocabulary;
  readonly #root = newNode();

  constructor(vocabulary: Vocabulary) {
    this.#vocabulary = vocabulary;
    for (let id = RESERVED_SYMBOLS; id < vocabulary.length; id += 1) {
      const [piece, score] = vocabulary[id]!;
      let node = this.#root;
      for (const symbol of piece) {
        let child = node.children.get(symbol);
        if (child === undefined) {
          child = newNode();
          node.children.set(symbol, child);
        }
        node = child;
      }
      // A duplicated piece keeps its last id, as the original trie did.
      if (node !== this.#root) {
        node.id = id;
        node.score = score;
      }
    }
  }

  get vocabularySize(): number {
    return this.#vocabulary.length;
  }

  encode(text: string): number[] {
    const normalized = text.normalize('NFKC');
    if (normalized.length === 0) return [];
    const symbols = [...(WORD_BOUNDARY + normalized.replaceAll(' ', WORD_BOUNDARY))];
    const n = symbols.length;
    // Forward Viterbi: when `start` is reached, every piece ending there came from an earlier
    // start, so best[start] is final; relaxing ends in increasing start order reproduces the
    // original's tie order (pieces ending at one position, visited by increasing start).
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
      let node = this.#root.children.get(symbols[start]!);
      let matched = false;
      for (let end = start + 1; node !== undefined; end += 1) {
        if (node.id >= 0) {
          relax(start, end, node.id, node.score);
          matched = true;
        }
        node = end < n ? node.children.get(symbols[end]!) : undefined;
      }
      if (!matched) relax(start, start + 1, UNKNOWN_ID, 0);
    }

    const reversed: number[] = [];
    let previousUnknown = false;
    for (let position = n; position > 0; position -= this.#vocabulary[chosen[position]!]![0].length) {
      const id = chosen[position]!;
      if (!(previousUnknown && id === UNKNOWN_ID)) reversed.push(id);
      previousUnknown = id === UNKNOWN_ID;
    }
    return reversed.reverse();
  }
}
