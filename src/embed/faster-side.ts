/** How often an index call tries the side that was slower, in case the load has moved. */
const PROBE_EVERY = 32;
/** Weight of the newest call in a side's rate (an exponential moving average). */
const NEWEST_WEIGHT = 0.25;

/**
 * Chooses between two ways of running the same work, call by call: the one that ran faster
 * lately (work per millisecond), with every {@link PROBE_EVERY}th call on the other. Side 0 is
 * tried first, side 1 second. The embedder uses it for the bulk session's threads, which run
 * slower than one thread once other processes hold the cores (docs/cold-build.md).
 */
export class FasterSide {
  readonly #rates: [number | undefined, number | undefined] = [undefined, undefined];
  #calls = 0;

  /** The side for the next call. */
  pick(): 0 | 1 {
    this.#calls += 1;
    const [first, second] = this.#rates;
    if (first === undefined) return 0;
    if (second === undefined) return 1;
    const faster = first >= second ? 0 : 1;
    return this.#calls % PROBE_EVERY === 0 ? ((1 - faster) as 0 | 1) : faster;
  }

  /** Records a call on `side` that did `work` units in `ms` milliseconds. */
  record(side: 0 | 1, work: number, ms: number): void {
    const rate = work / Math.max(ms, 0.01);
    const old = this.#rates[side];
    this.#rates[side] = old === undefined ? rate : old + NEWEST_WEIGHT * (rate - old);
  }
}
