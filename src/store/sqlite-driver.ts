/** better-sqlite3, loaded on first use and by the quickest path there is (docs/cold-start.md), and its error codes as the store reads them. */
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';

/** Loaded on first use only: a search whose vectors are all in its index never pays for the addon. */
let driver: typeof BetterSqlite3 | undefined;
/** The addon's path when it is where npm builds it: better-sqlite3 then skips `bindings`' search (2–6 ms of a cold hook). */
let nativeBinding: { readonly nativeBinding?: string } = {};
function sqlite(): typeof BetterSqlite3 {
  if (driver === undefined) {
    const require = createRequire(import.meta.url);
    const root = path.dirname(require.resolve('better-sqlite3/package.json'));
    const built = path.join(root, 'build', 'Release', 'better_sqlite3.node');
    nativeBinding = existsSync(built) ? { nativeBinding: built } : {};
    driver = bundledDriver(root) ?? (require('better-sqlite3') as typeof BetterSqlite3);
  }
  return driver;
}

/**
 * better-sqlite3's JavaScript as the CLI bundle carries it (scripts/bundle-cli.ts, docs/cold-start.md):
 * only with the addon by path and when the installed package is the version bundled (its
 * JavaScript and addon go together). Undefined otherwise, and in ES modules (no `require`).
 */
function bundledDriver(root: string): typeof BetterSqlite3 | undefined {
  if (typeof require !== 'function' || nativeBinding.nativeBinding === undefined) return undefined;
  const bundled = (require('better-sqlite3/package.json') as { version: string }).version;
  const installed = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: unknown }).version;
  return installed === bundled ? (require('better-sqlite3') as typeof BetterSqlite3) : undefined;
}

/** A connection to the database `file`, whose writes wait `timeout` ms for another process's (SQLite's busy timeout). */
export function openDatabase(file: string, timeout: number): BetterSqlite3.Database {
  const Database = sqlite();
  return new Database(file, { timeout, ...nativeBinding });
}

/** The first bytes of `file` (up to SQLite's 100-byte header) when it begins as a SQLite database does; undefined for any other file, or none. */
export function sqliteHeader(file: string): Buffer | undefined {
  const header = Buffer.alloc(100);
  let read: number;
  try {
    const fd = openSync(file, 'r');
    try {
      read = readSync(fd, header, 0, header.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  return header.toString('latin1', 0, 16) === 'SQLite format 3\0' ? header.subarray(0, read) : undefined;
}

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
