/** `load` run once, its promise shared by every call; a rejected load is retried by the next call. */
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
