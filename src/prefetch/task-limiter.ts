import { abortError, throwIfAborted } from '../errors.js';

/**
 * Runs at most `concurrency` tasks at once; the others wait their turn in arrival order. A
 * waiting task whose signal aborts leaves the line and rejects with an AbortError. A finishing
 * task hands its slot straight to the next in line, so none can slip past the line or the limit.
 */
export class TaskLimiter {
  readonly #concurrency: number;
  #running = 0;
  /** Each waiting task's start, in arrival order. */
  readonly #waiting: (() => void)[] = [];

  constructor(concurrency: number) {
    this.#concurrency = concurrency;
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** `task`'s result once a slot is free and it has run. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    throwIfAborted(signal);
    if (this.#running < this.#concurrency) this.#running += 1;
    else await this.#slot(signal);
    try {
      return await task();
    } finally {
      this.#release();
    }
  }

  /** Resolves when a finishing task hands this one its slot (already counted as running). */
  #slot(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const start = (): void => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      const leave = (): void => {
        const at = this.#waiting.indexOf(start);
        if (at !== -1) this.#waiting.splice(at, 1);
        reject(abortError(signal));
      };
      this.#waiting.push(start);
      signal?.addEventListener('abort', leave, { once: true });
    });
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#running -= 1;
    else next();
  }
}
