import type { CliIo } from './io.js';

/** Redraws at most this often: a download fires thousands of chunk events. */
const REDRAW_EVERY_MS = 100;
const BAR_WIDTH = 24;

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/**
 * A one-line progress bar redrawn in place with `\r` on a terminal's stderr. On anything else
 * (a pipe, a log file, a test) it prints nothing: progress noise has no reader there.
 */
export class ProgressBar {
  readonly #stream: CliIo['stderr'];
  /** Whether the stream is a terminal (the bar draws only there). */
  readonly enabled: boolean;
  #lastDraw = 0;
  #started = performance.now();
  #shown = false;

  constructor(stream: CliIo['stderr']) {
    this.#stream = stream;
    this.enabled = (stream as { isTTY?: boolean }).isTTY === true;
  }

  /** `label`: what is being fetched; `done` / `total` bytes (total unknown → no bar, bytes only). */
  update(label: string, done: number, total: number | undefined, force = false): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (!force && now - this.#lastDraw < REDRAW_EVERY_MS) return;
    this.#lastDraw = now;
    const seconds = Math.max((now - this.#started) / 1000, 0.001);
    const rate = `${megabytes(done / seconds)}/s`;
    let text: string;
    if (total === undefined || total === 0) {
      text = `${label}  ${megabytes(done)}  ${rate}`;
    } else {
      const share = Math.min(done / total, 1);
      const filled = Math.round(share * BAR_WIDTH);
      text = `${label}  [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%  ${megabytes(done)} / ${megabytes(total)}  ${rate}`;
    }
    this.#stream.write(`\r\u001b[2K${text}`);
    this.#shown = true;
  }

  /** Starts the rate clock again (a new file). */
  restart(): void {
    this.#started = performance.now();
  }

  /** Leaves the line so later output starts on a fresh one. */
  done(): void {
    if (this.#shown) this.#stream.write('\n');
    this.#shown = false;
  }
}
