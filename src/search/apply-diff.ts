/** How a store changed when made to hold a desired set. */
export interface DiffCounts {
  readonly added: number;
  readonly updated: number;
  readonly removed: number;
  readonly unchanged: number;
}

/** What upserting one item did. */
export type UpsertOutcome = 'added' | 'updated' | 'unchanged';

/**
 * Makes a keyed store hold exactly `desired`: every id in `current` that is not desired is
 * removed, then every desired item is upserted; returns the counts. Shared by the lexical and
 * the vector index, which differ only in how they remove and upsert.
 */
export function applyDiff<T>(
  current: Iterable<string>,
  desired: ReadonlyMap<string, T>,
  remove: (id: string) => void,
  upsert: (id: string, item: T) => UpsertOutcome,
): DiffCounts {
  let removed = 0;
  for (const id of [...current]) {
    if (!desired.has(id)) {
      remove(id);
      removed += 1;
    }
  }
  const counts = { added: 0, updated: 0, unchanged: 0 };
  for (const [id, item] of desired) counts[upsert(id, item)] += 1;
  return { ...counts, removed };
}
