const noop = (): void => {};

/**
 * Aborts `controller` when `outer` aborts (at once if it has); call the returned unlink when the
 * work settles. By hand, not `AbortSignal.any`, so the listener on a long-lived signal is removed.
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
