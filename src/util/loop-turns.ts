/** How long synchronous work runs before it lets timers and I/O in: a hook's budget timer fires only between such slices (docs/cold-start.md). */
const TURN_EVERY_MS = 20;

/**
 * A function to await between slices of synchronous work: once `everyMs` have passed since the last
 * turn it gives the event loop one (`setImmediate`), else it returns at once.
 */
export function loopTurns(everyMs = TURN_EVERY_MS): () => Promise<void> {
  let turnedAt = performance.now();
  return async () => {
    if (performance.now() - turnedAt <= everyMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    turnedAt = performance.now();
  };
}
