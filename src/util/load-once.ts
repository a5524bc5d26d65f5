/**
 * `load` run once and its promise shared by every call; a load that rejects is forgotten, so
 * the next call tries again.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    if (pending === undefined) {
      const made = load();
      pending = made;
      made.catch(() => {
        if (pending === made) pending = undefined;
      });
    }
    return pending;
  };
}
