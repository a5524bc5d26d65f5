/**
 * A catalog's members in `catalog_skills`: written whole, or, when the catalog keeps every member
 * of a saved one in place (a few changed), as an *overlay* of it: its row names that catalog in
 * `base`, and only its differing documents are written. A read of an overlay takes its own row
 * for a document when it has one, else the base's (a catalog written whole reads with base −1).
 * An overlay's base is always written whole: an overlay of an overlay is written over the same
 * base, with the rows it inherits.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { SkillSearchError } from '../errors.js';
import { getOrAdd } from '../util/get-or-add.js';
import type { CatalogMember, CatalogMembers, MemberRead, MemoryOverlay, NewCatalog, OverlaidMember } from './entry-store.js';

export const CATALOG_SKILLS_SQL = `
CREATE TABLE IF NOT EXISTS catalog_skills (catalog INTEGER NOT NULL, doc INTEGER NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL, lexical_key TEXT NOT NULL, vector_key TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (catalog, doc)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS catalog_skills_lexical ON catalog_skills (lexical_key, catalog);
CREATE INDEX IF NOT EXISTS catalog_skills_id ON catalog_skills (catalog, id, doc);
CREATE INDEX IF NOT EXISTS catalog_skills_name ON catalog_skills (catalog, name, doc);
CREATE INDEX IF NOT EXISTS catalog_skills_vector ON catalog_skills (catalog, vector_key, doc);
`;

type Database = BetterSqlite3.Database;

/** A base row is the catalog's unless the overlay `@c` has its own for that document. */
const NOT_OVERLAID = 'NOT EXISTS (SELECT 1 FROM catalog_skills o WHERE o.catalog = @c AND o.doc = b.doc)';
const COLUMNS = 'doc, id, name, lexical_key, vector_key, record';
/** A member's fields as {@link CatalogMember} names them, without its record. */
const KEY_COLUMNS = 'id, name, lexical_key AS lexicalKey, vector_key AS vectorKey';
/** The vector of member row `s` under the catalog's model. */
const VECTOR_OF = 'JOIN vectors v ON v.model = @model AND v.key = s.vector_key';
/** Every member of catalog `@c` over its base `@r` (−1 when it has none). */
const EFFECTIVE = `(SELECT ${COLUMNS} FROM catalog_skills WHERE catalog = @c UNION ALL SELECT ${COLUMNS} FROM catalog_skills b WHERE b.catalog = @r AND ${NOT_OVERLAID})`;

/** The catalog `base` of `catalog` when it keeps every member of it in place: the base its overlay is written over; else undefined. */
export function overlayBase(db: Database, catalog: NewCatalog): number | undefined {
  if (catalog.base === undefined) return undefined;
  const base = db.prepare<[number], { size: number; base: number | null }>('SELECT size, base FROM catalogs WHERE id = ?').get(catalog.base);
  if (base === undefined || base.size !== catalog.members.length) return undefined;
  const root = base.base ?? catalog.base;
  const idAt = db.prepare<{ c: number; r: number; doc: number }, string>(`SELECT id FROM ${EFFECTIVE} WHERE doc = @doc`).pluck();
  let changed = 0;
  for (const [doc, m] of catalog.members.entries()) {
    if (typeof m === 'number') {
      if (m !== doc) return undefined;
      continue;
    }
    changed += 1;
    // Past half the catalog an overlay saves nothing.
    if (2 * changed > catalog.members.length || idAt.get({ c: catalog.base, r: base.base ?? -1, doc }) !== m.id) return undefined;
  }
  return root;
}

/**
 * Writes the members of catalog `id`: over `overlay` ({@link overlayBase}) only the changed ones
 * and those the base overlay held; else all, the kept ones copied in SQL (one statement per run
 * of documents). Returns how many were kept; throws when the base no longer holds one of them.
 */
export function putMembers(db: Database, id: number, catalog: NewCatalog, overlay: number | undefined): number {
  const members = catalog.members;
  const kept = members.reduce<number>((count, m) => count + (typeof m === 'number' ? 1 : 0), 0);
  const bind = db.prepare<[number, number, string, string, string, string, string]>(
    'INSERT OR REPLACE INTO catalog_skills (catalog, doc, id, name, lexical_key, vector_key, record) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const base = catalog.base;
  if (overlay !== undefined) {
    // The rows an overlay base held for its kept documents come along; the changed ones replace theirs.
    if (base !== overlay)
      db.prepare<[number, number]>(`INSERT INTO catalog_skills (catalog, ${COLUMNS}) SELECT ?, ${COLUMNS} FROM catalog_skills WHERE catalog = ?`).run(
        id,
        base!,
      );
    for (const [doc, m] of members.entries()) if (typeof m !== 'number') bind.run(id, doc, m.id, m.name, m.lexicalKey, m.vectorKey, m.record);
    return kept;
  }
  if (kept > 0 && base === undefined) throw new SkillSearchError('INTERNAL', 'a catalog keeping members of another needs its base');
  const root = base === undefined ? -1 : (db.prepare<[number], number | null>('SELECT base FROM catalogs WHERE id = ?').pluck().get(base) ?? -1);
  const copy = db.prepare<{ id: number; shift: number; c: number; r: number; from: number; to: number }>(
    `INSERT INTO catalog_skills (catalog, ${COLUMNS}) SELECT @id, doc + @shift, id, name, lexical_key, vector_key, record FROM ${EFFECTIVE} WHERE doc BETWEEN @from AND @to`,
  );
  for (let doc = 0; doc < members.length; ) {
    const m = members[doc]!;
    if (typeof m !== 'number') {
      bind.run(id, doc, m.id, m.name, m.lexicalKey, m.vectorKey, m.record);
      doc += 1;
      continue;
    }
    let end = doc + 1;
    while (end < members.length && members[end] === m + (end - doc)) end += 1;
    const to = m + (end - doc - 1);
    if (copy.run({ id, shift: doc - m, c: base!, r: root, from: m, to }).changes !== end - doc)
      throw new SkillSearchError('INTERNAL', `catalog ${String(base)} no longer holds documents ${m}…${to} to copy`);
    doc = end;
  }
  return kept;
}

/**
 * Reads the members of catalog `catalog`; with `overlay`, its members take their documents'
 * place. Each lookup names its index (`INDEXED BY`): without statistics SQLite would walk the
 * catalog's whole primary-key range for every one.
 */
export function readMembers(db: Database, catalog: number, overlay?: MemoryOverlay): CatalogMembers {
  const saved = readSavedMembers(db, catalog);
  return overlay === undefined || overlay.size === 0 ? saved : overlaidMembers(db, catalog, saved, overlay);
}

/** `saved` with `overlay` in place of its documents (an overlay keeps every id at its document, so a lookup by id of an overlaid member is answered from memory). */
function overlaidMembers(db: Database, catalog: number, saved: CatalogMembers, overlay: MemoryOverlay): CatalogMembers {
  const byId = new Map<string, OverlaidMember>();
  for (const held of overlay.values()) byId.set(held.member.id, held);
  const { at, model, named, labelledMany } = memberStatements(db, catalog);
  /** The saved rows (document first) at documents the overlay does not hold, with the overlay's that `pick` keeps, in document order. */
  const merged = <T>(rows: readonly (readonly [number, T])[], pick: (held: OverlaidMember) => T | undefined): T[] => {
    const out: [number, T][] = rows.filter(([doc]) => !overlay.has(doc)).map(([doc, value]) => [doc, value]);
    for (const [doc, held] of overlay) {
      const value = pick(held);
      if (value !== undefined) out.push([doc, value]);
    }
    return out.sort((a, b) => a[0] - b[0]).map(([, value]) => value);
  };
  const effective = <T extends unknown[]>(columns: string): [number, ...T][] =>
    db
      .prepare<Record<string, unknown>, [number, ...T]>(`SELECT s.doc, ${columns} FROM ${EFFECTIVE} s ${VECTOR_OF}`)
      .raw()
      .all({ ...at, model });
  const vectors = (rows: readonly [number, number, Buffer][]): [number, readonly [number, Buffer | Float32Array]][] =>
    rows.map(([doc, label, vector]) => [doc, [label, vector]]);
  const own = (held: OverlaidMember) => [held.label, held.vector] as const;
  // A catalog's documents are 0 … size − 1, so the saved member at `doc` is the `doc`th.
  const all = () => saved.all().map((member, doc) => overlay.get(doc)?.member ?? member);
  // Read with the records: a catalog searched before it is written is not asked for its keys on a search's path.
  const keys = () => all().map(({ id, name, lexicalKey, vectorKey }) => ({ id, name, lexicalKey, vectorKey }));
  return {
    idsNamed: (name) => merged(named.all({ ...at, name }), (held) => (held.member.name === name ? held.member.id : undefined)),
    idsLabelled: (labels) => {
      const wanted = new Set(labels);
      const rows = labelledMany.all({ ...at, labels: JSON.stringify(labels) }).map(([doc, label, id]) => [doc, [label, id] as const] as const);
      return idsByLabel(merged(rows, (held) => (wanted.has(held.label) ? ([held.label, held.member.id] as const) : undefined)));
    },
    membersOf: (ids, dimensions) => {
      const out = saved.membersOf(
        ids.filter((id) => !byId.has(id)),
        dimensions,
      );
      for (const id of ids) {
        const held = byId.get(id);
        if (held !== undefined) out.set(id, { record: held.member.record, stored: { key: held.member.vectorKey, vector: held.vector } });
      }
      return out;
    },
    all,
    ids: () => all().map(({ id }) => id),
    keys,
    at: (docs) => {
      const out = saved.at(docs.filter((doc) => !overlay.has(doc)));
      for (const doc of docs) {
        const held = overlay.get(doc);
        if (held !== undefined) out.set(doc, { id: held.member.id, vectorKey: held.member.vectorKey });
      }
      return out;
    },
    holding: (wanted) => {
      const counts = new Map(wanted.map((key) => [key, 0]));
      for (const { vectorKey } of keys()) if (counts.has(vectorKey)) counts.set(vectorKey, counts.get(vectorKey)! + 1);
      return counts;
    },
    distinctVectors: () => new Set(keys().map((m) => m.vectorKey)).size,
    labels: () => [...new Set(merged(effective<[number]>('v.label'), (held) => held.label))],
    labelled: (dimensions) => firstByLabel(merged(vectors(effective<[number, Buffer]>('v.label, v.vector')), own), dimensions),
    overlaid: (dimensions) => {
      // The saved catalog's own rows (when it is an overlay itself) at documents the memory does not hold, and the memory's.
      const rows =
        at.r < 0
          ? []
          : db
              .prepare<Record<string, unknown>, [number, number, Buffer]>(
                `SELECT s.doc, v.label, v.vector FROM catalog_skills s ${VECTOR_OF} WHERE s.catalog = @c`,
              )
              .raw()
              .all({ c: catalog, model });
      return firstByLabel(merged(vectors(rows), own), dimensions);
    },
  };
}

/** The statements reading catalog `catalog`'s members (document first in every row), with their parameters. */
function memberStatements(db: Database, catalog: number) {
  const row = db.prepare<[number], { model: string; base: number | null }>('SELECT model, base FROM catalogs WHERE id = ?').get(catalog);
  const at = { c: catalog, r: row?.base ?? -1 };
  // A catalog's model carries the index kind after `|`; vectors are stored under the model alone.
  const model = (row?.model ?? '').split('|')[0]!;
  /** One lookup through `index` over the catalog's rows and its base's, in document order. */
  const both = <T extends unknown[]>(columns: string, from: string, where: string): BetterSqlite3.Statement<Record<string, unknown>, T> =>
    db
      .prepare<Record<string, unknown>, T>(
        `SELECT s.doc, ${columns} FROM ${from.replaceAll('@t', 's')} WHERE s.catalog = @c AND ${where.replaceAll('@t', 's')} UNION ALL ` +
          `SELECT b.doc, ${columns.replaceAll('s.', 'b.')} FROM ${from.replaceAll('@t', 'b')} WHERE b.catalog = @r AND ${where.replaceAll('@t', 'b')} AND ${NOT_OVERLAID} ORDER BY 1`,
      )
      .raw();
  const named = both<[number, string]>('s.id', 'catalog_skills @t INDEXED BY catalog_skills_name', '@t.name = @name');
  // The batched reads: the values come in as one JSON array (`json_each`), rows out in document order.
  // CROSS JOIN keeps the values the outer loop: SQLite would otherwise walk the catalog's rows and scan the values for each (70 ms at 4k).
  const labelledMany = both<[number, number, string]>(
    'v.label, s.id',
    'json_each(@labels) w CROSS JOIN vectors v ON v.label = w.value CROSS JOIN catalog_skills @t INDEXED BY catalog_skills_vector ON @t.vector_key = v.key',
    '@t.catalog = @t.catalog',
  );
  const membersOf = both<[number, string, string, string, Buffer | null]>(
    's.id, s.record, s.vector_key, v.vector',
    'json_each(@ids) w CROSS JOIN catalog_skills @t INDEXED BY catalog_skills_id ON @t.id = w.value LEFT JOIN vectors v ON v.model = @model AND v.key = @t.vector_key',
    '@t.catalog = @t.catalog',
  );
  return { at, model, both, named, labelledMany, membersOf };
}

/** Reads the members of catalog `catalog` as saved. */
function readSavedMembers(db: Database, catalog: number): CatalogMembers {
  const { at, model, both, named, labelledMany, membersOf } = memberStatements(db, catalog);
  /** Every member's `columns`, in catalog order. */
  const ordered = <T>(columns: string): T[] => db.prepare<Record<string, unknown>, T>(`SELECT ${columns} FROM ${EFFECTIVE} ORDER BY doc`).all(at);
  return {
    idsNamed: (name) => named.all({ ...at, name }).map(([, id]) => id),
    idsLabelled: (labels) => idsByLabel(labelledMany.all({ ...at, labels: JSON.stringify(labels) }).map(([, label, id]) => [label, id] as const)),
    membersOf: (ids, dimensions) => {
      // An id's first row, and its first row with a vector of the model.
      const records = new Map<string, string>();
      const stored = new Map<string, MemberRead['stored']>();
      for (const [, id, record, key, vector] of membersOf.all({ ...at, model, ids: JSON.stringify(ids) })) {
        if (!records.has(id)) records.set(id, record);
        if (vector !== null && !stored.has(id)) stored.set(id, vector.byteLength === 4 * dimensions ? { key, vector: toVector(vector) } : undefined);
      }
      return new Map([...records].map(([id, record]) => [id, { record, stored: stored.get(id) }]));
    },
    all: () => ordered<CatalogMember>(`${KEY_COLUMNS}, record`),
    ids: () => db.prepare<Record<string, unknown>, string>(`SELECT id FROM ${EFFECTIVE} ORDER BY doc`).pluck().all(at),
    keys: () => ordered<Omit<CatalogMember, 'record'>>(KEY_COLUMNS),
    at: (docs) => {
      const row = db.prepare<Record<string, unknown>, [string, string]>(`SELECT id, vector_key FROM ${EFFECTIVE} WHERE doc = @doc`).raw();
      const out = new Map<number, { readonly id: string; readonly vectorKey: string }>();
      for (const doc of docs) {
        const found = row.get({ ...at, doc });
        if (found !== undefined) out.set(doc, { id: found[0], vectorKey: found[1] });
      }
      return out;
    },
    holding: (keys) => {
      const holders = both<[number, string]>('s.id', 'catalog_skills @t INDEXED BY catalog_skills_vector', '@t.vector_key = @key');
      return new Map(keys.map((key) => [key, holders.all({ ...at, key }).length]));
    },
    distinctVectors: () =>
      db
        .prepare<Record<string, unknown>, number>(
          `SELECT count(DISTINCT vector_key) FROM (SELECT vector_key FROM catalog_skills WHERE catalog = @c UNION ALL SELECT vector_key FROM catalog_skills b WHERE b.catalog = @r AND ${NOT_OVERLAID})`,
        )
        .pluck()
        .get(at) ?? 0,
    labels: () =>
      db
        .prepare<Record<string, unknown>, number>(`SELECT DISTINCT v.label FROM ${EFFECTIVE} s ${VECTOR_OF}`)
        .pluck()
        .all({ ...at, model }),
    // Not DISTINCT: over the vector blobs SQLite would scan every vector of the model and sort them (15 ms at 1k, against 3).
    labelled: (dimensions) =>
      firstByLabel(
        db
          .prepare<Record<string, unknown>, [number, Buffer]>(`SELECT v.label, v.vector FROM ${EFFECTIVE} s ${VECTOR_OF}`)
          .raw()
          .all({ ...at, model }),
        dimensions,
      ),
    overlaid: (dimensions) =>
      at.r < 0
        ? new Map()
        : firstByLabel(
            db
              .prepare<Record<string, unknown>, [number, Buffer]>(`SELECT DISTINCT v.label, v.vector FROM catalog_skills s ${VECTOR_OF} WHERE s.catalog = @c`)
              .raw()
              .all({ c: catalog, model }),
            dimensions,
          ),
  };
}

/** Each label's vector (`dimensions` long) as first listed: a label read again (two members sharing a vector) is the same vector. */
function firstByLabel(rows: readonly (readonly [number, Buffer | Float32Array])[], dimensions: number): Map<number, Float32Array> {
  const out = new Map<number, Float32Array>();
  for (const [label, vector] of rows)
    if (!out.has(label) && vector.byteLength === 4 * dimensions) out.set(label, vector instanceof Float32Array ? vector : toVector(vector));
  return out;
}

/** The ids of each label, in the order listed. */
function idsByLabel(rows: Iterable<readonly [number, string]>): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const [label, id] of rows) getOrAdd(out, label, () => []).push(id);
  return out;
}

/** A stored vector blob as a float32 array. */
export const toVector = (bytes: Buffer): Float32Array => fromBlob(bytes, Float32Array);

/** A blob read back as `Type`'s elements, in the machine's order (copied: a blob's buffer need not be aligned). */
export function fromBlob<T extends Float32Array | Float64Array | Uint32Array>(bytes: Buffer, Type: { new (length: number): T; BYTES_PER_ELEMENT: number }): T {
  const out = new Type(bytes.byteLength / Type.BYTES_PER_ELEMENT);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

/** A typed array's bytes as a blob, in the machine's order. */
export function blobOf(values: ArrayBufferView): Buffer {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}
