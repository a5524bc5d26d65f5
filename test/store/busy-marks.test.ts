import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { StoreToolsCache } from '../../src/store/store-tools-cache.js';
import { useTempDirs } from '../support/temp-dirs.js';

const temp = useTempDirs('busy-marks');
afterEach(() => vi.useRealTimers());

const STAT = { size: 4, mtimeMs: 1, ctimeMs: 1, ino: 1 };

describe('reads while another process writes (an index build holding the store)', () => {
  it('a tools file kept a day before is read, its mark skipped, and its table found by size and text', async () => {
    const file = path.join(temp(), 'store.sqlite');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T12:00:00Z'));
    const cache = new StoreToolsCache(file);
    cache.writeLines('k', { stat: STAT, text: Buffer.from('a\nb\n'), starts: Buffer.alloc(12), outcomes: '{}' });
    cache.writeSkills('k', STAT, Buffer.from('skills'));
    vi.setSystemTime(new Date('2026-01-02T12:00:00Z'));
    const { default: Database } = await import('better-sqlite3');
    const writer = new Database(file);
    writer.exec('BEGIN IMMEDIATE');
    try {
      const { text } = cache.readLines('k')!;
      expect((typeof text === 'function' ? text() : text)?.toString()).toBe('a\nb\n');
      expect(cache.readSkills('k', STAT)?.toString()).toBe('skills');
      expect(cache.tablesOfSize(4)).toEqual([{ key: 'k', stat: STAT }]);
      expect(cache.holdsText('k', Buffer.from('a\nb\n'))).toBe(true);
      expect(cache.holdsText('k', Buffer.from('a\nc\n'))).toBe(false);
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
    // Marked by the next read once the store is free.
    expect(cache.readLines('k')).toBeDefined();
    const store = SqliteStore.open(file);
    expect(store.database.prepare('SELECT used FROM tools_lines').pluck().get()).toBeGreaterThan(
      store.database.prepare('SELECT used FROM tools_skills').pluck().get() as number,
    );
    store.close();
  });
});
