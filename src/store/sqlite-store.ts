import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
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
  type StoredCatalog,
  type WhenFreeOptions,
} from './entry-store.js';
import { CATALOG_SKILLS_SQL, blobOf, fromBlob, overlayBase, putMembers, readMembers, toVector } from './catalog-members.js';
import { TOOLS_FILES_SQL, collectToolsFiles } from './tools-files.js';
import { isBusy, markWithoutWaiting, sqliteCode } from './sqlite-codes.js';
import { addLexicalVocabulary, LEXICAL_TABLES_SQL, putCatalogLexicalStats, putCatalogLexicalStatsFrom, putLexicalEntries } from './lexical-tables.js';
import { openCatalogLexical } from './catalog-lexical.js';

/**
 * The layout `PRAGMA user_version` records; a file of another is emptied and laid out anew
 * ({@link SqliteStore.reset} says so once).
 */
const SCHEMA_VERSION = 7;
/**
 * `vectors.label` is the vector's rowid: it names the vector for as long as it is stored, and
 * never another after it (AUTOINCREMENT: a graph may still hold a collected vector's label,
 * stale), so a graph keyed by labels is shared by every catalog holding those vectors. `catalog_skills` is
 * the membership other tables (the lexical postings) join against.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS vectors (
  label INTEGER PRIMARY KEY AUTOINCREMENT,
  model TEXT NOT NULL,
  key TEXT NOT NULL,
  vector BLOB NOT NULL,
  used INTEGER NOT NULL,
  UNIQUE (model, key)
);
CREATE INDEX IF NOT EXISTS vectors_used ON vectors (used);
CREATE TABLE IF NOT EXISTS catalogs (
  id INTEGER PRIMARY KEY,
  stamp TEXT NOT NULL,
  model TEXT NOT NULL,
  format INTEGER NOT NULL,
  source_stamp TEXT NOT NULL,
  diagnostics TEXT NOT NULL,
  size INTEGER NOT NULL,
  mean BLOB,
  sum BLOB,
  graph TEXT,
  base INTEGER,
  used INTEGER NOT NULL,
  UNIQUE (stamp, model, format)
);
CREATE TABLE IF NOT EXISTS glosses (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (scope, key)
) WITHOUT ROWID;
`;

const DAY_MS = 86_400_000;
/** Today as a day number: what the store's `used` columns hold and `collect` compares. */
export const today = (): number => Math.floor(Date.now() / DAY_MS);
/** A graph file no catalog names is removed once it is this old (a writer may be about to record it). */
const ORPHAN_GRAPH_MS = 60_000;

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
 * better-sqlite3's JavaScript as the CLI bundle carries it (scripts/bundle-cli.ts), compiled
 * with the bundle and under its code cache: requiring the package's files cost a cold hook
 * 8–11 ms (docs/cold-start.md). Only with the addon by path (the bundle leaves out `bindings`)
 * and when the installed package is the version bundled, since its JavaScript and its addon go
 * together. Undefined otherwise, and in tsc's ES modules, which have no `require`.
 */
function bundledDriver(root: string): typeof BetterSqlite3 | undefined {
  if (typeof require !== 'function' || nativeBinding.nativeBinding === undefined) return undefined;
  const bundled = (require('better-sqlite3/package.json') as { version: string }).version;
  const installed = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: unknown }).version;
  return installed === bundled ? (require('better-sqlite3') as typeof BetterSqlite3) : undefined;
}

interface CatalogRowData {
  id: number;
  source_stamp: string;
  diagnostics: string;
  size: number;
  mean: Buffer | null;
  sum: Buffer | null;
  graph: string | null;
  used: number;
  /** The catalog whose members' labels the graph holds (the base, for an overlay naming its graph). */
  graph_holder: number;
}

/** A catalog row with its graph's holder ({@link CatalogRowData}). */
const CATALOG_ROW = 'SELECT c.*, CASE WHEN b.graph = c.graph THEN b.id ELSE c.id END AS graph_holder FROM catalogs c LEFT JOIN catalogs b ON b.id = c.base';

/**
 * The store shared by every project folder and process (docs/store.md): vectors keyed by model
 * and content hash (a skill embedded once, in any folder, by any process, is never embedded
 * again) and saved catalogs with what a cold search reads. A cache: the callers reach it through
 * `SharedStore`, which treats a failure as "not stored" and goes on.
 *
 * One SQLite file under the cache root, in WAL mode: any number of
 * readers (hooks, `query`, MCP) while one process writes, crash safety by SQLite's own journal.
 * Vectors are stored as raw little-endian f32 blobs. The file and its folder are private (0600,
 * 0700); a file SQLite cannot read as a database is moved aside to `<file>.broken` and the store
 * starts empty.
 */
export class SqliteStore implements EntryStore {
  readonly file: string;
  readonly graphDir: string;
  /** Set when the file held another layout and was emptied: the one line to show. */
  readonly reset: string | undefined;
  readonly #db: BetterSqlite3.Database;
  readonly #get: BetterSqlite3.Statement<[string, string], { vector: Buffer; used: number }>;
  readonly #used: BetterSqlite3.Statement<[string, string], { used: number; label: number }>;
  readonly #touch: BetterSqlite3.Statement<[number, string, string, number]>;
  readonly #put: BetterSqlite3.Statement<[string, string, Buffer, number]>;
  /** An `'async'` writer ({@link StoreOpenOptions.writer}): {@link whenFree} waits for the write lock without holding the thread. */
  readonly #waitsAsync: boolean;

  private constructor(file: string, db: BetterSqlite3.Database, reset: string | undefined, waitsAsync: boolean) {
    this.file = file;
    this.#waitsAsync = waitsAsync;
    this.graphDir = path.join(path.dirname(file), STORE_DEFAULTS.graphDir);
    this.reset = reset;
    this.#db = db;
    this.#get = db.prepare('SELECT vector, used FROM vectors WHERE model = ? AND key = ?');
    this.#used = db.prepare('SELECT used, label FROM vectors WHERE model = ? AND key = ?');
    this.#touch = db.prepare('UPDATE vectors SET used = ? WHERE model = ? AND key = ? AND used < ?');
    this.#put = db.prepare('INSERT INTO vectors (model, key, vector, used) VALUES (?, ?, ?, ?) ON CONFLICT (model, key) DO UPDATE SET used = excluded.used');
  }

  /**
   * Opens (creating) the store at `file`; throws when SQLite cannot be loaded or the folder not
   * written. How its writes wait for another process's: {@link StoreOpenOptions.writer}.
   */
  static open(file: string, { writer = false }: StoreOpenOptions = {}): SqliteStore {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const timeout = writer === true ? STORE_DEFAULTS.writerBusyTimeoutMs : STORE_DEFAULTS.busyTimeoutMs;
    const waitsAsync = writer === 'async';
    try {
      return SqliteStore.#open(file, timeout, waitsAsync);
    } catch (error) {
      if (!isNotADatabase(error)) throw error;
      renameSync(file, `${file}.broken`);
      return SqliteStore.#open(file, timeout, waitsAsync);
    }
  }

  static #open(file: string, timeout: number, waitsAsync: boolean): SqliteStore {
    // Created private before SQLite opens it: its -wal and -shm files take the same mode.
    closeSync(openSync(file, 'a', 0o600));
    chmodSync(file, 0o600);
    const db = new (sqlite())(file, { timeout, ...nativeBinding });
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // A catalog's postings go into term-ordered B-trees in skill order: SQLite's default 2 MB
      // page cache would have a large save re-read the same pages over and over.
      db.pragma(`cache_size = -${STORE_DEFAULTS.cacheKiB}`);
      const version = (): number => db.pragma('user_version', { simple: true }) as number;
      let reset: string | undefined;
      // Checked again under the write lock: two processes creating the store at once lay it out once.
      if (version() !== SCHEMA_VERSION)
        db.transaction(() => {
          const found = version();
          if (found === SCHEMA_VERSION) return;
          if (found !== 0) {
            reset = `skill-search: the store ${file} was of an older layout (${found}); it starts empty`;
            const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
            for (const table of tables) db.exec(`DROP TABLE IF EXISTS "${table.replaceAll('"', '""')}"`);
          }
          db.exec(SCHEMA);
          db.exec(CATALOG_SKILLS_SQL);
          db.exec(LEXICAL_TABLES_SQL);
          db.exec(TOOLS_FILES_SQL);
          db.pragma(`user_version = ${SCHEMA_VERSION}`);
        }).immediate();
      // Added to the layout without a new version: a store laid out before it keeps its contents.
      addLexicalVocabulary(db);
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

  /** The vectors stored under `model` for those of `keys` it holds (each `dimensions` long), marked used today. */
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
    this.#markUsed(model, stale, day);
    return found;
  }

  #markUsed(model: string, keys: readonly string[], day: number): void {
    if (keys.length > 0) this.#mark(() => this.#db.transaction(() => keys.forEach((key) => this.#touch.run(day, model, key, day)))());
  }

  /**
   * The label of each of `keys` stored under `model`: an integer that names the vector for as
   * long as it is stored, so a graph keyed by labels serves every catalog holding that vector.
   */
  labels(model: string, keys: readonly string[]): Map<string, number> {
    const labels = new Map<string, number>();
    for (const key of keys) {
      const row = this.#used.get(model, key);
      if (row !== undefined) labels.set(key, row.label);
    }
    return labels;
  }

  /** Stores vectors by content key under `model`; those stored already are kept and marked used today. */
  putVectors(model: string, vectors: ReadonlyMap<string, Float32Array>): void {
    if (vectors.size === 0) return;
    const day = today();
    this.#write(() =>
      this.#db.transaction(() => {
        for (const [key, vector] of vectors) this.#put.run(model, key, blobOf(vector), day);
      })(),
    );
  }

  /** The catalog saved under `key`, marked used today. */
  catalog(key: CatalogKey): StoredCatalog | undefined {
    const row = this.#db
      .prepare<[string, string, number], CatalogRowData>(`${CATALOG_ROW} WHERE c.stamp = ? AND c.model = ? AND c.format = ?`)
      .get(key.stamp, key.model, key.format);
    if (row === undefined) return undefined;
    const day = today();
    if (row.used < day) this.#mark(() => this.#db.prepare('UPDATE catalogs SET used = ? WHERE id = ?').run(day, row.id));
    return catalogOf(row);
  }

  /** The graph of the catalog saved last with one (what a new graph is derived from), with the catalog whose labels it holds. */
  latestGraph(model: string, format: number): { readonly catalog: number; readonly graph: string } | undefined {
    const row = this.#db
      // An overlay naming its base's graph: the graph holds the base's labels.
      .prepare<[string, number], { id: number; graph: string }>(
        'SELECT CASE WHEN b.graph = c.graph THEN b.id ELSE c.id END AS id, c.graph FROM catalogs c LEFT JOIN catalogs b ON b.id = c.base WHERE c.model = ? AND c.format = ? AND c.graph IS NOT NULL ORDER BY c.id DESC LIMIT 1',
      )
      .get(model, format);
    return row === undefined ? undefined : { catalog: row.id, graph: row.graph };
  }

  /** The catalog saved last: what a new live index reports its changes against, and a changed catalog is written from. */
  latestCatalog(model: string, format: number): StoredCatalog | undefined {
    const row = this.#db
      .prepare<[string, number], CatalogRowData>(`${CATALOG_ROW} WHERE c.model = ? AND c.format = ? ORDER BY c.id DESC LIMIT 1`)
      .get(model, format);
    return row === undefined ? undefined : catalogOf(row);
  }

  /** Saves `catalog` (replacing one saved under the same key) in one transaction; returns its id. */
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
        this.#dropCatalog(old.id);
        if (old.graph !== null && old.graph !== catalog.graph) replaced.push(old.graph);
      }
      const overlay = overlayBase(db, catalog);
      if (catalog.graph !== undefined && catalog.base !== undefined && overlay === undefined && this.#graphNamed(catalog.graph))
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
      if (kept === 0) putCatalogLexicalStats(db, id);
      else
        putCatalogLexicalStatsFrom(
          db,
          id,
          catalog.base!,
          catalog.members.map((m) => (typeof m === 'number' ? m : undefined)),
        );
    }).immediate();
    // Readers that hold a replaced graph open keep their mapping (the file goes from the folder only).
    for (const graph of replaced) if (!this.#graphNamed(graph)) rmSync(path.join(this.graphDir, graph), { force: true });
    return id;
  }

  #dropCatalog(id: number): void {
    this.#db.prepare('DELETE FROM catalog_skills WHERE catalog = ?').run(id);
    this.#db.prepare('DELETE FROM lexical_catalogs WHERE catalog = ?').run(id);
    this.#db.prepare('DELETE FROM catalogs WHERE id = ?').run(id);
  }

  /** `overlay`: documents whose lexical entries are held in memory instead (a changed catalog not written yet). */
  catalogLexical(catalog: number, overlay?: MemoryOverlay): LexicalSearcher {
    // An overlay holds the ids of its base at every document: the base names them.
    const base = this.#db.prepare<[number], number | null>('SELECT base FROM catalogs WHERE id = ?').pluck().get(catalog);
    const entries = overlay === undefined ? undefined : new Map([...overlay].map(([doc, held]) => [doc, held.entry]));
    return openCatalogLexical(this.#db, catalog, base ?? catalog, entries);
  }

  #graphNamed(graph: string): boolean {
    return this.#db.prepare('SELECT 1 FROM catalogs WHERE graph = ?').get(graph) !== undefined;
  }

  /** The members of saved catalog `catalog`; with `overlay`, as those documents held in memory make of it. */
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

  /** Removes the entries and catalogs no one used in the last `days` days, and graph files no catalog names; returns how many went. */
  collect(days: number): number {
    let removed = 0;
    const graphs: string[] = [];
    this.#write(() =>
      this.#db
        .transaction(() => {
          const before = today() - days;
          // A catalog an overlay kept reads from stays with it.
          const gone = this.#db
            .prepare<{ before: number }, { id: number; graph: string | null }>(
              'SELECT id, graph FROM catalogs c WHERE used < @before AND NOT EXISTS (SELECT 1 FROM catalogs o WHERE o.base = c.id AND o.used >= @before)',
            )
            .all({ before });
          for (const { id, graph } of gone) {
            this.#dropCatalog(id);
            if (graph !== null) graphs.push(graph);
          }
          removed += gone.length;
          // Lexical entries no catalog holds any more go with their postings.
          const orphans = 'SELECT id FROM lexical_entries WHERE NOT EXISTS (SELECT 1 FROM catalog_skills s WHERE s.lexical_key = lexical_entries.key)';
          this.#db.prepare(`DELETE FROM lexical_postings WHERE entry IN (${orphans})`).run();
          this.#db.prepare(`DELETE FROM lexical_entries WHERE id IN (${orphans})`).run();
          // A vector a kept catalog holds stays, however old: its graph names it.
          removed += this.#db
            .prepare('DELETE FROM vectors WHERE used < ? AND NOT EXISTS (SELECT 1 FROM catalog_skills s WHERE s.vector_key = vectors.key)')
            .run(before).changes;
          removed += collectToolsFiles(this.#db, before);
          // Immediate: a transaction that reads first cannot wait for the write lock when it comes to write.
        })
        .immediate(),
    );
    for (const graph of graphs) if (!this.#graphNamed(graph)) rmSync(path.join(this.graphDir, graph), { force: true });
    this.#collectGraphs();
    return removed;
  }

  /** Removes the graph files no catalog names (replaced ones, those a killed writer left). */
  #collectGraphs(): void {
    let files: string[];
    try {
      files = readdirSync(this.graphDir);
    } catch {
      return;
    }
    const named = new Set(this.#db.prepare<[], string>('SELECT graph FROM catalogs WHERE graph IS NOT NULL').pluck().all());
    for (const file of files) {
      const full = path.join(this.graphDir, file);
      if (named.has(file)) continue;
      try {
        if (Date.now() - statSync(full).mtimeMs > ORPHAN_GRAPH_MS) rmSync(full, { force: true });
      } catch {
        // Gone meanwhile.
      }
    }
  }

  close(): void {
    this.#db.close();
  }

  /**
   * Runs `write` (writes on this connection) once the store's write lock is free. An `'async'`
   * writer ({@link StoreOpenOptions.writer}) takes the lock (`BEGIN IMMEDIATE`) without a busy
   * wait, and while another process holds it tries again after pauses that double up to
   * {@link MAX_PAUSE_MS}, for `STORE_DEFAULTS.writerBusyTimeoutMs` in all: the event loop runs
   * meanwhile, so a server answers searches while its save waits. `write` then runs inside that
   * transaction (its own transactions become savepoints) and it commits. Past the wait, or once
   * `signal` aborts, `write` runs as a reader's would (a short busy wait, a cache write skipped).
   * Other connections run `write` at once, waiting as they were opened to. `onWait` is called
   * once when the lock is first found held.
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

  /**
   * A `used` mark, skipped at once when another process is writing (a build's transaction can
   * hold the store for seconds: a reader answering a prompt never waits for it); a later read marks it.
   */
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

export { markWithoutWaiting } from './sqlite-codes.js';

export interface StoreOpenOptions {
  /**
   * The connection of a catalog's writer, whose writes wait long for another process's
   * (docs/store.md, "Concurrency"). `true` (a one-shot `index`): SQLite's busy timeout is
   * `STORE_DEFAULTS.writerBusyTimeoutMs`, which holds the thread. `'async'` (a long-lived process:
   * `watch`, the MCP server, a library `LiveIndex`): a reader's busy timeout, and writes made
   * through {@link SqliteStore.whenFree} wait as long for the write lock without holding the
   * thread. False: a reader's (`busyTimeoutMs`). @default false
   */
  readonly writer?: boolean | 'async';
}

/** {@link SqliteStore.whenFree}'s first pause between tries for the write lock, and its longest. */
const FIRST_PAUSE_MS = 5;
const MAX_PAUSE_MS = 250;

function catalogOf(row: CatalogRowData): StoredCatalog {
  return {
    id: row.id,
    sourceStamp: row.source_stamp,
    diagnostics: row.diagnostics,
    size: row.size,
    mean: row.mean === null ? undefined : toVector(row.mean),
    sum: row.sum === null || row.sum.byteLength % 8 !== 0 ? undefined : fromBlob(row.sum, Float64Array),
    graph: row.graph ?? undefined,
    graphHolder: row.graph_holder,
  };
}

function isNotADatabase(error: unknown): boolean {
  const code = sqliteCode(error);
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT';
}
