/**
 * Propagate an outer AbortSignal (a turn, a session) into a controller we own, and undo the
 * link when our work settles. Written by hand rather than with `AbortSignal.any` so the
 * listener on a long-lived outer signal is removed deterministically, not left to GC.
 */

const noop = (): void => {};

/**
 * Abort `controller` when `outer` aborts (at once if it already has). Returns the unlink
 * function; call it exactly when the linked work settles. Idempotent.
 */
export function linkAbortSignal(outer: AbortSignal | undefined, controller: AbortController): () => void {
  if (outer === undefined) return noop;
  if (outer.aborted) {
    controller.abort(outer.reason);
    return noop;
  }
  const onAbort = (): void => controller.abort(outer.reason);
  outer.addEventListener('abort', onAbort, { once: true });
  return () => outer.removeEventListener('abort', onAbort);
}
