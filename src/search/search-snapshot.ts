import type { IndexFolder } from '../index-folder/index-folder.js';
import { encodeFlatLexical, FlatLexicalIndex } from '../lexical/flat-lexical.js';
import { FLAT_LEXICAL_VERSION } from '../lexical/flat-lexical-layout.js';
import { LEXICAL_FORMAT_VERSION, type LexicalIndex, type LexicalSearcher } from '../lexical/lexical-index.js';
import type { Diagnostic, Skill } from '../types.js';
import { VECTOR_DATA, VECTOR_ENTRIES } from '../vector-index/store.js';

/**
 * The catalog an engine last synced, saved in its index folder (artefact `search`) with the
 * lexical index it was searched with, so a cold process whose catalog has not changed (equal
 * `sourceStamp`, see `src/load/source-stamp.ts`) searches without building the catalog at all:
 * skill records are decoded only for the candidates a query reaches, the lexical index is read
 * as saved, and the vectors come from the vector index the snapshot names. See docs/index-folder.md.
 *
 * Layout (little-endian): `SKSN`, the header's byte length (u32), the header (JSON), then its
 * sections, each 8-byte aligned: `ids` and `names` (JSON arrays in catalog order), `offsets`
 * (u32 per record, plus the end), `records` (each skill as JSON), `diagnostics` (the catalog's
 * load problems, JSON) and `lexical` (`flat-lexical.ts`: searched in place, nothing decoded).
 */
export const SEARCH_SNAPSHOT_ARTEFACT = 'search';
/** Bump when the layout or the meaning of a section changes. */
const SNAPSHOT_FORMAT = 3;
const MAGIC = 'SKSN';
const SECTIONS = ['ids', 'names', 'offsets', 'records', 'diagnostics', 'lexical'] as const;
type Section = (typeof SECTIONS)[number];
/** The vector artefacts whose state a snapshot pairs with. */
const PAIRED = [VECTOR_DATA, VECTOR_ENTRIES] as const;

/** What a snapshot must match to be searched: the catalog's stamp and the engine's model (with its text version). */
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
  /** Normalised name → ids, in catalog order. */
  readonly names: Map<string, string[]>;
  readonly diagnostics: readonly Diagnostic[];
  readonly lexical: LexicalSearcher;
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
  const bodies: Record<Section, Buffer> = {
    ids: Buffer.from(JSON.stringify(ids), 'utf8'),
    names: Buffer.from(JSON.stringify(names), 'utf8'),
    offsets: Buffer.from(offsets.buffer, offsets.byteOffset, offsets.byteLength),
    records: Buffer.concat(records),
    diagnostics: Buffer.from(JSON.stringify(contents.diagnostics), 'utf8'),
    lexical: encodeFlatLexical(contents.lexical),
  };
  const vectors = Object.fromEntries(PAIRED.flatMap((name) => (folder.version(name) === undefined ? [] : [[name, folder.version(name)!]])));
  // The header's length depends on the offsets it lists: lay the sections out after a generous bound.
  const draft = (start: number): SnapshotHeader => {
    let at = start;
    const sections = {} as Record<Section, readonly [number, number]>;
    for (const section of SECTIONS) {
      sections[section] = [at, bodies[section].length];
      at = align8(at + bodies[section].length);
    }
    return { format: SNAPSHOT_FORMAT, ...identity, count: ids.length, lexicalFormat: [LEXICAL_FORMAT_VERSION, FLAT_LEXICAL_VERSION], vectors, sections };
  };
  const bound = Buffer.byteLength(JSON.stringify(draft(0)), 'utf8') + 256;
  const start = align8(8 + bound);
  const header = Buffer.from(JSON.stringify(draft(start)), 'utf8');
  const file = Buffer.alloc(start + SECTIONS.reduce((sum, section) => align8(sum + bodies[section].length), 0));
  file.write(MAGIC, 0, 'latin1');
  file.writeUInt32LE(header.length, 4);
  header.copy(file, 8);
  const { sections } = draft(start);
  for (const section of SECTIONS) bodies[section].copy(file, sections[section][0]);
  const written = folder.write(SEARCH_SNAPSHOT_ARTEFACT, file, { format: SNAPSHOT_FORMAT, meta: { ...identity, vectors } });
  folder.commit([written]);
}

/** The saved snapshot of `identity`, or why there is none to search. */
export function openSearchSnapshot(folder: IndexFolder, identity: SnapshotIdentity): OpenedSnapshot | { readonly reason: string } {
  if (!hasSearchSnapshot(folder, identity)) return { reason: 'no search snapshot of this catalog' };
  const read = folder.read(SEARCH_SNAPSHOT_ARTEFACT, SNAPSHOT_FORMAT);
  if ('reason' in read) return read;
  try {
    return decode(read.bytes, identity);
  } catch (error) {
    // Its checksum held, so rereading it would fail alike: the next save writes a new one.
    try {
      folder.discard(SEARCH_SNAPSHOT_ARTEFACT);
    } catch {
      // A read-only folder: the live index answers meanwhile all the same.
    }
    return { reason: `search snapshot is unreadable: ${(error as Error).message}` };
  }
}

function decode(bytes: Buffer, identity: SnapshotIdentity): OpenedSnapshot {
  if (bytes.length < 8 || bytes.toString('latin1', 0, 4) !== MAGIC) throw new Error('not a search snapshot');
  const headerLength = bytes.readUInt32LE(4);
  const header = JSON.parse(bytes.toString('utf8', 8, 8 + headerLength)) as SnapshotHeader;
  if (header.format !== SNAPSHOT_FORMAT || header.sourceStamp !== identity.sourceStamp || header.model !== identity.model) {
    throw new Error('header does not match its manifest entry');
  }
  const [terms, layout] = Array.isArray(header.lexicalFormat) ? header.lexicalFormat : [];
  if (terms !== LEXICAL_FORMAT_VERSION || layout !== FLAT_LEXICAL_VERSION) {
    throw new Error(`lexical format ${String(terms)}/${String(layout)} ≠ ${LEXICAL_FORMAT_VERSION}/${FLAT_LEXICAL_VERSION}`);
  }
  const section = (name: Section): Buffer => {
    const [offset, length] = header.sections?.[name] ?? [];
    if (!Number.isInteger(offset) || !Number.isInteger(length) || offset! < 8 + headerLength || offset! + length! > bytes.length) {
      throw new Error(`section ${name} is out of bounds`);
    }
    return bytes.subarray(offset, offset! + length!);
  };
  const ids: unknown = JSON.parse(section('ids').toString('utf8'));
  const names: unknown = JSON.parse(section('names').toString('utf8'));
  const diagnostics: unknown = JSON.parse(section('diagnostics').toString('utf8'));
  if (!Array.isArray(diagnostics)) throw new Error('diagnostics are not a list');
  const offsetBytes = section('offsets');
  const records = section('records');
  if (!isStringArray(ids) || !isStringArray(names) || ids.length !== header.count || names.length !== header.count) {
    throw new Error('ids or names do not list every skill');
  }
  if (offsetBytes.length !== (header.count + 1) * 4) throw new Error('offsets do not list every skill');
  const offsets = new Uint32Array(header.count + 1);
  Buffer.from(offsets.buffer).set(offsetBytes);
  if (offsets[header.count] !== records.length) throw new Error('records end elsewhere than their offsets say');
  const lexical = FlatLexicalIndex.open(section('lexical'));
  if (lexical.size !== header.count) throw new Error(`lexical index holds ${lexical.size} skills, the snapshot ${header.count}`);
  const byName = new Map<string, string[]>();
  for (const [i, name] of names.entries()) {
    const listed = byName.get(name);
    if (listed === undefined) byName.set(name, [ids[i]!]);
    else listed.push(ids[i]!);
  }
  return { skills: new SnapshotSkills(ids, offsets, records), names: byName, diagnostics: diagnostics as Diagnostic[], lexical };
}

/**
 * The snapshot's skills by id, each decoded from its record on first read (a query reads a few
 * dozen of tens of thousands). Read-only: iterating decodes every record.
 */
class SnapshotSkills implements ReadonlyMap<string, Skill> {
  readonly #ids: readonly string[];
  readonly #offsets: Uint32Array;
  readonly #records: Buffer;
  readonly #rows = new Map<string, number>();
  readonly #decoded = new Map<number, Skill>();

  constructor(ids: readonly string[], offsets: Uint32Array, records: Buffer) {
    this.#ids = ids;
    this.#offsets = offsets;
    this.#records = records;
    // First wins, as in a sync (ids are unique in a saved catalog).
    for (const [row, id] of ids.entries()) if (!this.#rows.has(id)) this.#rows.set(id, row);
  }

  get size(): number {
    return this.#rows.size;
  }

  has(id: string): boolean {
    return this.#rows.has(id);
  }

  get(id: string): Skill | undefined {
    const row = this.#rows.get(id);
    return row === undefined ? undefined : this.#skillAt(row);
  }

  *entries(): MapIterator<[string, Skill]> {
    for (const [id, row] of this.#rows) yield [id, this.#skillAt(row)];
  }

  keys(): MapIterator<string> {
    return this.#rows.keys();
  }

  *values(): MapIterator<Skill> {
    for (const row of this.#rows.values()) yield this.#skillAt(row);
  }

  forEach(callback: (value: Skill, key: string, map: ReadonlyMap<string, Skill>) => void, thisArg?: unknown): void {
    for (const [id, skill] of this.entries()) callback.call(thisArg, skill, id, this);
  }

  [Symbol.iterator](): MapIterator<[string, Skill]> {
    return this.entries();
  }

  #skillAt(row: number): Skill {
    let skill = this.#decoded.get(row);
    if (skill === undefined) {
      const record = JSON.parse(this.#records.toString('utf8', this.#offsets[row], this.#offsets[row + 1])) as Skill;
      if (typeof record !== 'object' || record === null || record.id !== this.#ids[row] || typeof record.name !== 'string') {
        throw new Error(`search snapshot: record ${row} is not skill ${this.#ids[row]}`);
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

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}
