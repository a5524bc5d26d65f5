import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { INDEXED_FIELDS } from '../../src/lexical/lexical-entry.js';
import { SharedStore } from '../../src/store/shared-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { useTempDirs } from '../support/temp-dirs.js';

const temp = useTempDirs('store');
const vec = (...values: number[]) => Float32Array.from(values);
/** A lexical entry stored under `key` (one term per field). */
const entry = (key: string) => ({ key, lengths: INDEXED_FIELDS.map(() => 1), terms: INDEXED_FIELDS.map(() => new Map([['word', 1]])) });
const entries = { lexicalEntry: (doc: number) => entry(`lex-${doc}`) };
afterEach(() => vi.useRealTimers());

describe('SqliteStore', () => {
  it('adds the typo-lookup vocabulary table to a store laid out before it, keeping what it holds', () => {
    const file = path.join(temp(), 'store.sqlite');
    const old = SqliteStore.open(file);
    old.putVectors('m1', new Map([['k1', vec(1, 2, 3)]]));
    const db = old.database;
    for (const name of ['lexical_vocabulary_insert', 'lexical_vocabulary_delete', 'lexical_vocabulary_update']) db.exec(`DROP TRIGGER ${name}`);
    db.exec('DROP TABLE lexical_vocabulary');
    old.close();
    const reopened = SqliteStore.open(file);
    expect(reopened.reset).toBeUndefined();
    expect(reopened.vectors('m1', 3, ['k1']).get('k1')).toEqual(vec(1, 2, 3));
    const objects = reopened.database.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'lexical_vocabulary%' ORDER BY name").pluck().all();
    expect(objects).toEqual(['lexical_vocabulary', 'lexical_vocabulary_delete', 'lexical_vocabulary_insert', 'lexical_vocabulary_update']);
    reopened.close();
  });

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
    writer.close();
    reader.close();
  });

  it('saves a catalog under its key with its members, replaced by the last writer, collected when unused with its graph file', () => {
    const root = temp();
    const file = path.join(root, 'store.sqlite');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T12:00:00Z'));
    const store = SqliteStore.open(file);
    store.putVectors(
      'm#t',
      new Map([
        ['v1', vec(1, 0)],
        ['v2', vec(0, 1)],
      ]),
    );
    const labels = store.labels('m#t', ['v1', 'v2', 'v3']);
    expect([...labels.keys()]).toEqual(['v1', 'v2']);
    const key = { stamp: 's1', model: 'm#t|hnsw', format: 7 };
    const member = (id: string, name: string, vectorKey: string) => ({
      id,
      name,
      lexicalKey: `lex-${'abc'.indexOf(id)}`,
      vectorKey,
      record: JSON.stringify({ id }),
    });
    mkdirSync(store.graphDir, { recursive: true });
    writeFileSync(path.join(store.graphDir, 'g1.usearch'), 'graph one');
    store.putCatalog({
      ...key,
      sourceStamp: 'here',
      diagnostics: '[]',
      members: [member('a', 'pdf', 'v1'), member('b', 'pdf', 'v2')],
      mean: vec(0.5, 0.5),
      graph: 'g1.usearch',
      ...entries,
    });
    writeFileSync(path.join(store.graphDir, 'g2.usearch'), 'graph two');
    const id = store.putCatalog({
      ...key,
      sourceStamp: 'there',
      diagnostics: '[1]',
      members: [member('a', 'pdf', 'v1'), member('c', 'pdf', 'v1'), member('b', 'docx', 'v2')],
      graph: 'g2.usearch',
      lexicalEntry: (doc) => entry(['lex-0', 'lex-2', 'lex-1'][doc]!),
    });
    // The replaced catalog's graph file went with it.
    expect(existsSync(path.join(store.graphDir, 'g1.usearch'))).toBe(false);
    const reader = SqliteStore.open(file);
    expect(reader.catalog(key)).toMatchObject({ id, sourceStamp: 'there', diagnostics: '[1]', size: 3, graph: 'g2.usearch', mean: undefined });
    expect(reader.catalog({ ...key, format: 8 })).toBeUndefined();
    expect(reader.latestGraph('m#t|hnsw', 7)).toEqual({ catalog: id, graph: 'g2.usearch' });
    const members = reader.members(id);
    expect(members.idsNamed('pdf')).toEqual(['a', 'c']);
    // Many labels or ids in one read, absent ones left out.
    expect(members.idsLabelled([labels.get('v2')!, labels.get('v1')!, -5])).toEqual(
      new Map([
        [labels.get('v1')!, ['a', 'c']],
        [labels.get('v2')!, ['b']],
      ]),
    );
    expect(members.membersOf(['b', 'z', 'a', 'b'], 2)).toEqual(
      new Map([
        ['a', { record: JSON.stringify({ id: 'a' }), stored: { key: 'v1', vector: vec(1, 0) } }],
        ['b', { record: JSON.stringify({ id: 'b' }), stored: { key: 'v2', vector: vec(0, 1) } }],
      ]),
    );
    expect(members.membersOf(['a'], 3).get('a')).toEqual({ record: JSON.stringify({ id: 'a' }), stored: undefined });
    expect(members.labels().sort()).toEqual([...labels.values()].sort());
    expect([...members.labelled(2).get(labels.get('v2')!)!]).toEqual([0, 1]);
    vi.setSystemTime(new Date('2026-02-05T12:00:00Z'));
    // The catalog and the vectors only it held go; its graph file once no catalog names it (and it is a minute old).
    expect(store.collect(30)).toBe(3);
    expect(reader.catalog(key)).toBeUndefined();
    expect(existsSync(path.join(store.graphDir, 'g2.usearch'))).toBe(false);
    store.close();
    reader.close();
  });

  it('a vector a kept catalog holds is not collected, however old', () => {
    const file = path.join(temp(), 'store.sqlite');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T12:00:00Z'));
    const store = SqliteStore.open(file);
    store.putVectors(
      'm',
      new Map([
        ['held', vec(1)],
        ['loose', vec(2)],
      ]),
    );
    vi.setSystemTime(new Date('2026-02-05T12:00:00Z'));
    store.putCatalog({
      stamp: 's',
      model: 'm|exact',
      format: 1,
      sourceStamp: 's',
      diagnostics: '[]',
      members: [{ id: 'a', name: 'a', lexicalKey: 'lex-0', vectorKey: 'held', record: '{}' }],
      ...entries,
    });
    expect(store.collect(30)).toBe(1);
    expect([...store.vectors('m', 1, ['held', 'loose']).keys()]).toEqual(['held']);
    store.close();
  });

  it('a store of an older layout is emptied, with one line saying so', () => {
    const file = path.join(temp(), 'store.sqlite');
    const store = SqliteStore.open(file);
    expect(store.reset).toBeUndefined();
    store.close();
    const db = new (createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3)(file);
    db.exec('DROP TABLE catalogs; CREATE TABLE catalogs (key TEXT PRIMARY KEY, index_dir TEXT)');
    db.pragma('user_version = 2');
    db.close();
    const reopened = SqliteStore.open(file);
    expect(reopened.reset).toBe(`skill-search: the store ${file} was of an older layout (2); it starts empty`);
    reopened.putCatalog({ stamp: 's', model: 'm|exact', format: 1, sourceStamp: 's', diagnostics: '[]', members: [], ...entries });
    expect(reopened.catalog({ stamp: 's', model: 'm|exact', format: 1 })?.size).toBe(0);
    reopened.close();
    expect(SqliteStore.open(file).reset).toBeUndefined();
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
    store.vectors('m', 1, ['read', 'listed']);
    vi.setSystemTime(new Date('2026-02-05T12:00:00Z'));
    expect(store.collect(30)).toBe(1);
    expect([...store.vectors('m', 1, ['old', 'read', 'listed']).keys()]).toEqual(['read', 'listed']);
    store.close();
  });

  it('moves a damaged store (a SQLite header, then garbage) aside and starts empty', () => {
    const file = path.join(temp(), 'store.sqlite');
    writeFileSync(file, `SQLite format 3\0${'damaged pages that SQLite cannot read as a database '.repeat(200)}`);
    const store = SqliteStore.open(file);
    expect(store.vectors('m', 1, ['k']).size).toBe(0);
    store.putVectors('m', new Map([['k', vec(1)]]));
    expect(store.vectors('m', 1, ['k']).size).toBe(1);
    expect(existsSync(`${file}.broken`)).toBe(true);
    store.close();
  });

  it("leaves a file that is not a SQLite file as it is and refuses it, naming it (a library's `store` option pointed at someone else's file)", () => {
    const file = path.join(temp(), 'notes.txt');
    const text = 'my notes, not a database '.repeat(40);
    writeFileSync(file, text);
    expect(() => SqliteStore.open(file)).toThrow(
      `skill-search: ${file} is not a skill-search store (not a SQLite file): left as it is; move it away or name another file`,
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(existsSync(`${file}.broken`)).toBe(false);
    const shared = new SharedStore(file);
    expect(shared.vectors('m', 1, ['k']).size).toBe(0);
    expect(shared.problem).toBe(`${file} is not a skill-search store (not a SQLite file): left as it is; move it away or name another file`);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('SqliteStore layouts', () => {
  /** A store file holding one table of layout `layout`, as another skill-search left it. */
  async function storeOfLayout(layout: number): Promise<string> {
    const file = path.join(temp(), 'store.sqlite');
    const { default: Database } = await import('better-sqlite3');
    const other = new Database(file);
    other.exec('CREATE TABLE vectors (model TEXT, key TEXT, vector BLOB, extra INTEGER)');
    other.pragma(`user_version = ${layout}`);
    other.close();
    return file;
  }

  it('empties a store of an older layout and lays it out anew', async () => {
    const file = await storeOfLayout(3);
    const store = SqliteStore.open(file);
    expect(store.reset).toBe(`skill-search: the store ${file} was of an older layout (3); it starts empty`);
    store.putVectors('m', new Map([['k', vec(5)]]));
    expect([...store.vectors('m', 1, ['k']).get('k')!]).toEqual([5]);
    store.close();
  });

  it("refuses a newer skill-search's store without writing it", async () => {
    const file = await storeOfLayout(99);
    const before = readFileSync(file);
    expect(() => SqliteStore.open(file)).toThrow('it holds layout 99 of a newer skill-search; this one reads 7 and leaves it as it is');
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});

describe('SharedStore', () => {
  it('answers "nothing stored" with the reason when the store cannot be opened, and never throws', () => {
    const blocker = path.join(temp(), 'file');
    writeFileSync(blocker, '');
    const shared = new SharedStore(path.join(blocker, 'store.sqlite'));
    expect(shared.vectors('m', 1, ['k']).size).toBe(0);
    shared.putVectors('m', new Map([['k', vec(1)]]));
    expect(shared.labels('m', ['k']).size).toBe(0);
    expect(shared.problem).toMatch(/EEXIST|ENOTDIR/);
  });
});
