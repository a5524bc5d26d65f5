import type { CliIo } from './io.js';

/** A terminal's line is redrawn at most this often (a download fires thousands of chunk events). */
const REDRAW_EVERY_MS = 100;
/** Plain progress lines (a pipe, a log) come at most this often, plus the first and the last. */
const LINE_EVERY_MS = 1000;
const BAR_WIDTH = 24;
/** Back to the line's start, and clear it. */
const REDRAW = '\r\u001b[2K';

export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** `[####----]  42%` for a share from 0 to 1. */
function bar(share: number): string {
  const filled = Math.round(share * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%`;
}

function duration(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s`;
  return `${Math.floor(seconds / 60)} min ${String(Math.round(seconds % 60)).padStart(2, '0')} s`;
}

function isTerminal(stream: CliIo['stderr']): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/** A download's one-line progress bar redrawn in place on a terminal's stderr; elsewhere (a pipe, a log) nothing. */
export class ProgressBar {
  readonly #stream: CliIo['stderr'];
  /** Whether the stream is a terminal (the bar draws only there). */
  readonly enabled: boolean;
  #lastDraw = 0;
  #started = performance.now();
  #shown = false;

  constructor(stream: CliIo['stderr']) {
    this.#stream = stream;
    this.enabled = isTerminal(stream);
  }

  /** `label`: what is being fetched; `done` / `total` bytes (total unknown → no bar, bytes only). */
  update(label: string, done: number, total: number | undefined, force = false): void {
    const now = performance.now();
    if (!this.enabled || (!force && now - this.#lastDraw < REDRAW_EVERY_MS)) return;
    this.#lastDraw = now;
    const rate = `${megabytes(done / Math.max((now - this.#started) / 1000, 0.001))}/s`;
    const sizes = total === undefined || total === 0 ? megabytes(done) : `${bar(Math.min(done / total, 1))}  ${megabytes(done)} / ${megabytes(total)}`;
    this.#stream.write(`${REDRAW}${label}  ${sizes}  ${rate}`);
    this.#shown = true;
  }

  /** Leaves the line so later output starts on a fresh one, and starts the rate clock again (for the next file). */
  done(): void {
    if (this.#shown) this.#stream.write('\n');
    this.#shown = false;
    this.#started = performance.now();
  }
}

/** Progress of an index build (`LiveIndex.refresh`'s `onProgress`): a bar on a terminal, else a line at most once a second, with rate and time left. */
export class BuildProgress {
  readonly #stream: CliIo['stderr'];
  readonly #tty: boolean;
  /** Say nothing until the work has run this long (a build done sooner stays silent). */
  readonly #after: number;
  /** Milliseconds now; tests pass a fake. */
  readonly #now: () => number;
  readonly #started: number;
  #lastShown = Number.NEGATIVE_INFINITY;

  constructor(stream: CliIo['stderr'], { after = 0, now = () => performance.now() }: { readonly after?: number; readonly now?: () => number } = {}) {
    this.#stream = stream;
    this.#tty = isTerminal(stream);
    this.#after = after;
    this.#now = now;
    this.#started = now();
  }

  /** The `onProgress` to hand to a build. */
  readonly update = (done: number, total: number): void => {
    const now = this.#now();
    const elapsed = now - this.#started;
    const last = done >= total;
    if (total === 0 || elapsed < this.#after || (!last && now - this.#lastShown < (this.#tty ? REDRAW_EVERY_MS : LINE_EVERY_MS))) return;
    this.#lastShown = now;
    const rate = elapsed > 0 && done > 0 ? (done / elapsed) * 1000 : undefined;
    const pace = rate === undefined ? '' : `${rate >= 10 ? Math.round(rate) : rate.toFixed(1)}/s${last ? '' : `, ${duration((total - done) / rate)} left`}`;
    // On a terminal, the last frame ends the bar's line.
    if (this.#tty) this.#stream.write(`${REDRAW}indexing  ${bar(done / total)}  ${done}/${total} skills${pace === '' ? '' : `  ${pace}`}${last ? '\n' : ''}`);
    else this.#stream.write(`indexing ${done}/${total} skills${pace === '' ? '' : ` (${pace})`}\n`);
  };
}
