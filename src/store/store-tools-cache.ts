import type BetterSqlite3 from 'better-sqlite3';
import type { ReadLines, StoredLines, ToolsCache, ToolsFileStat } from '../load/tools-cache.js';
import { markWithoutWaiting } from './sqlite-driver.js';
import { SqliteStore } from './sqlite-store.js';
import { today } from './store-collection.js';

/** A row's stat columns, named as {@link ToolsFileStat}'s fields. */
const STAT = 'size, mtime_ms AS mtimeMs, ctime_ms AS ctimeMs, ino';

export interface StoreToolsCacheOptions {
  /**
   * Hold every write until {@link StoreToolsCache.close}, or forget them ({@link StoreToolsCache.drop}), and make no later write
   * (`writeSkillsLater`: a scan memo is its writer's): a cold search that may hand its catalog's write on. @default false
   */
  readonly deferred?: boolean;
}

interface HeldSkills {
  readonly stat: ToolsFileStat;
  readonly encode: () => Buffer;
}

/**
 * The {@link ToolsCache} of the store at `file` (`store-layout.ts`), through one handle opened at
 * the first call and kept until {@link close}; any failure is a miss or a skipped write. A
 * reload's skills (`writeSkillsLater`, megabytes at 24k) are held, latest per key, and written
 * by the next read of the key or by `close`.
 */
export class StoreToolsCache implements ToolsCache {
  readonly #file: string;
  #store: SqliteStore | undefined;
  readonly #held = new Map<string, HeldSkills>();
  /** With `deferred`: the writes asked for so far, in order, made at close unless dropped. */
  #deferred: (() => void)[] | undefined;
  #closed = false;

  constructor(file: string, { deferred = false }: StoreToolsCacheOptions = {}) {
    this.#file = file;
    if (deferred) this.#deferred = [];
  }

  /** Skills held for a later write, by key (what {@link flush} would write). */
  get held(): number {
    return this.#held.size;
  }

  readSkills(key: string, stat: ToolsFileStat): Buffer | undefined {
    // What this process loaded last is newer than what the store holds.
    this.#writeHeld(key);
    return this.#with((db) => {
      const row = db
        .prepare<[string, number, number, number, number], { skills: Buffer; used: number }>(
          'SELECT skills, used FROM tools_skills WHERE key = ? AND size = ? AND mtime_ms = ? AND ctime_ms = ? AND ino = ?',
        )
        .get(key, stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino);
      if (row !== undefined && row.used < today()) markWithoutWaiting(db, () => db.prepare('UPDATE tools_skills SET used = ? WHERE key = ?').run(today(), key));
      return row?.skills;
    });
  }

  writeSkills(key: string, stat: ToolsFileStat, skills: Buffer): void {
    this.#held.delete(key);
    if (this.#defer(() => this.writeSkills(key, stat, skills))) return;
    this.#with((db) =>
      db
        .prepare('INSERT OR REPLACE INTO tools_skills (key, size, mtime_ms, ctime_ms, ino, skills, used) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(key, stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino, skills, today()),
    );
  }

  writeSkillsLater(key: string, stat: ToolsFileStat, encode: () => Buffer): void {
    if (this.#deferred !== undefined) return;
    this.#held.set(key, { stat, encode });
    if (this.#closed) this.#writeHeld(key);
  }

  /** Writes the skills held now. */
  flush(): void {
    for (const key of [...this.#held.keys()]) this.#writeHeld(key);
  }

  /** Forgets the writes a `deferred` cache holds so far (the catalog's writer keeps the tools file's load itself). */
  drop(): void {
    if (this.#deferred !== undefined) this.#deferred = [];
  }

  /** The text (the row's last column, megabytes through its overflow pages) is read when asked, from the row as it was read: else undefined. */
  readLines(key: string): ReadLines | undefined {
    return this.#with((db) => {
      const row = db
        .prepare<[string], ToolsFileStat & Omit<StoredLines, 'stat' | 'text'> & { used: number }>(
          `SELECT ${STAT}, starts, outcomes, used FROM tools_lines WHERE key = ?`,
        )
        .get(key);
      if (row === undefined) return undefined;
      if (row.used < today()) markWithoutWaiting(db, () => db.prepare('UPDATE tools_lines SET used = ? WHERE key = ?').run(today(), key));
      const { size, mtimeMs, ctimeMs, ino, starts, outcomes } = row;
      const text = () =>
        this.#with((again) =>
          again
            .prepare<[string, number, number, number, number, string], Buffer>(
              'SELECT text FROM tools_lines WHERE key = ? AND size = ? AND mtime_ms = ? AND ctime_ms = ? AND ino = ? AND outcomes = ?',
            )
            .pluck()
            .get(key, size, mtimeMs, ctimeMs, ino, outcomes),
        );
      return { stat: { size, mtimeMs, ctimeMs, ino }, text, starts, outcomes };
    });
  }

  writeLines(key: string, lines: StoredLines): void {
    if (this.#defer(() => this.writeLines(key, lines))) return;
    const { stat } = lines;
    this.#with((db) =>
      db
        .prepare('INSERT OR REPLACE INTO tools_lines (key, size, mtime_ms, ctime_ms, ino, text, starts, outcomes, used) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(key, stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino, lines.text, lines.starts, lines.outcomes, today()),
    );
  }

  tablesOfSize(size: number, slack = 0): { readonly key: string; readonly stat: ToolsFileStat }[] {
    const rows = this.#with((db) =>
      db
        .prepare<[number, number, number], ToolsFileStat & { key: string }>(
          `SELECT key, ${STAT} FROM tools_lines WHERE size BETWEEN ? AND ? ORDER BY used DESC, abs(size - ?)`,
        )
        .all(size - slack, size + slack, size),
    );
    return (rows ?? []).map(({ key, ...stat }) => ({ key, stat }));
  }

  holdsText(key: string, text: Buffer): boolean {
    // Compared by SQLite: the blob (10 MB for 24k lines) is not copied out.
    return this.#with((db) => db.prepare<[string, Buffer]>('SELECT 1 FROM tools_lines WHERE key = ? AND text = ?').get(key, text) !== undefined) ?? false;
  }

  /** Idempotent: writes what is held and deferred, and closes the store's handle. A later call opens it again, and writes at once. */
  close(): void {
    const deferred = this.#deferred ?? [];
    this.#deferred = undefined;
    for (const write of deferred) write();
    this.flush();
    this.#closed = true;
    const store = this.#store;
    this.#store = undefined;
    try {
      store?.close();
    } catch {
      // Nothing left to keep.
    }
  }

  #writeHeld(key: string): void {
    const held = this.#held.get(key);
    if (held === undefined) return;
    let skills: Buffer;
    try {
      skills = held.encode();
    } catch {
      this.#held.delete(key);
      return;
    }
    this.writeSkills(key, held.stat, skills);
  }

  /** True when `write` is held for later (a `deferred` cache). */
  #defer(write: () => void): boolean {
    this.#deferred?.push(write);
    return this.#deferred !== undefined;
  }

  #with<T>(run: (db: BetterSqlite3.Database) => T): T | undefined {
    try {
      this.#store ??= SqliteStore.open(this.#file);
      return run(this.#store.database);
    } catch {
      // A cache: the next process parses the file again.
      return undefined;
    }
  }
}
