import { statSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SharedStore } from '../../src/store/shared-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { useTempDirs } from '../support/temp-dirs.js';

const temp = useTempDirs('store');
const vec = (...values: number[]) => Float32Array.from(values);
afterEach(() => vi.useRealTimers());

describe('SqliteStore', () => {
  it('keeps vectors by model and content key, across processes opening the same file', () => {
    const file = path.join(temp(), 'cache', 'store.sqlite');
    const writer = SqliteStore.open(file);
    writer.putVectors(
      'm1',
      new Map([
        ['k1', vec(1, 2, 3)],
        ['k2', vec(4, 5, 6)],
      ]),
    );
    writer.putVectors('m2', new Map([['k1', vec(9, 9, 9)]]));
    const reader = SqliteStore.open(file);
    const found = reader.vectors('m1', 3, ['k1', 'k2', 'k3']);
    expect([...found.keys()]).toEqual(['k1', 'k2']);
    expect([...found.get('k1')!]).toEqual([1, 2, 3]);
    expect([...reader.vectors('m2', 3, ['k1', 'k2']).get('k1')!]).toEqual([9, 9, 9]);
    // A vector of other dimensions under the same model is not this model's: not returned.
    expect(reader.vectors('m1', 4, ['k1']).size).toBe(0);
    expect(reader.missing('m1', ['k1', 'k3', 'k2'])).toEqual(['k3']);
    writer.close();
    reader.close();
  });

  it('records which index folder serves a catalog key, replaced by the last writer, collected when unused', () => {
    const file = path.join(temp(), 'store.sqlite');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T12:00:00Z'));
    const store = SqliteStore.open(file);
    expect(store.servedCatalog('c1')).toBeUndefined();
    store.putServedCatalog('c1', { indexDir: '/cache/a', sourceStamp: 's1' });
    store.putServedCatalog('c1', { indexDir: '/cache/b', sourceStamp: 's2' });
    store.putServedCatalog('c2', { indexDir: '/cache/c', sourceStamp: 's3' });
    const reader = SqliteStore.open(file);
    expect(reader.servedCatalog('c1')).toEqual({ indexDir: '/cache/b', sourceStamp: 's2' });
    vi.setSystemTime(new Date('2026-01-25T12:00:00Z'));
    expect(reader.servedCatalog('c2')).toBeDefined();
    vi.setSystemTime(new Date('2026-02-05T12:00:00Z'));
    expect(store.collect(30)).toBe(1);
    expect([reader.servedCatalog('c1'), reader.servedCatalog('c2')]).toEqual([undefined, { indexDir: '/cache/c', sourceStamp: 's3' }]);
    store.close();
    reader.close();
  });

  it('a store of layout 1 (vectors only) keeps its vectors and gains the catalogs table', () => {
    const file = path.join(temp(), 'store.sqlite');
    const store = SqliteStore.open(file);
    store.putVectors('m', new Map([['k', vec(1, 2)]]));
    store.close();
    const db = new (createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3)(file);
    db.exec('DROP TABLE catalogs');
    db.pragma('user_version = 1');
    db.close();
    const reopened = SqliteStore.open(file);
    expect([...reopened.vectors('m', 2, ['k']).get('k')!]).toEqual([1, 2]);
    reopened.putServedCatalog('c', { indexDir: '/cache/a', sourceStamp: 's' });
    expect(reopened.servedCatalog('c')).toEqual({ indexDir: '/cache/a', sourceStamp: 's' });
    reopened.close();
  });

  it('is private to its user and in WAL mode', () => {
    const dir = path.join(temp(), 'cache');
    const file = path.join(dir, 'store.sqlite');
    const store = SqliteStore.open(file);
    store.putVectors('m', new Map([['k', vec(1)]]));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(`${file}-wal`).mode & 0o777).toBe(0o600);
    store.close();
  });

  it('collects the entries no one used for the given days, keeping those read meanwhile', () => {
    const file = path.join(temp(), 'store.sqlite');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T12:00:00Z'));
    const store = SqliteStore.open(file);
    store.putVectors(
      'm',
      new Map([
        ['old', vec(1)],
        ['read', vec(2)],
        ['listed', vec(3)],
      ]),
    );
    vi.setSystemTime(new Date('2026-01-25T12:00:00Z'));
    store.vectors('m', 1, ['read']);
    store.missing('m', ['listed']);
    vi.setSystemTime(new Date('2026-02-05T12:00:00Z'));
    expect(store.collect(30)).toBe(1);
    expect([...store.vectors('m', 1, ['old', 'read', 'listed']).keys()]).toEqual(['read', 'listed']);
    store.close();
  });

  it('moves a file that is not a database aside and starts empty', () => {
    const file = path.join(temp(), 'store.sqlite');
    writeFileSync(file, 'not a database, just text that is long enough to have a header '.repeat(20));
    const store = SqliteStore.open(file);
    expect(store.vectors('m', 1, ['k']).size).toBe(0);
    store.putVectors('m', new Map([['k', vec(1)]]));
    expect(store.vectors('m', 1, ['k']).size).toBe(1);
    expect(existsSync(`${file}.broken`)).toBe(true);
    store.close();
  });
});

describe('SqliteStore layouts', () => {
  it('empties a store of another layout and lays it out anew', async () => {
    const file = path.join(temp(), 'store.sqlite');
    const { default: Database } = await import('better-sqlite3');
    const old = new Database(file);
    old.exec('CREATE TABLE vectors (model TEXT, key TEXT, vector BLOB, extra INTEGER)');
    old.pragma('user_version = 99');
    old.close();
    const store = SqliteStore.open(file);
    store.putVectors('m', new Map([['k', vec(5)]]));
    expect([...store.vectors('m', 1, ['k']).get('k')!]).toEqual([5]);
    store.close();
  });
});

describe('SharedStore', () => {
  it('answers "nothing stored" with the reason when the store cannot be opened, and never throws', () => {
    const blocker = path.join(temp(), 'file');
    writeFileSync(blocker, '');
    const shared = new SharedStore(path.join(blocker, 'store.sqlite'));
    expect(shared.vectors('m', 1, ['k']).size).toBe(0);
    shared.putVectors('m', new Map([['k', vec(1)]]));
    expect(shared.missing('m', ['k'])).toEqual([]);
    expect(shared.problem).toMatch(/EEXIST|ENOTDIR/);
  });
});
