import { chmodSync, closeSync, mkdirSync, openSync, renameSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type BetterSqlite3 from 'better-sqlite3';
import { SkillSearchError } from '../errors.js';
import type { LexicalSearcher } from '../lexical/lexical-index.js';
import {
  STORE_DEFAULTS,
  type CatalogKey,
  type CatalogMembers,
  type EntryStore,
  type MemoryOverlay,
  type NewCatalog,
  type StoreOpenOptions,
  type StoredCatalog,
  type WhenFreeOptions,
} from './entry-store.js';
import { blobOf, fromBlob, overlayBase, putMembers, readMembers, toVector } from './catalog-members.js';
import { putCatalogLexicalStats, putLexicalEntries } from './lexical-tables.js';
import { openCatalogLexical } from './catalog-lexical.js';
import { isBusy, markWithoutWaiting, openDatabase, sqliteCode, sqliteHeader } from './sqlite-driver.js';
import { layOut, refuseNewerLayout } from './store-layout.js';
import { collectGraphs, collectUnused, dropCatalog, graphNamed, removeUnnamedGraphs, today } from './store-collection.js';

/** A catalog's row as {@link catalogOf} reads it: `graphHolder` is the catalog whose members' labels the graph holds (the base, for an overlay naming its graph). */
type CatalogRow = Pick<StoredCatalog, 'id' | 'sourceStamp' | 'diagnostics' | 'size'> & {
  mean: Buffer | null;
  sum: Buffer | null;
  graph: string | null;
  used: number;
  graphHolder: number;
};

/** {@link SqliteStore.whenFree}'s first pause between tries for the write lock, and its longest. */
const FIRST_PAUSE_MS = 5;
const MAX_PAUSE_MS = 250;

/** A {@link CatalogRow}. */
const CATALOG_ROW =
  'SELECT c.id, c.source_stamp AS sourceStamp, c.diagnostics, c.size, c.mean, c.sum, c.graph, c.used, CASE WHEN b.graph = c.graph THEN b.id ELSE c.id END AS graphHolder FROM catalogs c LEFT JOIN catalogs b ON b.id = c.base';

/**
 * The {@link EntryStore} as one SQLite file under the cache root (docs/store.md), in WAL mode:
 * any number of readers while one process writes, crash safety by SQLite's journal. The file and
 * its folder are private (0600, 0700); a SQLite file SQLite cannot read as a database (a damaged
 * store) is moved aside to `<file>.broken` and the store starts empty; any other file is refused, left as it is.
 */
export class SqliteStore implements EntryStore {
  readonly file: string;
  readonly graphDir: string;
  /** Set when the file held another layout and was emptied: the one line to show. */
  readonly reset: string | undefined;
  readonly #db: BetterSqlite3.Database;
  readonly #get: BetterSqlite3.Statement<[string, string], { vector: Buffer; used: number }>;
  readonly #label: BetterSqlite3.Statement<[string, string], number>;
  readonly #touch: BetterSqlite3.Statement<[number, string, string, number]>;
  readonly #put: BetterSqlite3.Statement<[string, string, Buffer, number]>;
  /** An `'async'` writer ({@link StoreOpenOptions.writer}). */
  readonly #waitsAsync: boolean;

  private constructor(file: string, db: BetterSqlite3.Database, reset: string | undefined, waitsAsync: boolean) {
    this.file = file;
    this.#waitsAsync = waitsAsync;
    this.graphDir = path.join(path.dirname(file), STORE_DEFAULTS.graphDir);
    this.reset = reset;
    this.#db = db;
    this.#get = db.prepare('SELECT vector, used FROM vectors WHERE model = ? AND key = ?');
    this.#label = db.prepare<[string, string], number>('SELECT label FROM vectors WHERE model = ? AND key = ?').pluck();
    this.#touch = db.prepare('UPDATE vectors SET used = ? WHERE model = ? AND key = ? AND used < ?');
    this.#put = db.prepare('INSERT INTO vectors (model, key, vector, used) VALUES (?, ?, ?, ?) ON CONFLICT (model, key) DO UPDATE SET used = excluded.used');
  }

  /** Opens (creating) the store at `file`; throws when SQLite cannot be loaded or the folder not written. */
  static open(file: string, { writer = false }: StoreOpenOptions = {}): SqliteStore {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const timeout = writer === true ? STORE_DEFAULTS.writerBusyTimeoutMs : STORE_DEFAULTS.busyTimeoutMs;
    const waitsAsync = writer === 'async';
    try {
      return SqliteStore.#open(file, timeout, waitsAsync);
    } catch (error) {
      if (!isNotADatabase(error)) throw error;
      // A damaged store is ours to set aside; any other file (a `store` option pointed at the wrong path) is not.
      if (sqliteHeader(file) === undefined)
        throw new SkillSearchError('BAD_FILE', `${file} is not a skill-search store (not a SQLite file): left as it is; move it away or name another file`);
      renameSync(file, `${file}.broken`);
      return SqliteStore.#open(file, timeout, waitsAsync);
    }
  }

  static #open(file: string, timeout: number, waitsAsync: boolean): SqliteStore {
    // Created private before SQLite opens it: its -wal and -shm files take the same mode.
    closeSync(openSync(file, 'a', 0o600));
    chmodSync(file, 0o600);
    const db = openDatabase(file, timeout);
    try {
      // Before the journal mode, which writes the file.
      refuseNewerLayout(db);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // A catalog's postings go into term-ordered B-trees in skill order: a 2 MB page cache would re-read pages over and over.
      db.pragma(`cache_size = -${STORE_DEFAULTS.cacheKiB}`);
      const reset = layOut(db, file);
      return new SqliteStore(file, db, reset, waitsAsync);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** The database, for the tables other modules own (the lexical postings). */
  get database(): BetterSqlite3.Database {
    return this.#db;
  }

  vectors(model: string, dimensions: number, keys: readonly string[]): Map<string, Float32Array> {
    const found = new Map<string, Float32Array>();
    const stale: string[] = [];
    const day = today();
    for (const key of keys) {
      const row = this.#get.get(model, key);
      if (row === undefined || row.vector.byteLength !== 4 * dimensions) continue;
      found.set(key, toVector(row.vector));
      if (row.used < day) stale.push(key);
    }
    if (stale.length > 0) this.#mark(() => this.#db.transaction(() => stale.forEach((key) => this.#touch.run(day, model, key, day)))());
    return found;
  }

  /** How many vectors are held under model keys that start with `modelPrefix` (`<embedder id>#`: every text version of one embedder). */
  vectorCount(modelPrefix: string): number {
    const count = this.#db.prepare<[number, string], number>('SELECT COUNT(*) FROM vectors WHERE substr(model, 1, ?) = ?').pluck();
    return count.get(modelPrefix.length, modelPrefix) ?? 0;
  }

  labels(model: string, keys: readonly string[]): Map<string, number> {
    const labels = new Map<string, number>();
    for (const key of keys) {
      const label = this.#label.get(model, key);
      if (label !== undefined) labels.set(key, label);
    }
    return labels;
  }

  putVectors(model: string, vectors: ReadonlyMap<string, Float32Array>): void {
    if (vectors.size === 0) return;
    const day = today();
    this.#write(() =>
      this.#db.transaction(() => {
        for (const [key, vector] of vectors) this.#put.run(model, key, blobOf(vector), day);
      })(),
    );
  }

  catalog(key: CatalogKey): StoredCatalog | undefined {
    const row = this.#db
      .prepare<[string, string, number], CatalogRow>(`${CATALOG_ROW} WHERE c.stamp = ? AND c.model = ? AND c.format = ?`)
      .get(key.stamp, key.model, key.format);
    if (row === undefined) return undefined;
    const day = today();
    if (row.used < day) this.#mark(() => this.#db.prepare('UPDATE catalogs SET used = ? WHERE id = ?').run(day, row.id));
    return catalogOf(row);
  }

  latestGraph(model: string, format: number): { readonly catalog: number; readonly graph: string } | undefined {
    const row = this.#latest(model, format, 'AND c.graph IS NOT NULL');
    return row?.graph == null ? undefined : { catalog: row.graphHolder, graph: row.graph };
  }

  latestCatalog(model: string, format: number): StoredCatalog | undefined {
    const row = this.#latest(model, format);
    return row === undefined ? undefined : catalogOf(row);
  }

  #latest(model: string, format: number, where = ''): CatalogRow | undefined {
    return this.#db
      .prepare<[string, number], CatalogRow>(`${CATALOG_ROW} WHERE c.model = ? AND c.format = ? ${where} ORDER BY c.id DESC LIMIT 1`)
      .get(model, format);
  }

  putCatalog(catalog: NewCatalog): number {
    const db = this.#db;
    let id = 0;
    const replaced: string[] = [];
    db.transaction(() => {
      const old = db
        .prepare<[string, string, number], { id: number; graph: string | null }>('SELECT id, graph FROM catalogs WHERE stamp = ? AND model = ? AND format = ?')
        .get(catalog.stamp, catalog.model, catalog.format);
      if (old !== undefined) {
        // Overlays read its members: the catalog saved under this key (the same skills) stays.
        if (db.prepare('SELECT 1 FROM catalogs WHERE base = ?').get(old.id) !== undefined) {
          id = old.id;
          return;
        }
        dropCatalog(db, old.id);
        if (old.graph !== null && old.graph !== catalog.graph) replaced.push(old.graph);
      }
      const overlay = overlayBase(db, catalog);
      if (catalog.graph !== undefined && catalog.base !== undefined && overlay === undefined && graphNamed(db, catalog.graph))
        throw new SkillSearchError('INTERNAL', `catalog ${catalog.stamp}: only an overlay may name its base's graph ${catalog.graph}`);
      id = Number(
        db
          .prepare(
            'INSERT INTO catalogs (stamp, model, format, source_stamp, diagnostics, size, mean, sum, graph, base, used) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          )
          .run(
            catalog.stamp,
            catalog.model,
            catalog.format,
            catalog.sourceStamp,
            catalog.diagnostics,
            catalog.members.length,
            catalog.mean === undefined ? null : blobOf(catalog.mean),
            catalog.sum === undefined ? null : blobOf(catalog.sum),
            catalog.graph ?? null,
            overlay ?? null,
            today(),
          ).lastInsertRowid,
      );
      const kept = putMembers(db, id, catalog, overlay);
      // Only the entries not stored yet are made (tokenised) and written.
      const known = db.prepare<[string], number>('SELECT 1 FROM lexical_entries WHERE key = ?').pluck();
      putLexicalEntries(
        db,
        (function* () {
          for (const [doc, m] of catalog.members.entries()) if (typeof m !== 'number' && known.get(m.lexicalKey) === undefined) yield catalog.lexicalEntry(doc);
        })(),
      );
      putCatalogLexicalStats(
        db,
        id,
        kept === 0 ? undefined : { base: catalog.base!, from: catalog.members.map((m) => (typeof m === 'number' ? m : undefined)) },
      );
    }).immediate();
    removeUnnamedGraphs(db, this.graphDir, replaced);
    return id;
  }

  catalogLexical(catalog: number, overlay?: MemoryOverlay): LexicalSearcher {
    // An overlay holds the ids of its base at every document: the base names them.
    const base = this.#db.prepare<[number], number | null>('SELECT base FROM catalogs WHERE id = ?').pluck().get(catalog);
    const entries = overlay === undefined ? undefined : new Map([...overlay].map(([doc, held]) => [doc, held.entry]));
    return openCatalogLexical(this.#db, catalog, base ?? catalog, entries);
  }

  members(catalog: number, overlay?: MemoryOverlay): CatalogMembers {
    return readMembers(this.#db, catalog, overlay);
  }

  glosses(scope: string): Map<string, string> {
    const rows = this.#db.prepare<[string], { key: string; value: string }>('SELECT key, value FROM glosses WHERE scope = ?').all(scope);
    return new Map(rows.map((row) => [row.key, row.value]));
  }

  putGlosses(scope: string, entries: ReadonlyMap<string, string>): void {
    this.#write(() =>
      this.#db.transaction(() => {
        this.#db.prepare('DELETE FROM glosses WHERE scope = ?').run(scope);
        const put = this.#db.prepare('INSERT INTO glosses (scope, key, value) VALUES (?, ?, ?)');
        for (const [key, value] of entries) put.run(scope, key, value);
      })(),
    );
  }

  collect(days: number): number {
    let collected: ReturnType<typeof collectUnused> = { removed: 0, graphs: [] };
    this.#write(() => {
      collected = collectUnused(this.#db, days);
    });
    removeUnnamedGraphs(this.#db, this.graphDir, collected.graphs);
    collectGraphs(this.#db, this.graphDir);
    return collected.removed;
  }

  close(): void {
    this.#db.close();
  }

  /**
   * Runs `write` once the write lock is free: an `'async'` writer takes it (`BEGIN IMMEDIATE`) without a busy wait, trying
   * again after pauses doubling up to {@link MAX_PAUSE_MS} for `STORE_DEFAULTS.writerBusyTimeoutMs` (docs/store.md,
   * "Concurrency"), and runs `write` in that transaction; past the wait or an abort, and in other stores, `write` runs at once.
   */
  async whenFree<T>(write: () => T, { signal, onWait }: WhenFreeOptions = {}): Promise<T> {
    const db = this.#db;
    if (!this.#waitsAsync || db.inTransaction) return write();
    const deadline = performance.now() + STORE_DEFAULTS.writerBusyTimeoutMs;
    for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(2 * pause, MAX_PAUSE_MS)) {
      let begun = false;
      markWithoutWaiting(db, () => {
        db.exec('BEGIN IMMEDIATE');
        begun = true;
      });
      if (begun) {
        try {
          const result = write();
          db.exec('COMMIT');
          return result;
        } catch (error) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw error;
        }
      }
      if (performance.now() >= deadline || signal?.aborted === true) return write();
      if (pause === FIRST_PAUSE_MS) onWait?.();
      // An abort ends the pause (the loop then stops waiting).
      await delay(pause, undefined, { signal }).catch(() => undefined);
    }
  }

  /** A `used` mark, skipped at once when another process is writing (a reader answering a prompt never waits for a build); a later read marks it. */
  #mark(run: () => void): void {
    markWithoutWaiting(this.#db, () => this.#write(run));
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

function catalogOf({ id, sourceStamp, diagnostics, size, mean, sum, graph, graphHolder }: CatalogRow): StoredCatalog {
  return {
    id,
    sourceStamp,
    diagnostics,
    size,
    mean: mean === null ? undefined : toVector(mean),
    sum: sum === null || sum.byteLength % 8 !== 0 ? undefined : fromBlob(sum, Float64Array),
    graph: graph ?? undefined,
    graphHolder,
  };
}

function isNotADatabase(error: unknown): boolean {
  const code = sqliteCode(error);
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT';
}
