import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { commitTempFile, mkdirPrivate, removeStaleTempFiles, sha256, tempPathFor, writeFileAtomic } from './atomic-file.js';
import { ExactIndex } from './exact-index.js';
import { HnswIndex, type HnswOptions } from './hnsw-index.js';
import { shapeProblem } from './atomic-file.js';
import { sameStamp, stampOf } from './file-stamp.js';
import { applyDelta, DELTA_FILE, deltaSince, writeDelta } from './store-delta.js';
import type { PersistedEntry, VectorIndex, VectorIndexKind } from './vector-index.js';

/**
 * On-disk layout of a vector index, in one folder:
 *
 * - `vectors-<kind>-<sha>.bin`: the data (hnswlib graph or raw rows), named by its own
 *   checksum and never rewritten in place;
 * - `vectors.json`: the manifest — format version, kind, model id, dimensions, the data
 *   file's name and sha256, and every entry (skill id, tag, label).
 *
 * Save order: data to a temp file → fsync → rename to its content name → manifest the same
 * way → only then delete the previous data file. A crash at any point leaves the old
 * manifest naming the old, still present, data file (or a new pair that is complete), so a
 * reader never loads something half-written. A save that changes few entries writes only
 * `vectors.delta` (see `store-delta.ts`) and leaves the data file and manifest alone;
 * a full save removes the delta after the manifest. On open any doubt — unreadable manifest, other
 * model/dimensions/format/kind, checksum mismatch, missing file — means "rebuild". A data file
 * that still matches the stamp in the manifest (`file-stamp.ts`) is not read nor hashed in JS.
 */
export const VECTOR_FORMAT_VERSION = 1;
export const MANIFEST_FILE = 'vectors.json';
const DATA_FILE = /^vectors-(hnsw|exact)-[0-9a-f]{16}\.bin$/;
/**
 * A save writes a delta instead of the whole data file while the changes since that file
 * number at most this many and this share of the entries. A delta is replayed at every open,
 * and each replayed upsert is an HNSW insertion (about a millisecond), hence the low cap.
 */
const DELTA_MAX_ENTRIES = 256;
const DELTA_MAX_SHARE = 0.1;

/** The manifest as read: anything else (`null`, a list, a missing field) means "rebuild". */
const ManifestSchema = z.object({
  format: z.number(),
  kind: z.enum(['hnsw', 'exact']),
  model: z.string(),
  dimensions: z.number(),
  count: z.number().int().nonnegative(),
  dataFile: z.string(),
  dataSha256: z.string(),
  /** The data file's size, mtime and inode right after it was checksummed: a match spares the hash. */
  dataStamp: z.object({ size: z.number(), mtimeMs: z.number(), ino: z.number() }).optional(),
  /** [id, tag, label] triples, checked by `isEntry`: zod would cost 2–3× the JSON parse on a large catalog. */
  entries: z.array(z.unknown()),
});
type Manifest = Omit<z.infer<typeof ManifestSchema>, 'entries'> & { readonly entries: readonly Entry[] };
type Entry = readonly [string, string, number];

function isEntry(value: unknown): value is Entry {
  return (
    Array.isArray(value) &&
    value.length === 3 &&
    typeof value[0] === 'string' &&
    typeof value[1] === 'string' &&
    Number.isSafeInteger(value[2]) &&
    (value[2] as number) >= 0
  );
}

export interface VectorStoreOptions {
  readonly kind: VectorIndexKind;
  readonly model: string;
  readonly dimensions: number;
  /** Folder to persist into; in-memory only when absent. */
  readonly dir?: string;
  readonly hnsw?: HnswOptions;
}

export type VectorStoreStatus =
  | { readonly state: 'memory' }
  | { readonly state: 'created' }
  | { readonly state: 'loaded'; readonly count: number }
  | { readonly state: 'rebuilt'; readonly reason: string };

export function createVectorIndex(kind: VectorIndexKind, dimensions: number, hnsw?: HnswOptions): VectorIndex {
  return kind === 'hnsw' ? new HnswIndex(dimensions, hnsw) : new ExactIndex(dimensions);
}

/** A vector index bound to its folder: `open` loads or starts empty, `save` persists crash-safely. */
export class VectorStore {
  readonly options: VectorStoreOptions;
  readonly status: VectorStoreStatus;
  index: VectorIndex;
  #currentDataFile: string | undefined;
  /** id → tag as the current data file and manifest hold them (what a delta is relative to). */
  #baseTags: Map<string, string> | undefined;

  private constructor(options: VectorStoreOptions, index: VectorIndex, status: VectorStoreStatus, base?: { dataFile: string; tags: Map<string, string> }) {
    this.options = options;
    this.index = index;
    this.status = status;
    this.#currentDataFile = base?.dataFile;
    this.#baseTags = base?.tags;
  }

  static open(options: VectorStoreOptions): VectorStore {
    const fresh = (): VectorIndex => createVectorIndex(options.kind, options.dimensions, options.hnsw);
    if (options.dir === undefined) return new VectorStore(options, fresh(), { state: 'memory' });
    mkdirPrivate(options.dir);
    removeStaleTempFiles(options.dir);
    const manifestFile = join(options.dir, MANIFEST_FILE);
    let text: string;
    try {
      text = readFileSync(manifestFile, 'utf8');
    } catch {
      return new VectorStore(options, fresh(), { state: 'created' });
    }
    const loaded = loadFromManifest(options, text);
    if (typeof loaded === 'string') return new VectorStore(options, fresh(), { state: 'rebuilt', reason: loaded });
    return new VectorStore(options, loaded.index, { state: 'loaded', count: loaded.index.size }, { dataFile: loaded.dataFile, tags: loaded.tags });
  }

  /** Persists the index (no-op in memory mode): as a delta when few entries changed since the data file, else whole. */
  save(): void {
    const dir = this.options.dir;
    if (dir === undefined) return;
    if (this.#currentDataFile !== undefined && this.#baseTags !== undefined) {
      const delta = deltaSince(this.index, this.#baseTags);
      const changes = delta.upserts.length + delta.removed.length;
      if (changes <= Math.min(DELTA_MAX_ENTRIES, Math.max(16, DELTA_MAX_SHARE * this.index.size))) {
        writeDelta(dir, this.#currentDataFile, this.index, delta);
        return;
      }
    }
    this.#saveWhole(dir);
  }

  #saveWhole(dir: string): void {
    const temp = tempPathFor(join(dir, `vectors-${this.index.kind}`));
    let dataFile: string;
    let digest: string;
    try {
      this.index.writeData(temp);
      digest = sha256(readFileSync(temp));
      dataFile = `vectors-${this.index.kind}-${digest.slice(0, 16)}.bin`;
      commitTempFile(temp, join(dir, dataFile));
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
    const dataStamp = stampOf(join(dir, dataFile));
    const entries = this.index.entries();
    const manifest: Manifest = {
      format: VECTOR_FORMAT_VERSION,
      kind: this.index.kind,
      model: this.options.model,
      dimensions: this.options.dimensions,
      count: entries.length,
      dataFile,
      dataSha256: digest,
      ...(dataStamp === undefined ? {} : { dataStamp }),
      entries: entries.map((entry) => [entry.id, entry.tag, entry.label] as const),
    };
    writeFileAtomic(join(dir, MANIFEST_FILE), JSON.stringify(manifest));
    // The old delta names the old data file: a crash before this leaves it ignored.
    rmSync(join(dir, DELTA_FILE), { force: true });
    const previous = this.#currentDataFile;
    this.#currentDataFile = dataFile;
    this.#baseTags = new Map(entries.map((entry) => [entry.id, entry.tag]));
    if (previous !== undefined && previous !== dataFile) rmSync(join(dir, previous), { force: true });
    removeOrphanDataFiles(dir, dataFile);
  }
}

function loadFromManifest(options: VectorStoreOptions, text: string): { index: VectorIndex; dataFile: string; tags: Map<string, string> } | string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return 'manifest is not valid JSON';
  }
  const parsed = ManifestSchema.safeParse(data);
  if (!parsed.success) return `manifest has the wrong shape (${shapeProblem(parsed.error)})`;
  const bad = parsed.data.entries.findIndex((entry) => !isEntry(entry));
  if (bad !== -1) return `manifest has the wrong shape (entries.${bad}: expected [id, tag, label])`;
  const manifest = parsed.data as Manifest;
  if (manifest.format !== VECTOR_FORMAT_VERSION) return `format ${String(manifest.format)} ≠ ${VECTOR_FORMAT_VERSION}`;
  if (manifest.model !== options.model) return `model ${String(manifest.model)} ≠ ${options.model}`;
  if (manifest.dimensions !== options.dimensions) return `dimensions ${String(manifest.dimensions)} ≠ ${options.dimensions}`;
  if (manifest.kind !== options.kind) return `index kind ${String(manifest.kind)} ≠ ${options.kind}`;
  if (typeof manifest.dataFile !== 'string' || !DATA_FILE.test(manifest.dataFile)) return 'manifest names no data file';
  if (!Array.isArray(manifest.entries) || manifest.entries.length !== manifest.count) return 'manifest entries do not match its count';
  const dataPath = join(options.dir!, manifest.dataFile);
  if (!sameStamp(manifest.dataStamp, stampOf(dataPath))) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(dataPath);
    } catch {
      return `data file ${manifest.dataFile} is missing`;
    }
    if (sha256(bytes) !== manifest.dataSha256) return `data file ${manifest.dataFile} fails its checksum`;
  }
  const entries: PersistedEntry[] = manifest.entries.map(([id, tag, label]) => ({ id, tag, label }));
  try {
    const index =
      options.kind === 'hnsw'
        ? HnswIndex.restore(dataPath, options.dimensions, entries, options.hnsw)
        : ExactIndex.restore(dataPath, options.dimensions, entries);
    const tags = new Map(entries.map((entry) => [entry.id, entry.tag]));
    applyDelta(options.dir!, manifest.dataFile, index);
    return { index, dataFile: manifest.dataFile, tags };
  } catch (error) {
    return `data file ${manifest.dataFile} is unreadable: ${(error as Error).message}`;
  }
}

/** Data files no manifest names: left by a crash between data and manifest rename. Kept a minute in case another writer is mid-save. */
function removeOrphanDataFiles(dir: string, keep: string): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    if (name === keep || !DATA_FILE.test(name)) continue;
    try {
      if (now - statSync(join(dir, name)).mtimeMs >= 60_000) rmSync(join(dir, name), { force: true });
    } catch {
      // Removed by another writer meanwhile.
    }
  }
}
