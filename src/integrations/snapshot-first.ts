import { errorMessage, isAbortError } from '../errors.js';
import { hasHan } from '../lang/detect.js';
import type { SearchHit, SearchRequest } from '../types.js';
import type { ClosableSearcher } from './server-first.js';

export interface SnapshotFirstOptions {
  /** The read-only search of the saved snapshot (`LiveIndex.openSnapshot`); called at most once. */
  readonly openSnapshot: () => Promise<ClosableSearcher | { readonly reason: string }>;
  /** The full in-process search (`LiveIndex.open`); called at most once, only when the snapshot cannot answer. */
  readonly openLive: () => Promise<ClosableSearcher>;
  /** Why the snapshot was not used (for a debug line); not called for queries it never tried. */
  readonly onMiss?: (reason: string) => void;
}

/**
 * Whether a search snapshot can answer `query`: not when it has Chinese or Japanese characters,
 * since translating it needs the whole catalog (its majority language, its loanwords).
 */
export function snapshotCanAnswer(query: string): boolean {
  return !hasHan(query);
}

/**
 * The in-process search of a cold process (a hook or `query` with no server): the catalog's
 * saved search snapshot when it still matches the catalog on disk and {@link snapshotCanAnswer}
 * the query, the full index otherwise.
 */
export class SnapshotFirstSearcher implements ClosableSearcher {
  readonly #options: SnapshotFirstOptions;
  #snapshot: Promise<ClosableSearcher | undefined> | undefined;
  #live: Promise<ClosableSearcher> | undefined;
  #via: 'snapshot' | 'live' | undefined;

  constructor(options: SnapshotFirstOptions) {
    this.#options = options;
  }

  /** Which path answered the last search; undefined before the first. */
  get via(): 'snapshot' | 'live' | undefined {
    return this.#via;
  }

  async search(query: string, request: SearchRequest = {}): Promise<readonly SearchHit[]> {
    if (snapshotCanAnswer(query)) {
      const snapshot = await this.#openSnapshot();
      if (snapshot !== undefined) {
        try {
          const hits = await snapshot.search(query, request);
          this.#via = 'snapshot';
          return hits;
        } catch (error) {
          if (isAbortError(error)) throw error;
          // A snapshot that fails mid-search (a record that does not decode) is not used again.
          this.#options.onMiss?.(`search snapshot failed: ${errorMessage(error)}`);
          this.#snapshot = Promise.resolve(undefined);
          void snapshot.close().catch(() => undefined);
        }
      }
    }
    this.#live ??= this.#options.openLive();
    const live = await this.#live;
    this.#via = 'live';
    return live.search(query, request);
  }

  async close(): Promise<void> {
    const snapshot = await this.#snapshot?.catch(() => undefined);
    await snapshot?.close();
    const live = await this.#live?.catch(() => undefined);
    await live?.close();
  }

  /** The snapshot search, or undefined (once, for good) when there is none to use or it failed to open. */
  #openSnapshot(): Promise<ClosableSearcher | undefined> {
    this.#snapshot ??= this.#options.openSnapshot().then(
      (opened) => {
        if (!('reason' in opened)) return opened;
        this.#options.onMiss?.(opened.reason);
        return undefined;
      },
      (error: unknown) => {
        this.#options.onMiss?.(`search snapshot failed to open: ${errorMessage(error)}`);
        return undefined;
      },
    );
    return this.#snapshot;
  }
}
