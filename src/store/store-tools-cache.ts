import type BetterSqlite3 from 'better-sqlite3';
import type { StoredLines, ToolsCache, ToolsFileStat } from '../load/tools-cache.js';
import { markWithoutWaiting, SqliteStore, today } from './sqlite-store.js';

interface LinesRow {
  size: number;
  mtime_ms: number;
  ctime_ms: number;
  ino: number;
  text: Buffer;
  starts: Buffer;
  outcomes: string;
  used: number;
}

/**
 * The {@link ToolsCache} of the store at `file` (its `tools_skills` and `tools_lines` tables, `tools-files.ts`): each call opens the store, does its one read or
 * write and closes it (a process calls it a few times: no handle to own), and any failure (no
 * SQLite addon, a busy or read-only store) is a miss or a skipped write.
 */
export class StoreToolsCache implements ToolsCache {
  readonly #file: string;

  constructor(file: string) {
    this.#file = file;
  }

  readSkills(key: string, stat: ToolsFileStat): Buffer | undefined {
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
    this.#with((db) =>
      db
        .prepare('INSERT OR REPLACE INTO tools_skills (key, size, mtime_ms, ctime_ms, ino, skills, used) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(key, stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino, skills, today()),
    );
  }

  readLines(key: string): StoredLines | undefined {
    return this.#with((db) => {
      const row = db.prepare<[string], LinesRow>('SELECT * FROM tools_lines WHERE key = ?').get(key);
      if (row === undefined) return undefined;
      if (row.used < today()) markWithoutWaiting(db, () => db.prepare('UPDATE tools_lines SET used = ? WHERE key = ?').run(today(), key));
      return {
        stat: { size: row.size, mtimeMs: row.mtime_ms, ctimeMs: row.ctime_ms, ino: row.ino },
        text: row.text,
        starts: row.starts,
        outcomes: row.outcomes,
      };
    });
  }

  writeLines(key: string, lines: StoredLines): void {
    const { stat } = lines;
    this.#with((db) =>
      db
        .prepare('INSERT OR REPLACE INTO tools_lines (key, size, mtime_ms, ctime_ms, ino, text, starts, outcomes, used) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(key, stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino, lines.text, lines.starts, lines.outcomes, today()),
    );
  }

  tablesOfSize(size: number): { readonly key: string; readonly stat: ToolsFileStat }[] {
    const rows = this.#with((db) =>
      db
        .prepare<[number], { key: string; size: number; mtime_ms: number; ctime_ms: number; ino: number }>(
          'SELECT key, size, mtime_ms, ctime_ms, ino FROM tools_lines WHERE size = ? ORDER BY used DESC',
        )
        .all(size),
    );
    return (rows ?? []).map((row) => ({ key: row.key, stat: { size: row.size, mtimeMs: row.mtime_ms, ctimeMs: row.ctime_ms, ino: row.ino } }));
  }

  holdsText(key: string, text: Buffer): boolean {
    // Compared by SQLite: the blob (10 MB for 24k lines) is not copied out.
    return this.#with((db) => db.prepare<[string, Buffer]>('SELECT 1 FROM tools_lines WHERE key = ? AND text = ?').get(key, text) !== undefined) ?? false;
  }

  #with<T>(run: (db: BetterSqlite3.Database) => T): T | undefined {
    let store: SqliteStore | undefined;
    try {
      store = SqliteStore.open(this.#file);
      return run(store.database);
    } catch {
      // A cache: the next process parses the file again.
      return undefined;
    } finally {
      try {
        store?.close();
      } catch {
        // Nothing left to keep.
      }
    }
  }
}
