/** How a store changed when made to hold a desired set. */
export interface DiffCounts {
  readonly added: number;
  readonly updated: number;
  readonly removed: number;
  readonly unchanged: number;
}

/** The keyed store a diff is applied to. */
interface DiffTarget<T> {
  readonly size: number;
  ids(): Iterable<string>;
  has(id: string): boolean;
  remove(id: string): void;
  upsert(id: string, item: T): 'added' | 'updated' | 'unchanged';
  /**
   * True when the store is known to hold `item` under `id` as it is (e.g. the very object the
   * previous diff upserted or kept): it is then neither upserted nor looked at further.
   */
  holds?(id: string, item: T): boolean;
  /** Called with the items to upsert before anything is removed (e.g. to read what removals would drop). */
  beforeChanges?(pending: readonly (readonly [string, T])[]): void;
}

/**
 * Makes a keyed store hold exactly `desired`: every id it holds that is not desired is removed,
 * then every desired item it does not already hold is upserted, in `desired` order; returns the
 * counts. The store's ids are scanned for removals only when its size says some are not desired.
 */
export function applyDiff<T>(desired: ReadonlyMap<string, T>, target: DiffTarget<T>): DiffCounts {
  const pending: [string, T][] = [];
  let kept = 0;
  for (const entry of desired) {
    if (target.holds?.(entry[0], entry[1]) === true) kept += 1;
    else {
      pending.push(entry);
      if (target.has(entry[0])) kept += 1;
    }
  }
  target.beforeChanges?.(pending);
  let removed = 0;
  if (target.size > kept) {
    for (const id of [...target.ids()]) {
      if (!desired.has(id)) {
        target.remove(id);
        removed += 1;
      }
    }
  }
  const counts = { added: 0, updated: 0, unchanged: desired.size - pending.length };
  for (const [id, item] of pending) counts[target.upsert(id, item)] += 1;
  return { ...counts, removed };
}
