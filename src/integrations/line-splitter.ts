/**
 * Newline framing for the search socket, with a hard cap on what a peer can make either end hold
 * (node:readline buffers an unfinished line without bound). On bytes: 0x0a never occurs inside
 * a UTF-8 character, so each line is decoded whole.
 */
export interface SplitResult {
  /** Complete lines in arrival order, without their `\n`. */
  readonly lines: readonly Buffer[];
  /** A line grew past the limit; everything after `lines` is discarded and the splitter holds nothing. */
  readonly overflow: boolean;
}

export class LineSplitter {
  #chunks: Buffer[] = [];
  #buffered = 0;

  /** `maxLineBytes`: the longest line, complete or unfinished. */
  constructor(readonly maxLineBytes: number) {}

  push(chunk: Buffer): SplitResult {
    const lines: Buffer[] = [];
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      const tail = chunk.subarray(start, end);
      const line = this.#chunks.length === 0 ? tail : Buffer.concat([...this.#chunks, tail]);
      this.#reset();
      start = end + 1;
      if (line.length > this.maxLineBytes) return { lines, overflow: true };
      lines.push(line);
    }
    if (start < chunk.length) {
      this.#chunks.push(chunk.subarray(start));
      this.#buffered += chunk.length - start;
      if (this.#buffered > this.maxLineBytes) {
        this.#reset();
        return { lines, overflow: true };
      }
    }
    return { lines, overflow: false };
  }

  /** The last line when the stream ended without a `\n` (undefined when nothing is held). */
  end(): Buffer | undefined {
    const rest = this.#buffered > 0 ? Buffer.concat(this.#chunks) : undefined;
    this.#reset();
    return rest;
  }

  #reset(): void {
    this.#chunks = [];
    this.#buffered = 0;
  }
}
