import { chmodSync, closeSync, mkdirSync, openSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { STORE_DEFAULTS, type EntryStore, type ServedCatalog } from './entry-store.js';

/**
 * The layout `PRAGMA user_version` records; a file of another is emptied and laid out anew,
 * except layout 1 (vectors only), to which the `catalogs` table is added.
 */
const SCHEMA_VERSION = 2;
const SCHEMA = `
CREATE TABLE IF NOT EXISTS vectors (
  model TEXT NOT NULL,
  key TEXT NOT NULL,
  vector BLOB NOT NULL,
  used INTEGER NOT NULL,
  PRIMARY KEY (model, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS vectors_used ON vectors (used);
CREATE TABLE IF NOT EXISTS catalogs (
  key TEXT PRIMARY KEY,
  index_dir TEXT NOT NULL,
  source_stamp TEXT NOT NULL,
  used INTEGER NOT NULL
) WITHOUT ROWID;
`;

const DAY_MS = 86_400_000;
const today = (): number => Math.floor(Date.now() / DAY_MS);

/** Loaded on first use only: a search whose vectors are all in its index never pays for the addon. */
let driver: typeof BetterSqlite3 | undefined;
function sqlite(): typeof BetterSqlite3 {
  driver ??= createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  return driver;
}

/**
 * The {@link EntryStore} in one SQLite file under the cache root, in WAL mode: any number of
 * readers (hooks, `query`, MCP) while one process writes, crash safety by SQLite's own journal.
 * Vectors are stored as raw little-endian f32 blobs. The file and its folder are private (0600,
 * 0700); a file SQLite cannot read as a database is moved aside to `<file>.broken` and the store
 * starts empty.
 */
export class SqliteStore implements EntryStore {
  readonly file: string;
  readonly #db: BetterSqlite3.Database;
  readonly #get: BetterSqlite3.Statement<[string, string], { vector: Buffer; used: number }>;
  readonly #used: BetterSqlite3.Statement<[string, string], { used: number }>;
  readonly #touch: BetterSqlite3.Statement<[number, string, string, number]>;
  readonly #put: BetterSqlite3.Statement<[string, string, Buffer, number]>;
  readonly #served: BetterSqlite3.Statement<[string], { index_dir: string; source_stamp: string; used: number }>;
  readonly #putServed: BetterSqlite3.Statement<[string, string, string, number]>;

  private constructor(file: string, db: BetterSqlite3.Database) {
    this.file = file;
    this.#db = db;
    this.#get = db.prepare('SELECT vector, used FROM vectors WHERE model = ? AND key = ?');
    this.#used = db.prepare('SELECT used FROM vectors WHERE model = ? AND key = ?');
    this.#touch = db.prepare('UPDATE vectors SET used = ? WHERE model = ? AND key = ? AND used < ?');
    this.#put = db.prepare('INSERT INTO vectors (model, key, vector, used) VALUES (?, ?, ?, ?) ON CONFLICT (model, key) DO UPDATE SET used = excluded.used');
    this.#served = db.prepare('SELECT index_dir, source_stamp, used FROM catalogs WHERE key = ?');
    this.#putServed = db.prepare('INSERT OR REPLACE INTO catalogs (key, index_dir, source_stamp, used) VALUES (?, ?, ?, ?)');
  }

  /** Opens (creating) the store at `file`; throws when SQLite cannot be loaded or the folder not written. */
  static open(file: string): SqliteStore {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      return SqliteStore.#open(file);
    } catch (error) {
      if (!isNotADatabase(error)) throw error;
      renameSync(file, `${file}.broken`);
      return SqliteStore.#open(file);
    }
  }

  static #open(file: string): SqliteStore {
    // Created private before SQLite opens it: its -wal and -shm files take the same mode.
    closeSync(openSync(file, 'a', 0o600));
    chmodSync(file, 0o600);
    const db = new (sqlite())(file, { timeout: STORE_DEFAULTS.busyTimeoutMs });
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      const current = (): boolean => db.pragma('user_version', { simple: true }) === SCHEMA_VERSION;
      // Checked again under the write lock: two processes creating the store at once lay it out once.
      if (!current())
        db.transaction(() => {
          if (current()) return;
          if (db.pragma('user_version', { simple: true }) !== 1) db.exec('DROP TABLE IF EXISTS vectors; DROP TABLE IF EXISTS catalogs');
          db.exec(SCHEMA);
          db.pragma(`user_version = ${SCHEMA_VERSION}`);
        }).immediate();
      return new SqliteStore(file, db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  vectors(model: string, dimensions: number, keys: readonly string[]): Map<string, Float32Array> {
    const found = new Map<string, Float32Array>();
    const stale: string[] = [];
    const day = today();
    for (const key of keys) {
      const row = this.#get.get(model, key);
      if (row === undefined || row.vector.byteLength !== 4 * dimensions) continue;
      const vector = new Float32Array(dimensions);
      new Uint8Array(vector.buffer).set(row.vector);
      found.set(key, vector);
      if (row.used < day) stale.push(key);
    }
    this.#markUsed(model, stale, day);
    return found;
  }

  #markUsed(model: string, keys: readonly string[], day: number): void {
    if (keys.length > 0) this.#write(() => this.#db.transaction(() => keys.forEach((key) => this.#touch.run(day, model, key, day)))());
  }

  missing(model: string, keys: readonly string[]): string[] {
    const missing: string[] = [];
    const stale: string[] = [];
    const day = today();
    for (const key of keys) {
      const row = this.#used.get(model, key);
      if (row === undefined) missing.push(key);
      else if (row.used < day) stale.push(key);
    }
    this.#markUsed(model, stale, day);
    return missing;
  }

  putVectors(model: string, vectors: ReadonlyMap<string, Float32Array>): void {
    if (vectors.size === 0) return;
    const day = today();
    this.#write(() =>
      this.#db.transaction(() => {
        for (const [key, vector] of vectors) this.#put.run(model, key, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength), day);
      })(),
    );
  }

  servedCatalog(key: string): ServedCatalog | undefined {
    const row = this.#served.get(key);
    if (row === undefined) return undefined;
    const day = today();
    if (row.used < day) this.#write(() => this.#db.prepare('UPDATE catalogs SET used = ? WHERE key = ?').run(day, key));
    return { indexDir: row.index_dir, sourceStamp: row.source_stamp };
  }

  putServedCatalog(key: string, served: ServedCatalog): void {
    this.#write(() => this.#putServed.run(key, served.indexDir, served.sourceStamp, today()));
  }

  collect(days: number): number {
    let removed = 0;
    this.#write(() => {
      const before = today() - days;
      removed = this.#db.prepare('DELETE FROM vectors WHERE used < ?').run(before).changes;
      removed += this.#db.prepare('DELETE FROM catalogs WHERE used < ?').run(before).changes;
    });
    return removed;
  }

  close(): void {
    this.#db.close();
  }

  /** A write, skipped when another process holds the store past the busy timeout (it is a cache). */
  #write(run: () => void): void {
    try {
      run();
    } catch (error) {
      if (!isBusy(error)) throw error;
    }
  }
}

function sqliteCode(error: unknown): string | undefined {
  const code: unknown = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

function isBusy(error: unknown): boolean {
  const code = sqliteCode(error);
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

function isNotADatabase(error: unknown): boolean {
  const code = sqliteCode(error);
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT';
}
