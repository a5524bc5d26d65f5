import { EventEmitter, once } from 'node:events';
import path from 'node:path';
import type { LexicalSearcher } from '../lexical/lexical-index.js';
import { SkillSearchError, errorMessage } from '../errors.js';
import type { CatalogKey, CatalogMembers, EntryStore, MemoryOverlay, NewCatalog, StoreOpenOptions, StoredCatalog } from './entry-store.js';
import { SqliteStore } from './sqlite-store.js';

/**
 * An {@link EntryStore} (by default a {@link SqliteStore}) opened on first use and never throwing:
 * once it fails it answers "nothing stored", with the reason in {@link problem}.
 */
export class SharedStore {
  readonly #open: () => EntryStore;
  #store: EntryStore | undefined;
  #problem: string | undefined;
  /** Opened here from a file, so closed here; a store passed in is its caller's to close. */
  readonly #owned: boolean;
  /** Writes waiting for another process's, and who is told when one begins ({@link waiting}). */
  #waits = 0;
  readonly #onWait = new EventEmitter().setMaxListeners(0);

  /** `source`: the store's file (opened as a {@link SqliteStore}, with `open`), or a store to use as is. */
  constructor(source: string | EntryStore, open: StoreOpenOptions = {}) {
    this.#open = typeof source === 'string' ? () => SqliteStore.open(source, open) : () => source;
    this.#owned = typeof source === 'string';
  }

  /** Why the store is not used (it failed to open or in use); undefined while it works. */
  get problem(): string | undefined {
    return this.#problem;
  }

  vectors(model: string, dimensions: number, keys: readonly string[]): Map<string, Float32Array> {
    if (keys.length === 0) return new Map();
    return this.#guard((store) => store.vectors(model, dimensions, keys), new Map());
  }

  putVectors(model: string, vectors: ReadonlyMap<string, Float32Array>): void {
    if (vectors.size > 0) this.#guard((store) => store.putVectors(model, vectors), undefined);
  }

  labels(model: string, keys: readonly string[]): Map<string, number> {
    if (keys.length === 0) return new Map();
    return this.#guard((store) => store.labels(model, keys), new Map());
  }

  catalog(key: CatalogKey): StoredCatalog | undefined {
    return this.#guard((store) => store.catalog(key), undefined);
  }

  latestGraph(model: string, format: number): { readonly catalog: number; readonly graph: string } | undefined {
    return this.#guard((store) => store.latestGraph(model, format), undefined);
  }

  latestCatalog(model: string, format: number): StoredCatalog | undefined {
    return this.#guard((store) => store.latestCatalog(model, format), undefined);
  }

  /** -1 when the store failed. */
  putCatalog(catalog: NewCatalog): number {
    return this.#guard((store) => store.putCatalog(catalog), -1);
  }

  /** Each read answers "none" once the store failed. */
  members(catalog: number, overlay?: MemoryOverlay): CatalogMembers {
    const members = this.#guard((store) => store.members(catalog, overlay), undefined);
    const read = <T>(run: (m: CatalogMembers) => T, otherwise: T): T => (members === undefined ? otherwise : this.#guard(() => run(members), otherwise));
    return {
      idsNamed: (name) => read((m) => m.idsNamed(name), []),
      idsLabelled: (labels) => read((m) => m.idsLabelled(labels), new Map()),
      membersOf: (ids, dimensions) => read((m) => m.membersOf(ids, dimensions), new Map()),
      all: () => read((m) => m.all(), []),
      ids: () => read((m) => m.ids(), []),
      keys: () => read((m) => m.keys(), []),
      at: (docs) => read((m) => m.at(docs), new Map()),
      holding: (keys) => read((m) => m.holding(keys), new Map()),
      distinctVectors: () => read((m) => m.distinctVectors(), 0),
      labels: () => read((m) => m.labels(), []),
      labelled: (dimensions) => read((m) => m.labelled(dimensions), new Map()),
      overlaid: (dimensions) => read((m) => m.overlaid(dimensions), new Map()),
    };
  }

  /** Throws when the store failed; the searcher's own failures are the caller's. */
  catalogLexical(catalog: number, overlay?: MemoryOverlay): LexicalSearcher {
    const store = this.#guard((opened) => opened, undefined);
    if (store === undefined) throw new SkillSearchError('INTERNAL', `the store cannot be read: ${this.#problem}`);
    return store.catalogLexical(catalog, overlay);
  }

  glosses(scope: string): Map<string, string> {
    return this.#guard((store) => store.glosses(scope), new Map());
  }

  /** Settles once written: a long-lived writer waits for another process's write ({@link whenFree}). */
  putGlosses(scope: string, entries: ReadonlyMap<string, string>): Promise<void> {
    return this.whenFree(() => this.#guard((store) => store.putGlosses(scope, entries), undefined), undefined);
  }

  /** The path of graph file `name` in the store's graph folder; undefined once the store failed (so no graph is read or written anywhere else). */
  graphFile(name: string): string | undefined {
    const dir = this.#guard((store) => store.graphDir, undefined);
    return dir === undefined ? undefined : path.join(dir, name);
  }

  collect(days: number): number {
    return this.#guard((store) => store.collect(days), 0);
  }

  /** `write` (calls of this store's writes) once the store's write lock is free (`EntryStore.whenFree`); `otherwise` once the store failed. */
  async whenFree<T>(write: () => T, otherwise: T, signal?: AbortSignal): Promise<T> {
    const store = this.#guard((opened) => opened, undefined);
    if (store === undefined) return otherwise;
    let waited = false;
    const onWait = () => {
      waited = true;
      this.#waits += 1;
      this.#onWait.emit('wait');
    };
    try {
      return await store.whenFree(write, { signal, onWait });
    } catch (error) {
      this.#problem ??= errorMessage(error);
      this.close();
      return otherwise;
    } finally {
      if (waited) this.#waits -= 1;
    }
  }

  /** Resolves once a write through {@link whenFree} waits for another process's (at once while one does); never once `signal` aborts. */
  waiting(signal: AbortSignal): Promise<void> {
    if (this.#waits > 0) return Promise.resolve();
    // An abort rejects `once` (and stops listening): the wait then never settles.
    return once(this.#onWait, 'wait', { signal }).then(
      () => undefined,
      () => new Promise<void>(() => undefined),
    );
  }

  close(): void {
    const store = this.#store;
    this.#store = undefined;
    if (!this.#owned) return;
    try {
      store?.close();
    } catch {
      // Closing a failed store: nothing left to keep.
    }
  }

  #guard<T>(run: (store: EntryStore) => T, otherwise: T): T {
    if (this.#problem !== undefined) return otherwise;
    try {
      this.#store ??= this.#open();
      return run(this.#store);
    } catch (error) {
      this.#problem = errorMessage(error);
      this.close();
      return otherwise;
    }
  }
}
