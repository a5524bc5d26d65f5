import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256Hex } from '../util/hash.js';
import { count, number, object, optional, record, shapeIssue, shapeProblem, string, unknown } from '../util/shape.js';
import { commitTempFile, mkdirPrivate, removeStaleTempFiles, tempPathFor, writeFileAtomic } from '../vector-index/atomic-file.js';
import { type FileStamp, sameStamp, stampOf } from '../vector-index/file-stamp.js';
import { appendLog, readLog } from './delta-log.js';

/**
 * One index folder, described by one manifest (`index.json`): the folder's layout version, the
 * model and dimensions its vectors were made with, and one entry per artefact (the vector
 * data, the vector entries, the lexical index, the language cache): its file, its own format
 * version, size, sha256, the stamp the file had right after it was written, and the name of
 * its append-only delta log (`delta-log.ts`). Every store persists through this class, so
 * headers, versions, checksums and crash safety live here once. See docs/index-folder.md.
 *
 * Writing an artefact: its bytes go to a temp file → fsync → rename to `<name>-<sha16>.bin`
 * (never rewritten in place) → the manifest is rewritten the same way (re-read first, so
 * artefacts written meanwhile by another store or process are kept) → only then the superseded
 * file and log are removed. A crash at any point leaves a manifest naming complete files.
 * Reading: a file whose stamp (size, mtime, inode) still matches its entry is trusted without
 * hashing (it was hashed when written); any other is hashed, and a mismatch means "rebuild
 * that artefact", with the reason.
 */
export const MANIFEST_FILE = 'index.json';
/** The layout of the folder; another value means "rebuild everything". */
export const LAYOUT_VERSION = 2;

/** Files of the layout before the manifest, by the artefact that replaces them. */
const LEGACY_FILES: Readonly<Record<string, RegExp>> = {
  'vector-data': /^(vectors\.json|vectors\.delta|vectors-(hnsw|exact)-[0-9a-f]{16}\.bin|embeddings-[0-9a-f]{16}\.bin(\.delta|\.stamp)?)$/,
  lexical: /^lexical\.(bin|json|delta\.json)(\.stamp)?$/,
  languages: /^cross-lingual\.json$/,
};
const ARTEFACT_FILE = /^[a-z][a-z-]*-[0-9a-f]{16}\.(bin|log)$/;
/** Unreferenced artefact files (a writer died between renaming its file and the manifest) go after this long. */
const ORPHAN_AGE_MS = 60_000;

export interface Artefact {
  /** `<name>-<sha16>.bin` in the folder. */
  readonly file: string;
  /** The artefact's own format version. */
  readonly format: number;
  readonly size: number;
  readonly sha256: string;
  /** The file's stamp right after it was written. */
  readonly stamp: FileStamp;
  /** Its delta log, `<name>-<sha16>.log`. */
  readonly log: string;
  /** Small facts the artefact's store wants next to it (e.g. the vector index kind). */
  readonly meta?: Record<string, unknown>;
}

interface Manifest {
  readonly format: number;
  readonly model?: string;
  readonly dimensions?: number;
  readonly artefacts: Readonly<Record<string, Artefact>>;
}

const artefactShape = object({
  file: string({ pattern: ARTEFACT_FILE }),
  format: number,
  size: count,
  sha256: string({ pattern: /^[0-9a-f]{64}$/ }),
  stamp: object({ size: number, mtimeMs: number, ino: number }),
  log: string({ pattern: ARTEFACT_FILE }),
  meta: optional(record(unknown)),
});

const manifestShape = object({
  format: number,
  model: optional(string()),
  dimensions: optional(number),
  artefacts: record(artefactShape),
});

/** A file of an artefact written and renamed into place, not yet named by the manifest. */
export interface WrittenArtefact {
  readonly name: string;
  readonly entry: Artefact;
  /** The file's bytes as written, when the writer had them. */
  readonly bytes?: Buffer;
}

export type CheckedArtefact = { readonly path: string; readonly entry: Artefact } | { readonly reason: string };

export type ReadArtefact = { readonly bytes: Buffer; readonly entry: Artefact } | { readonly reason: string };

/** The bytes read for a checked entry: the stamp vouched for the file, so a size that moved since means it was replaced meanwhile. */
function readBytes(name: string, entry: Artefact, bytes: Buffer): ReadArtefact {
  return bytes.length === entry.size ? { bytes, entry } : { reason: `${name} file ${entry.file} fails its checksum` };
}

export class IndexFolder {
  readonly dir: string;
  /** Why the manifest found at open could not be used (every artefact then rebuilds); undefined when it could or there was none. */
  readonly problem: string | undefined;
  /** Files of the layout before the manifest found at open. */
  readonly legacy: readonly string[];
  #manifest: Manifest;

  private constructor(dir: string, manifest: Manifest, problem: string | undefined, legacy: readonly string[]) {
    this.dir = dir;
    this.#manifest = manifest;
    this.problem = problem;
    this.legacy = legacy;
  }

  /** Creates the folder (0700) when missing and reads its manifest; never throws for a bad manifest. */
  static open(dir: string): IndexFolder {
    mkdirPrivate(dir);
    removeStaleTempFiles(dir);
    const read = readManifest(dir);
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      // Unreadable folder: nothing legacy to find, writes will report it.
    }
    const legacy = names.filter(isLegacyFile);
    return 'manifest' in read ? new IndexFolder(dir, read.manifest, undefined, legacy) : new IndexFolder(dir, emptyManifest(), read.problem, legacy);
  }

  /** The model id the folder's vectors were made with. */
  get model(): string | undefined {
    return this.#manifest.model;
  }

  get dimensions(): number | undefined {
    return this.#manifest.dimensions;
  }

  entry(name: string): Artefact | undefined {
    return Object.hasOwn(this.#manifest.artefacts, name) ? this.#manifest.artefacts[name] : undefined;
  }

  path(file: string): string {
    return join(this.dir, file);
  }

  /** The artefact's file when it is as written: its stamp matches, or its bytes hash to the recorded checksum. */
  check(name: string, format: number): CheckedArtefact {
    const entry = this.entry(name);
    if (entry === undefined) return { reason: this.problem ?? `no ${name} in ${MANIFEST_FILE}` };
    if (entry.format !== format) return { reason: `${name} format ${String(entry.format)} ≠ ${format}` };
    const path = this.path(entry.file);
    const stamp = stampOf(path);
    if (sameStamp(entry.stamp, stamp)) return { path, entry };
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      return { reason: `${name} file ${entry.file} is missing` };
    }
    if (bytes.length !== entry.size || sha256Hex(bytes) !== entry.sha256) return { reason: `${name} file ${entry.file} fails its checksum` };
    if (stamp !== undefined) this.#restamp(name, entry.file, stamp);
    return { path, entry };
  }

  /**
   * Records the stamp of an artefact file whose bytes were just found intact although its stamp
   * had moved (a copied or restored folder), so later opens trust it without hashing again. Only
   * that entry changes in memory: this process keeps the view of the folder it opened. Best
   * effort: a read-only folder keeps hashing.
   */
  #restamp(name: string, file: string, stamp: FileStamp): void {
    const restamped = (artefacts: Readonly<Record<string, Artefact>>) => {
      const entry = Object.hasOwn(artefacts, name) ? artefacts[name] : undefined;
      return entry?.file === file ? { ...artefacts, [name]: { ...entry, stamp } } : undefined;
    };
    try {
      this.#rewriteManifest((base) => {
        const artefacts = restamped(base.artefacts);
        return artefacts === undefined ? undefined : { ...base, artefacts };
      });
    } catch {
      return; // Left as it was: the next open hashes the file again.
    }
    const artefacts = restamped(this.#manifest.artefacts);
    if (artefacts !== undefined) this.#manifest = { ...this.#manifest, artefacts };
  }

  /** {@link check}, then the bytes. */
  read(name: string, format: number): ReadArtefact {
    const checked = this.check(name, format);
    if ('reason' in checked) return checked;
    let bytes: Buffer;
    try {
      bytes = readFileSync(checked.path);
    } catch {
      return { reason: `${name} file ${checked.entry.file} is missing` };
    }
    return readBytes(name, checked.entry, bytes);
  }

  /** {@link read} with the bytes read on the thread pool (a cold process has other work meanwhile). */
  async readAsync(name: string, format: number): Promise<ReadArtefact> {
    const checked = this.check(name, format);
    if ('reason' in checked) return checked;
    let bytes: Buffer;
    try {
      bytes = await readFile(checked.path);
    } catch {
      return { reason: `${name} file ${checked.entry.file} is missing` };
    }
    return readBytes(name, checked.entry, bytes);
  }

  /**
   * Writes a new base file for artefact `name`, from bytes or through `writeTo(tempPath)` (a
   * native writer), and renames it into place under its content name. Call {@link commit} to
   * make the manifest name it.
   */
  write(name: string, data: Uint8Array | ((temp: string) => void), options: { format: number; meta?: Record<string, unknown> }): WrittenArtefact {
    let bytes: Buffer;
    const temp = tempPathFor(join(this.dir, name));
    if (typeof data === 'function') {
      try {
        data(temp);
        bytes = readFileSync(temp);
      } catch (error) {
        rmSync(temp, { force: true });
        throw error;
      }
    } else {
      bytes = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    }
    const sha256 = sha256Hex(bytes);
    const file = `${name}-${sha256.slice(0, 16)}.bin`;
    const path = this.path(file);
    if (typeof data === 'function') {
      try {
        commitTempFile(temp, path);
      } catch (error) {
        rmSync(temp, { force: true });
        throw error;
      }
    } else {
      writeFileAtomic(path, bytes);
    }
    const stamp: FileStamp = stampOf(path) ?? { size: bytes.length, mtimeMs: 0, ino: 0 };
    const entry: Artefact = {
      file,
      format: options.format,
      size: bytes.length,
      sha256,
      stamp,
      log: `${name}-${sha256.slice(0, 16)}.log`,
      ...(options.meta === undefined ? {} : { meta: options.meta }),
    };
    return { name, entry, bytes };
  }

  /**
   * Makes the manifest name `written` (together, in one atomic rename) and, when given, the
   * model and dimensions; then removes the files and logs they supersede, files of the old
   * layout they replace, and unreferenced artefact files older than a minute.
   */
  commit(written: readonly WrittenArtefact[], folder: { model?: string; dimensions?: number } = {}): void {
    const superseded: string[] = [];
    const manifest = this.#rewriteManifest((base) => {
      const artefacts = { ...base.artefacts };
      for (const { name, entry } of written) {
        const previous = artefacts[name];
        if (previous !== undefined) {
          if (previous.file !== entry.file) superseded.push(previous.file);
          if (previous.log !== entry.log) superseded.push(previous.log);
        }
        artefacts[name] = entry;
      }
      const model = folder.model ?? base.model;
      const dimensions = folder.dimensions ?? base.dimensions;
      return { format: LAYOUT_VERSION, ...(model === undefined ? {} : { model }), ...(dimensions === undefined ? {} : { dimensions }), artefacts };
    })!;
    this.#manifest = manifest;
    const { artefacts } = manifest;
    const referenced = new Set(Object.values(artefacts).flatMap((entry) => [entry.file, entry.log]));
    for (const file of superseded) if (!referenced.has(file)) this.#removeQuietly(file);
    for (const { name } of written) {
      const pattern = LEGACY_FILES[name];
      if (pattern !== undefined) for (const file of this.legacy) if (pattern.test(file)) this.#removeQuietly(file);
    }
    this.#removeOrphans(referenced);
  }

  /**
   * Drops artefact `name` from the manifest and removes its file and log: for an artefact found
   * unusable although its checksum holds (written by a buggy or foreign writer), so the next
   * save writes it anew instead of trusting it.
   */
  discard(name: string): void {
    const dropped: Artefact[] = [];
    // An unreadable manifest on disk is replaced by the one this process read, less `name`.
    const manifest = this.#rewriteManifest((base) => {
      if (!Object.hasOwn(base.artefacts, name)) return undefined;
      const { [name]: entry, ...artefacts } = base.artefacts;
      dropped.push(entry!);
      return { ...base, artefacts };
    }, this.#manifest);
    if (manifest !== undefined) this.#manifest = manifest;
    for (const entry of dropped) {
      this.#removeQuietly(entry.file);
      this.#removeQuietly(entry.log);
    }
  }

  /**
   * Writes `update` of the manifest on disk (re-read, since another process may have committed
   * since this one opened; `unreadable` when it cannot be read) atomically and returns it; writes
   * nothing when `update` returns undefined.
   */
  #rewriteManifest(update: (base: Manifest) => Manifest | undefined, unreadable: Manifest = emptyManifest()): Manifest | undefined {
    const onDisk = readManifest(this.dir);
    const manifest = update('manifest' in onDisk ? onDisk.manifest : unreadable);
    if (manifest === undefined) return undefined;
    writeFileAtomic(join(this.dir, MANIFEST_FILE), JSON.stringify(manifest));
    return manifest;
  }

  /** A file the manifest no longer names; one still open elsewhere (Windows refuses) goes with the orphans later. */
  #removeQuietly(file: string): void {
    try {
      rmSync(this.path(file), { force: true });
    } catch {
      // Left for #removeOrphans.
    }
  }

  /**
   * The artefact's state as one string: its base file and how many bytes its delta log holds
   * (a log only grows until the next base). Another artefact derived from this one records it,
   * to tell later whether it still describes the same data. Undefined without an entry.
   */
  version(name: string): string | undefined {
    const entry = this.entry(name);
    if (entry === undefined) return undefined;
    let logged = 0;
    try {
      logged = statSync(this.path(entry.log)).size;
    } catch {
      // No log yet: nothing appended.
    }
    return `${entry.file}+${logged}`;
  }

  /** Appends one record of changes to the artefact's delta log. */
  appendLog(name: string, record: Uint8Array): void {
    const entry = this.entry(name);
    if (entry === undefined) throw new Error(`no ${name} artefact to log changes against`);
    appendLog(this.path(entry.log), record);
  }

  /** The valid records of the artefact's delta log, oldest first. */
  readLog(name: string): readonly Buffer[] {
    const entry = this.entry(name);
    return entry === undefined ? [] : readLog(this.path(entry.log)).records;
  }

  #removeOrphans(referenced: ReadonlySet<string>): void {
    const now = Date.now();
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      // A file of the older layout looks like an artefact but is ours to salvage until its replacement is written.
      if (referenced.has(name) || !ARTEFACT_FILE.test(name) || isLegacyFile(name)) continue;
      try {
        if (now - statSync(this.path(name)).mtimeMs >= ORPHAN_AGE_MS) rmSync(this.path(name), { force: true });
      } catch {
        // Removed by another writer meanwhile.
      }
    }
  }
}

function isLegacyFile(name: string): boolean {
  return Object.values(LEGACY_FILES).some((pattern) => pattern.test(name));
}

function emptyManifest(): Manifest {
  return { format: LAYOUT_VERSION, artefacts: {} };
}

function readManifest(dir: string): { manifest: Manifest } | { problem: string | undefined } {
  let text: string;
  try {
    text = readFileSync(join(dir, MANIFEST_FILE), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === 'ENOENT' ? undefined : `${MANIFEST_FILE} is unreadable (${String(code)})` };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { problem: `${MANIFEST_FILE} is not valid JSON` };
  }
  const issue = shapeIssue(manifestShape, data);
  if (issue !== undefined) return { problem: `${MANIFEST_FILE} has the wrong shape (${shapeProblem(issue)})` };
  const manifest = data as Manifest;
  if (manifest.format !== LAYOUT_VERSION) return { problem: `${MANIFEST_FILE} layout ${String(manifest.format)} ≠ ${LAYOUT_VERSION}` };
  return { manifest };
}
