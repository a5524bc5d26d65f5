/** Calls between tries of the slower side: the first gap, doubled after each try that finds it still slower. */
const PROBE_GAP = Object.freeze({ first: 32, last: 512 });
/** Weight of the newest call in a side's rate (an exponential moving average). */
const NEWEST_WEIGHT = 0.25;
/** The other side takes over only when this much faster: calls of other shapes make rates noisy. */
const SWITCH_MARGIN = 1.25;

/**
 * Chooses between two ways of running the same work, call by call: the one faster lately (work per ms), trying the
 * other now and then, less often while the answer holds. Side 0 is tried first. The embedder picks between the bulk
 * session's threads and one thread, slower once other processes hold the cores (docs/cold-build.md).
 */
export class FasterSide {
  readonly #rates: [number | undefined, number | undefined] = [undefined, undefined];
  #faster: 0 | 1 | undefined;
  #gap: number = PROBE_GAP.first;
  #sinceProbe = 0;
  #trying: 0 | 1 | undefined;

  /** The side for the next call. */
  pick(): 0 | 1 {
    const [first, second] = this.#rates;
    if (first === undefined) return 0;
    if (second === undefined) return 1;
    const current = this.#faster ?? (first >= second ? 0 : 1);
    const other = current === 0 ? 1 : 0;
    const faster = this.#rates[other]! > this.#rates[current]! * SWITCH_MARGIN ? other : current;
    if (faster !== this.#faster) {
      this.#faster = faster;
      this.#gap = PROBE_GAP.first;
      this.#sinceProbe = 0;
    }
    this.#sinceProbe += 1;
    if (this.#sinceProbe < this.#gap) return faster;
    this.#sinceProbe = 0;
    this.#gap = Math.min(PROBE_GAP.last, this.#gap * 2);
    this.#trying = faster === 0 ? 1 : 0;
    return this.#trying;
  }

  /** Records a call on `side` that did `work` units in `ms` milliseconds. */
  record(side: 0 | 1, work: number, ms: number): void {
    const rate = work / Math.max(ms, 0.01);
    const old = this.#rates[side];
    // A try of the slower side replaces its rate, which is from another time, rather than averaging with it.
    this.#rates[side] = old === undefined || side === this.#trying ? rate : old + NEWEST_WEIGHT * (rate - old);
    this.#trying = undefined;
  }
}
