/**
 * What the search needs from the store shared by every project folder and process: entries keyed
 * by model and content hash, so a skill embedded once (in any folder, by any process) is never
 * embedded again. Small on purpose, so another engine (a team registry on Postgres with pgvector)
 * could sit behind it. `SqliteStore` is the implementation.
 *
 * A store is a cache: every method may fail (a locked or full disk, a damaged file), and the
 * callers treat a failure as "not stored" and go on.
 */
export interface EntryStore {
  /** The vectors stored under `model` for those of `keys` it holds (each `dimensions` long), marked used today. */
  vectors(model: string, dimensions: number, keys: readonly string[]): Map<string, Float32Array>;
  /** Those of `keys` with no vector under `model`; the others are marked used today. */
  missing(model: string, keys: readonly string[]): string[];
  /** Stores vectors by content key under `model`; entries stored already are kept and marked used today. */
  putVectors(model: string, vectors: ReadonlyMap<string, Float32Array>): void;
  /** The saved index that serves the catalog `key` (see {@link ServedCatalog}), marked used today; undefined when none was recorded. */
  servedCatalog(key: string): ServedCatalog | undefined;
  /** Records that `served` holds the index of the catalog `key` (replacing what was recorded). */
  putServedCatalog(key: string, served: ServedCatalog): void;
  /** Removes the entries no one used in the last `days` days; returns how many went. */
  collect(days: number): number;
  close(): void;
}

/**
 * An index folder holding a search snapshot, recorded under a catalog key that any working folder
 * computes alike (the catalog's portable stamp, the model, the snapshot format), so a new project
 * folder over a catalog seen before opens that snapshot instead of building its own index.
 */
export interface ServedCatalog {
  readonly indexDir: string;
  /** The snapshot's own `sourceStamp`, which it must still carry when opened. */
  readonly sourceStamp: string;
}

/** The store's knobs, in one place. */
export const STORE_DEFAULTS = Object.freeze({
  /** The store's file under the cache root. */
  file: 'store.sqlite',
  /** Entries unused this long are collected (by `skill-search index`, off a prompt's path). */
  collectAfterDays: 30,
  /**
   * How long a writer waits for another (`watch`, an indexer) to finish, in ms. Readers never
   * wait (WAL); a write that still finds the store busy is skipped, since the store is a cache.
   */
  busyTimeoutMs: 250,
});
