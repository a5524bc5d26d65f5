import type { CliIo } from './io.js';

/** Redraws at most this often: a download fires thousands of chunk events. */
const REDRAW_EVERY_MS = 100;
const BAR_WIDTH = 24;

export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** `[####----]  42%` for a share from 0 to 1. */
function bar(share: number): string {
  const filled = Math.round(share * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%`;
}

/** A one-line progress bar redrawn in place on a terminal's stderr; elsewhere (a pipe, a log) nothing. */
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
    const sizes = total === undefined || total === 0 ? megabytes(done) : `${bar(Math.min(done / total, 1))}  ${megabytes(done)} / ${megabytes(total)}`;
    this.#stream.write(`\r\u001b[2K${label}  ${sizes}  ${rate}`);
    this.#shown = true;
  }

  /** Leaves the line so later output starts on a fresh one, and starts the rate clock again (for the next file). */
  done(): void {
    if (this.#shown) this.#stream.write('\n');
    this.#shown = false;
    this.#started = performance.now();
  }
}

/** Plain progress lines (a pipe, a log) come at most this often, plus the first and the last. */
const LINE_EVERY_MS = 1000;

export interface BuildProgressOptions {
  /** Say nothing until the work has run this long (a build done sooner stays silent). @default 0 */
  readonly after?: number;
  /** Milliseconds now; tests pass a fake. @default performance.now */
  readonly now?: () => number;
}

function duration(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s`;
  return `${Math.floor(seconds / 60)} min ${String(Math.round(seconds % 60)).padStart(2, '0')} s`;
}

/** Progress of an index build (`LiveIndex.refresh`'s `onProgress`): a bar on a terminal, else a line at most once a second, with rate and time left. */
export class BuildProgress {
  readonly #stream: CliIo['stderr'];
  readonly #tty: boolean;
  readonly #after: number;
  readonly #now: () => number;
  readonly #started: number;
  #lastShown = Number.NEGATIVE_INFINITY;

  constructor(stream: CliIo['stderr'], options: BuildProgressOptions = {}) {
    this.#stream = stream;
    this.#tty = (stream as { isTTY?: boolean }).isTTY === true;
    this.#after = options.after ?? 0;
    this.#now = options.now ?? (() => performance.now());
    this.#started = this.#now();
  }

  /** The `onProgress` to hand to a build. */
  readonly update = (done: number, total: number): void => {
    if (total === 0) return;
    const now = this.#now();
    const elapsed = now - this.#started;
    if (elapsed < this.#after) return;
    const last = done >= total;
    const every = this.#tty ? REDRAW_EVERY_MS : LINE_EVERY_MS;
    if (!last && now - this.#lastShown < every) return;
    this.#lastShown = now;
    const rate = elapsed > 0 && done > 0 ? (done / elapsed) * 1000 : undefined;
    const pace = rate === undefined ? '' : `${rate >= 10 ? Math.round(rate) : rate.toFixed(1)}/s${last ? '' : `, ${duration((total - done) / rate)} left`}`;
    if (this.#tty) {
      // The last frame ends the bar's line.
      this.#stream.write(`\r\u001b[2Kindexing  ${bar(done / total)}  ${done}/${total} skills${pace === '' ? '' : `  ${pace}`}${last ? '\n' : ''}`);
    } else this.#stream.write(`indexing ${done}/${total} skills${pace === '' ? '' : ` (${pace})`}\n`);
  };
}
