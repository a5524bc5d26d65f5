import { createHash } from 'node:crypto';
import { closeSync, openSync, read, readSync } from 'node:fs';
import type { IndexFolder } from '../index-folder/index-folder.js';
import { encodeFlatLexical, FlatLexicalIndex } from '../lexical/flat-lexical.js';
import { FLAT_LEXICAL_VERSION } from '../lexical/flat-lexical-layout.js';
import { LEXICAL_FORMAT_VERSION, type LexicalIndex, type LexicalSearcher } from '../lexical/lexical-index.js';
import type { Diagnostic, Skill } from '../types.js';
import { sortedByBytes, TextColumn } from '../util/text-column.js';
import { VECTOR_DATA, VECTOR_ENTRIES } from '../vector-index/store.js';

/**
 * The catalog an engine last synced, saved in its index folder (artefact `search`) with the
 * lexical index it was searched with, so a cold process whose catalog has not changed (equal
 * `sourceStamp`, see `src/load/source-stamp.ts`) searches without building the catalog at all:
 * skill records are decoded only for the candidates a query reaches, the lexical index is read
 * as saved, and the vectors come from the vector index the snapshot names. See docs/index-folder.md.
 *
 * Layout (little-endian): `SKSN`, the header's byte length (u32), the header (JSON), then its
 * sections, each 8-byte aligned: `ids` and `names` (normalised) in catalog order as UTF-8 text
 * with `idEnds` and `nameEnds` (u32 per row: a `TextColumn`, so nothing is parsed per skill on
 * open), `idOrder` and `nameOrder` (u32 rows sorted by the bytes of the id and of the name, for
 * binary searches), `offsets` (u32 per record, plus the end), `records` (each skill as JSON,
 * read from the file only when a query reaches it), `diagnostics` (the catalog's load problems,
 * JSON) and `lexical` (`flat-lexical.ts`: searched in place, nothing decoded).
 */
export const SEARCH_SNAPSHOT_ARTEFACT = 'search';
/** Bump when the layout or the meaning of a section changes. */
const SNAPSHOT_FORMAT = 5;
const MAGIC = 'SKSN';
const SECTIONS = ['ids', 'idEnds', 'idOrder', 'names', 'nameEnds', 'nameOrder', 'offsets', 'records', 'diagnostics', 'lexical'] as const;
type Section = (typeof SECTIONS)[number];
/** The vector artefacts whose state a snapshot pairs with. */
const PAIRED = [VECTOR_DATA, VECTOR_ENTRIES] as const;

/** What a snapshot must match to be searched: the catalog's stamp and the engine's model (with its text version). */
/**
 * The key under which the shared store records which index folder holds the snapshot of a
 * catalog (`ServedCatalog`): its portable stamp, the model identity and this file's format, so
 * no folder is pointed at a snapshot it could not open.
 */
export function servedCatalogKey(portableStamp: string, model: string): string {
  return createHash('sha256')
    .update(JSON.stringify([SNAPSHOT_FORMAT, model, portableStamp]))
    .digest('hex');
}

export interface SnapshotIdentity {
  readonly sourceStamp: string;
  readonly model: string;
}

interface SnapshotHeader extends SnapshotIdentity {
  readonly format: number;
  readonly count: number;
  /** `LEXICAL_FORMAT_VERSION` (what shapes the terms) and `FLAT_LEXICAL_VERSION` (how they are laid out). */
  readonly lexicalFormat: readonly [number, number];
  /** `IndexFolder.version` of each paired vector artefact when the snapshot was written. */
  readonly vectors: Readonly<Record<string, string>>;
  readonly sections: Readonly<Record<Section, readonly [offset: number, length: number]>>;
}

/** A synced catalog to save: its skills in catalog order, their normalised names, its load problems and its lexical index. */
export interface SnapshotContents {
  readonly skills: Iterable<Skill>;
  readonly diagnostics: readonly Diagnostic[];
  readonly nameOf: (skill: Skill) => string;
  readonly lexical: LexicalIndex;
}

/** A saved snapshot as a cold engine searches it. */
export interface OpenedSnapshot {
  readonly skills: ReadonlyMap<string, Skill>;
  /** The ids of the skills with this normalised name, in catalog order. */
  readonly idsNamed: (name: string) => readonly string[] | undefined;
  readonly diagnostics: readonly Diagnostic[];
  readonly lexical: LexicalSearcher;
  /** Releases the file the records are read from. */
  readonly close: () => void;
}

/** True when the folder holds a snapshot of `identity` whose paired vectors are still as they were. */
export function hasSearchSnapshot(folder: IndexFolder, identity: SnapshotIdentity): boolean {
  const entry = folder.entry(SEARCH_SNAPSHOT_ARTEFACT);
  const meta = entry?.meta;
  return entry?.format === SNAPSHOT_FORMAT && meta?.sourceStamp === identity.sourceStamp && meta.model === identity.model && sameVectors(folder, meta.vectors);
}

/** Writes the snapshot of `contents` under `identity` and names it in the manifest. */
export function saveSearchSnapshot(folder: IndexFolder, identity: SnapshotIdentity, contents: SnapshotContents): void {
  const ids: string[] = [];
  const names: string[] = [];
  const records: Buffer[] = [];
  for (const skill of contents.skills) {
    ids.push(skill.id);
    names.push(contents.nameOf(skill));
    records.push(Buffer.from(JSON.stringify(skill), 'utf8'));
  }
  const offsets = new Uint32Array(records.length + 1);
  let end = 0;
  for (const [i, record] of records.entries()) {
    offsets[i] = end;
    end += record.length;
    if (end > 0xffff_ffff) throw new Error('search snapshot: skill records exceed 4 GiB');
  }
  offsets[records.length] = end;
  const idColumn = TextColumn.encode(ids);
  const nameColumn = TextColumn.encode(names);
  const bodies: Record<Section, Buffer> = {
    ids: idColumn.text,
    idEnds: bytesOf(idColumn.ends),
    idOrder: bytesOf(sortedByBytes(ids)),
    names: nameColumn.text,
    nameEnds: bytesOf(nameColumn.ends),
    nameOrder: bytesOf(sortedByBytes(names)),
    offsets: bytesOf(offsets),
    records: Buffer.concat(records),
    diagnostics: Buffer.from(JSON.stringify(contents.diagnostics), 'utf8'),
    lexical: encodeFlatLexical(contents.lexical),
  };
  const vectors: Record<string, string> = {};
  for (const name of PAIRED) {
    const version = folder.version(name);
    if (version !== undefined) vectors[name] = version;
  }
  // The header's length depends on the offsets it lists: lay the sections out after a generous bound.
  const layout = (start: number): { header: SnapshotHeader; length: number } => {
    let at = start;
    const sections = {} as Record<Section, readonly [number, number]>;
    for (const section of SECTIONS) {
      sections[section] = [at, bodies[section].length];
      at = align8(at + bodies[section].length);
    }
    const header = {
      format: SNAPSHOT_FORMAT,
      ...identity,
      count: ids.length,
      lexicalFormat: [LEXICAL_FORMAT_VERSION, FLAT_LEXICAL_VERSION] as const,
      vectors,
      sections,
    };
    return { header, length: at };
  };
  const start = align8(8 + Buffer.byteLength(JSON.stringify(layout(0).header), 'utf8') + 256);
  const { header, length } = layout(start);
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const file = Buffer.alloc(length);
  file.write(MAGIC, 0, 'latin1');
  file.writeUInt32LE(headerBytes.length, 4);
  headerBytes.copy(file, 8);
  for (const section of SECTIONS) bodies[section].copy(file, header.sections[section][0]);
  const written = folder.write(SEARCH_SNAPSHOT_ARTEFACT, file, { format: SNAPSHOT_FORMAT, meta: { ...identity, vectors } });
  folder.commit([written]);
}

/** The saved snapshot of `identity`, or why there is none to search; its sections are read on the thread pool. */
export async function openSearchSnapshot(folder: IndexFolder, identity: SnapshotIdentity): Promise<OpenedSnapshot | { readonly reason: string }> {
  if (!hasSearchSnapshot(folder, identity)) return { reason: 'no search snapshot of this catalog' };
  const checked = folder.check(SEARCH_SNAPSHOT_ARTEFACT, SNAPSHOT_FORMAT);
  if ('reason' in checked) return checked;
  let fd: number;
  try {
    fd = openSync(checked.path, 'r');
  } catch {
    return { reason: `search file ${checked.entry.file} is missing` };
  }
  try {
    return await decode(fd, checked.entry.size, identity);
  } catch (error) {
    closeSync(fd);
    // Its checksum held, so rereading it would fail alike: the next save writes a new one.
    try {
      folder.discard(SEARCH_SNAPSHOT_ARTEFACT);
    } catch {
      // A read-only folder: the live index answers meanwhile all the same.
    }
    return { reason: `search snapshot is unreadable: ${(error as Error).message}` };
  }
}

/** `length` bytes of the file at `position`; throws when the file ends first. */
function readAt(fd: number, position: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const read = readSync(fd, bytes, done, length - done, position + done);
    if (read === 0) throw new Error('file ends early');
    done += read;
  }
  return bytes;
}

/** `length` bytes of the file at `position`, read on the thread pool; rejects when the file ends first. */
async function readAtAsync(fd: number, position: number, length: number): Promise<Buffer> {
  const bytes = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const count = await new Promise<number>((resolve, reject) => {
      read(fd, bytes, done, length - done, position + done, (error, bytesRead) => (error === null ? resolve(bytesRead) : reject(error)));
    });
    if (count === 0) throw new Error('file ends early');
    done += count;
  }
  return bytes;
}

/** Reads every section but the records, which stay in the file (`fd`, kept open) until a query reaches one. */
async function decode(fd: number, size: number, identity: SnapshotIdentity): Promise<OpenedSnapshot> {
  const start = readAt(fd, 0, Math.min(size, 8));
  if (start.length < 8 || start.toString('latin1', 0, 4) !== MAGIC) throw new Error('not a search snapshot');
  const headerLength = start.readUInt32LE(4);
  if (8 + headerLength > size) throw new Error('header runs past the end');
  const header = JSON.parse(readAt(fd, 8, headerLength).toString('utf8')) as SnapshotHeader;
  if (header.format !== SNAPSHOT_FORMAT || header.sourceStamp !== identity.sourceStamp || header.model !== identity.model) {
    throw new Error('header does not match its manifest entry');
  }
  const [terms, layout] = Array.isArray(header.lexicalFormat) ? header.lexicalFormat : [];
  if (terms !== LEXICAL_FORMAT_VERSION || layout !== FLAT_LEXICAL_VERSION) {
    throw new Error(`lexical format ${String(terms)}/${String(layout)} ≠ ${LEXICAL_FORMAT_VERSION}/${FLAT_LEXICAL_VERSION}`);
  }
  const where = (name: Section): readonly [number, number] => {
    const [offset, length] = header.sections?.[name] ?? [];
    if (!Number.isInteger(offset) || !Number.isInteger(length) || offset! < 8 + headerLength || offset! + length! > size) {
      throw new Error(`section ${name} is out of bounds`);
    }
    return [offset!, length!];
  };
  // Every section but the records at once, so the reads overlap each other and the caller's work;
  // all settle before a failure is thrown, since the caller then closes the file.
  const wanted = SECTIONS.filter((name) => name !== 'records').map((name) => [name, where(name)] as const);
  const reads = await Promise.allSettled(wanted.map(([, [offset, length]]) => readAtAsync(fd, offset, length)));
  const bodies = new Map<Section, Buffer>();
  reads.forEach((result, i) => {
    if (result.status === 'rejected') throw result.reason;
    bodies.set(wanted[i]![0], result.value);
  });
  const section = (name: Section): Buffer => bodies.get(name)!;
  const count = header.count;
  const ids = new TextColumn(section('ids'), rowsOf(section('idEnds'), count, 'idEnds'));
  const names = new TextColumn(section('names'), rowsOf(section('nameEnds'), count, 'nameEnds'));
  const diagnostics: unknown = JSON.parse(section('diagnostics').toString('utf8'));
  if (!Array.isArray(diagnostics)) throw new Error('diagnostics are not a list');
  const idOrder = rowsOf(section('idOrder'), count, 'idOrder');
  const nameOrder = rowsOf(section('nameOrder'), count, 'nameOrder');
  const offsets = rowsOf(section('offsets'), count + 1, 'offsets');
  const [recordsAt, recordsLength] = where('records');
  if (offsets[count] !== recordsLength) throw new Error('records end elsewhere than their offsets say');
  const lexical = FlatLexicalIndex.open(section('lexical'));
  if (lexical.size !== count) throw new Error(`lexical index holds ${lexical.size} skills, the snapshot ${count}`);
  const skills = new SnapshotSkills({ ids, idOrder, offsets, read: (from, to) => readAt(fd, recordsAt + from, to - from) });
  return {
    skills,
    idsNamed: (name) => {
      const rows = names.equalRange(name, nameOrder);
      return rows.length === 0 ? undefined : rows.map((row) => ids.at(row));
    },
    diagnostics: diagnostics as Diagnostic[],
    lexical,
    close: () => closeSync(fd),
  };
}

/** A section of `count` u32 values, copied out (a section need not be 4-byte aligned in its buffer). */
function rowsOf(bytes: Buffer, count: number, name: string): Uint32Array {
  if (bytes.length !== count * 4) throw new Error(`${name} does not list every skill`);
  const rows = new Uint32Array(count);
  Buffer.from(rows.buffer).set(bytes);
  return rows;
}

interface SkillRows {
  /** Skill ids in catalog order (unique). */
  readonly ids: TextColumn;
  /** Rows sorted by the bytes of their id. */
  readonly idOrder: Uint32Array;
  /** Where each row's record starts in the records section, plus where the last one ends. */
  readonly offsets: Uint32Array;
  /** The records section's bytes from `from` to `to`. */
  readonly read: (from: number, to: number) => Buffer;
}

/**
 * The snapshot's skills by id (a binary search of the sorted ids), each decoded from its record
 * on first read: a query reads a few dozen of tens of thousands. Read-only; iterating decodes
 * every record.
 */
class SnapshotSkills implements ReadonlyMap<string, Skill> {
  readonly #rows: SkillRows;
  readonly #decoded = new Map<number, Skill>();
  /** Rows found by id (-1 for none): ranking asks for each candidate many times. */
  readonly #found = new Map<string, number>();

  constructor(rows: SkillRows) {
    this.#rows = rows;
  }

  get size(): number {
    return this.#rows.ids.length;
  }

  has(id: string): boolean {
    return this.#rowOf(id) !== undefined;
  }

  get(id: string): Skill | undefined {
    const row = this.#rowOf(id);
    return row === undefined ? undefined : this.#skillAt(row);
  }

  *entries(): MapIterator<[string, Skill]> {
    for (let row = 0; row < this.#rows.ids.length; row += 1) yield [this.#rows.ids.at(row), this.#skillAt(row)];
  }

  *keys(): MapIterator<string> {
    for (let row = 0; row < this.#rows.ids.length; row += 1) yield this.#rows.ids.at(row);
  }

  *values(): MapIterator<Skill> {
    for (let row = 0; row < this.#rows.ids.length; row += 1) yield this.#skillAt(row);
  }

  forEach(callback: (value: Skill, key: string, map: ReadonlyMap<string, Skill>) => void, thisArg?: unknown): void {
    for (const [id, skill] of this.entries()) callback.call(thisArg, skill, id, this);
  }

  [Symbol.iterator](): MapIterator<[string, Skill]> {
    return this.entries();
  }

  #rowOf(id: string): number | undefined {
    let row = this.#found.get(id);
    if (row === undefined) {
      row = this.#rows.ids.equalRange(id, this.#rows.idOrder)[0] ?? -1;
      this.#found.set(id, row);
    }
    return row < 0 ? undefined : row;
  }

  #skillAt(row: number): Skill {
    let skill = this.#decoded.get(row);
    if (skill === undefined) {
      const { ids, offsets, read } = this.#rows;
      const record = JSON.parse(read(offsets[row]!, offsets[row + 1]!).toString('utf8')) as Skill;
      if (typeof record !== 'object' || record === null || record.id !== ids.at(row) || typeof record.name !== 'string') {
        throw new Error(`search snapshot: record ${row} is not skill ${ids.at(row)}`);
      }
      if (record.keywords !== undefined) Object.freeze(record.keywords);
      skill = Object.freeze(record);
      this.#decoded.set(row, skill);
    }
    return skill;
  }
}

function sameVectors(folder: IndexFolder, recorded: unknown): boolean {
  if (typeof recorded !== 'object' || recorded === null) return false;
  const versions = recorded as Record<string, unknown>;
  return PAIRED.every((name) => versions[name] === folder.version(name));
}

function bytesOf(rows: Uint32Array): Buffer {
  return Buffer.from(rows.buffer, rows.byteOffset, rows.byteLength);
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}
