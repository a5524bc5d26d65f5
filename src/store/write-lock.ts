/** How the store's writes wait for another process's: a writer's wait for the lock, a reader's marks that never wait. */
import { setTimeout as delay } from 'node:timers/promises';
import type BetterSqlite3 from 'better-sqlite3';
import { STORE_DEFAULTS, type WhenFreeOptions } from './entry-store.js';
import { isBusy, markWithoutWaiting } from './sqlite-codes.js';

/** {@link StoreWriteLock.whenFree}'s first pause between tries for the write lock, and its longest. */
const FIRST_PAUSE_MS = 5;
const MAX_PAUSE_MS = 250;

/** The write lock of one connection to the store, as its writes take it. */
export class StoreWriteLock {
  readonly #db: BetterSqlite3.Database;
  /** An `'async'` writer (`StoreOpenOptions.writer`). */
  readonly #waitsAsync: boolean;

  constructor(db: BetterSqlite3.Database, { waitsAsync }: { readonly waitsAsync: boolean }) {
    this.#db = db;
    this.#waitsAsync = waitsAsync;
  }

  /**
   * Runs `write` (writes on this connection) once the store's write lock is free. An `'async'`
   * writer takes the lock (`BEGIN IMMEDIATE`) without a busy wait, trying again after pauses that
   * double up to {@link MAX_PAUSE_MS} for `STORE_DEFAULTS.writerBusyTimeoutMs` in all (a server
   * answers searches meanwhile); `write` runs inside that transaction. Past the wait, or once
   * `signal` aborts, `write` runs as a reader's would. Other connections run `write` at once.
   */
  async whenFree<T>(write: () => T, { signal, onWait }: WhenFreeOptions = {}): Promise<T> {
    if (!this.#waitsAsync || this.#db.inTransaction) return write();
    const deadline = performance.now() + STORE_DEFAULTS.writerBusyTimeoutMs;
    for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(2 * pause, MAX_PAUSE_MS)) {
      if (this.#begin()) {
        try {
          const result = write();
          this.#db.exec('COMMIT');
          return result;
        } catch (error) {
          if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
          throw error;
        }
      }
      if (performance.now() >= deadline || signal?.aborted === true) return write();
      if (pause === FIRST_PAUSE_MS) onWait?.();
      // An abort ends the pause (the loop then stops waiting).
      await delay(pause, undefined, { signal }).catch(() => undefined);
    }
  }

  /** Takes the write lock without waiting; false when another connection holds it. */
  #begin(): boolean {
    let begun = false;
    markWithoutWaiting(this.#db, () => {
      this.#db.exec('BEGIN IMMEDIATE');
      begun = true;
    });
    return begun;
  }

  /** A `used` mark, skipped at once when another process is writing (a reader answering a prompt never waits for a build); a later read marks it. */
  mark(run: () => void): void {
    markWithoutWaiting(this.#db, () => this.write(run));
  }

  /** A write, skipped when another process holds the store past the busy timeout (it is a cache). */
  write(run: () => void): void {
    try {
      run();
    } catch (error) {
      if (!isBusy(error)) throw error;
    }
  }
}
