import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { INDEXED_FIELDS } from '../../src/lexical/lexical-entry.js';
import type { CatalogMember, NewCatalog } from '../../src/store/entry-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { useTempDirs } from '../support/temp-dirs.js';

const temp = useTempDirs('catalog-overlay');
const MODEL = 'm#t';
const KEY = { model: 'm#t|exact', format: 1 };

/** Member `i` of the first catalog; `edit` > 0 gives it other content (another lexical entry and vector). */
function member(i: number, edit = 0, name = `skill-${i}`): CatalogMember {
  const content = `${i}.${edit}`;
  return { id: `id-${i}`, name, lexicalKey: `lex-${content}`, vectorKey: `vec-${content}`, record: JSON.stringify({ id: `id-${i}`, content, name }) };
}

/** A store holding the vector and lexical entry of every member it will be given. */
function storeWith(members: readonly CatalogMember[]): SqliteStore {
  const store = SqliteStore.open(path.join(temp(), 'store.sqlite'));
  store.putVectors(MODEL, new Map(members.map((m, i) => [m.vectorKey, Float32Array.from([i + 1, 2 * i, 1])])));
  return store;
}

/** The lexical entry under `key`: field lengths that differ per entry, so the statistics tell documents apart. */
function lexicalEntryOf(key: string) {
  const n = key.length + key.charCodeAt(key.length - 1);
  return { key, lengths: INDEXED_FIELDS.map((_, f) => (n + f) % 7), terms: INDEXED_FIELDS.map(() => new Map([[key.replace(/\W/g, ''), 1]])) };
}

function put(store: SqliteStore, stamp: string, members: readonly (CatalogMember | number)[], all: readonly CatalogMember[], base?: number): number {
  const catalog: NewCatalog = {
    ...KEY,
    stamp,
    sourceStamp: stamp,
    diagnostics: '[]',
    members,
    base,
    lexicalEntry: (doc) => lexicalEntryOf(all[doc]!.lexicalKey),
  };
  return store.putCatalog(catalog);
}

/** Everything a reader sees of catalog `id`: members, lookups, lexical statistics. */
function seen(store: SqliteStore, id: number, all: readonly CatalogMember[]) {
  const members = store.members(id);
  const labels = store.labels(
    MODEL,
    all.map((m) => m.vectorKey),
  );
  const stats = store.database.prepare('SELECT documents, entries, lengths FROM lexical_catalogs WHERE catalog = ?').get(id);
  return {
    all: members.all(),
    keys: members.keys(),
    named: [...new Set(all.map((m) => m.name))].map((name) => members.idsNamed(name)),
    // One id or label at a time, and many in one read.
    labelled: all.map((m) => members.idsLabelled([labels.get(m.vectorKey)!])),
    membersOf: all.map((m) => members.membersOf([m.id], 3)),
    labelledMany: [...members.idsLabelled([...labels.values(), -1])].sort(([a], [b]) => a - b),
    membersOfMany: [...members.membersOf([...all.map((m) => m.id), 'no-such-id'], 3)],
    labels: members.labels().sort((a, b) => a - b),
    labelled3: [...members.labelled(3)].sort(([a], [b]) => a - b),
    stats,
    search: store.catalogLexical(id).search(all[1]!.lexicalKey.replace(/\W/g, ''), 10),
  };
}

/** `next` as an overlay of `previous` writes it: a member kept at its place by that place, a changed one by itself. */
const inPlace = (next: readonly CatalogMember[], previous: readonly CatalogMember[]): (CatalogMember | number)[] =>
  next.map((m, doc) => (m === previous[doc] ? doc : m));

const rows = (store: SqliteStore, id: number): unknown => store.database.prepare('SELECT count(*) FROM catalog_skills WHERE catalog = ?').pluck().get(id);

describe('a catalog written from the one saved before', () => {
  const first = Array.from({ length: 8 }, (_, i) => member(i));

  it('keeping every member in place, writes only its changed members, and reads as the same catalog written whole', () => {
    const edited = first.map((m, i) => (i === 3 ? member(3, 1) : i === 5 ? member(5, 1, 'skill-0') : m));
    const store = storeWith([...first, ...edited]);
    const base = put(store, 's1', first, first);
    const id = put(store, 's2', inPlace(edited, first), edited, base);
    const whole = put(store, 's3', edited, edited);
    expect(rows(store, id)).toBe(2);
    expect(rows(store, whole)).toBe(8);
    const read = seen(store, id, edited);
    expect(read).toEqual(seen(store, whole, edited));
    expect(read.search.length).toBeGreaterThan(0);
    expect(read.stats).toMatchObject({ documents: 8 });
    expect(store.members(id).idsNamed('skill-0')).toEqual(['id-0', 'id-5']);
    // The base reads as it did.
    expect(seen(store, base, first).all).toEqual(first);
    store.close();
  });

  it('an overlay of an overlay is written over the same base, with what the first one changed', () => {
    const once = first.map((m, i) => (i === 2 ? member(2, 1) : m));
    const twice = once.map((m, i) => (i === 6 ? member(6, 1) : m));
    const store = storeWith([...first, ...once, ...twice]);
    const base = put(store, 's1', first, first);
    const one = put(store, 's2', inPlace(once, first), once, base);
    const two = put(store, 's3', inPlace(twice, once), twice, one);
    const whole = put(store, 's4', twice, twice);
    expect(store.database.prepare('SELECT base FROM catalogs WHERE id = ?').pluck().get(two)).toBe(base);
    expect(rows(store, two)).toBe(2);
    expect(seen(store, two, twice)).toEqual(seen(store, whole, twice));
    store.close();
  });

  it('with a member removed and one added, copies the kept members: the removed one leaves no member, and it reads as written whole', () => {
    // Member 2 removed, a new member at the front, member 6 edited.
    const changed = [member(20), ...first.filter((_, i) => i !== 2).map((m) => (m.id === 'id-6' ? member(6, 1) : m))];
    const store = storeWith([...first, ...changed]);
    const base = put(store, 's1', first, first);
    const id = put(
      store,
      's2',
      changed.map((m) => (first.includes(m) ? first.indexOf(m) : m)),
      changed,
      base,
    );
    const whole = put(store, 's3', changed, changed);
    expect(store.database.prepare('SELECT base FROM catalogs WHERE id = ?').pluck().get(id)).toBeNull();
    expect(rows(store, id)).toBe(8);
    expect(store.members(id).membersOf(['id-2'], 3).size).toBe(0);
    expect(seen(store, id, changed)).toEqual(seen(store, whole, changed));
    store.close();
  });

  it("lists equal lexical scores by document, not by the order their entries were stored (an edited member's is stored last)", () => {
    const edited = first.map((m, i) => (i === 1 ? member(1, 1) : m));
    const store = storeWith([...first, ...edited]);
    // Every entry alike: one shared term, the same lengths, so every document ties.
    const alike = (catalog: Omit<NewCatalog, 'lexicalEntry'>, all: readonly CatalogMember[]) =>
      store.putCatalog({
        ...catalog,
        lexicalEntry: (doc) => ({ key: all[doc]!.lexicalKey, lengths: INDEXED_FIELDS.map(() => 2), terms: INDEXED_FIELDS.map(() => new Map([['common', 1]])) }),
      });
    const row = { ...KEY, diagnostics: '[]' };
    const base = alike({ ...row, stamp: 's1', sourceStamp: 's1', members: first }, first);
    const id = alike({ ...row, stamp: 's2', sourceStamp: 's2', members: inPlace(edited, first), base }, edited);
    const order = (catalog: number, limit: number) =>
      store
        .catalogLexical(catalog)
        .search('common', limit)
        .map((match) => match.id);
    expect(order(base, 10)).toEqual(first.map((m) => m.id));
    expect(order(id, 10)).toEqual(edited.map((m) => m.id));
    expect(order(id, 3)).toEqual(['id-0', 'id-1', 'id-2']);
    store.close();
  });

  it('fails whole when the base lost a document it is asked to copy, and leaves the store as it was', () => {
    const store = storeWith(first);
    const base = put(store, 's1', first.slice(0, 4), first);
    expect(() => put(store, 's2', [0, 1, 2, 3, 4, 5], first, base)).toThrow(/no longer holds documents/);
    expect(store.database.prepare('SELECT count(*) FROM catalogs').pluck().get()).toBe(1);
    store.close();
  });

  it('keeps a catalog an overlay reads: not collected while the overlay is used, not replaced under its key', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2026-01-01T12:00:00Z'));
      const edited = first.map((m, i) => (i === 1 ? member(1, 1) : m));
      const store = storeWith([...first, ...edited]);
      const base = put(store, 's1', first, first);
      vi.setSystemTime(new Date('2026-02-05T12:00:00Z'));
      const id = put(store, 's2', inPlace(edited, first), edited, base);
      // Written again under the base's key (the same skills): the base stays, as the overlay reads it.
      expect(put(store, 's1', first, first)).toBe(base);
      expect(store.collect(30)).toBe(0);
      expect(seen(store, id, edited).all).toEqual(edited);
      vi.setSystemTime(new Date('2026-04-05T12:00:00Z'));
      expect(store.collect(30)).toBeGreaterThanOrEqual(2);
      expect(store.database.prepare('SELECT count(*) FROM catalog_skills').pluck().get()).toBe(0);
      store.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
