/** SQLite's error codes as the store reads them, and writes that never wait for another process. */
import type BetterSqlite3 from 'better-sqlite3';

/** The SQLite error code of `error` (`SQLITE_BUSY`, extended codes included), or '' for another error. */
export function sqliteCode(error: unknown): string {
  const code: unknown = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : '';
}

/** Another connection holds the store. Extended codes too: `SQLITE_BUSY_SNAPSHOT` is a read transaction's write refused because another process wrote since it began. */
export function isBusy(error: unknown): boolean {
  const code = sqliteCode(error);
  return code.startsWith('SQLITE_BUSY') || code === 'SQLITE_LOCKED';
}

/** Runs `mark` (a `used` mark) with no busy wait on `db`: a busy store skips it (`mark` swallows or throws SQLITE_BUSY). */
export function markWithoutWaiting(db: BetterSqlite3.Database, mark: () => void): void {
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    mark();
  } catch (error) {
    if (!isBusy(error)) throw error;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}
