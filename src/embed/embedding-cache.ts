import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { array, count, type Check, number, object, shapeIssue, string } from '../util/shape.js';
import { sha256, writeFileAtomic } from '../vector-index/atomic-file.js';
import { stampVouchesFor, writeStamp } from '../vector-index/file-stamp.js';

/**
 * Embeddings keyed by (model id, content hash), persisted so a restart or an index rebuild
 * re-embeds nothing that was embedded before.
 *
 * File layout (little endian): `SSEC` · u32 header length · header JSON (space-padded to a
 * multiple of 4) · `count` records of [32-byte sha256 · `dimensions` × f32]. The header holds
 * the model id, dimensions, count and the sha256 of the records (not re-hashed while the file
 * matches the stamp written beside it, see `file-stamp.ts`); any mismatch or short file
 * means "start empty" — a cache can always be rebuilt, so it is never trusted half-read.
 * Changes since that base file go to `<file>.delta` (header adds the base's checksum and the
 * removed hashes); a delta that names another base or fails its checksum is ignored, which
 * only means re-embedding the skills it held.
 */
const MAGIC = 'SSEC';
/** The delta file beside the base: same layout, header adds `base` and `removed`. */
const DELTA_MAGIC = 'SSED';
const FORMAT_VERSION = 1;
const HASH_BYTES = 32;
/**
 * A save writes only the changes since the base file (into `<file>.delta`, rewritten whole and
 * atomically) while they number at most this many and this share of the cache; beyond that
 * the base is rewritten and the delta dropped. One changed skill then costs a few KB on disk
 * instead of the whole cache (46 MB at 24k skills).
 */
const DELTA_MAX_ENTRIES = 2048;
const DELTA_MAX_SHARE = 0.1;

/** The header as read: `null` or a missing field means "corrupt", never a crash. */
interface CacheHeader {
  readonly version: number;
  readonly model: string;
  readonly dimensions: number;
  readonly count: number;
  readonly sha256: string;
}
const cacheHeaderFields = { version: number, model: string(), dimensions: number, count, sha256: string() };
const cacheHeaderShape = object(cacheHeaderFields);
interface DeltaHeader extends CacheHeader {
  readonly base: string;
  readonly removed: readonly string[];
}
const deltaHeaderShape = object({ ...cacheHeaderFields, base: string(), removed: array(string()) });

export type CacheLoadStatus = 'memory' | 'loaded' | 'missing' | 'mismatch' | 'corrupt';

export interface EmbeddingCacheOptions {
  readonly model: string;
  readonly dimensions: number;
  /** Folder to persist into; in-memory only when absent. */
  readonly dir?: string;
}

/** One cache file per model, so switching models back and forth keeps both caches. */
export function embeddingCacheFile(dir: string, model: string): string {
  return join(dir, `embeddings-${createHash('sha256').update(model).digest('hex').slice(0, 16)}.bin`);
}

export class EmbeddingCache {
  readonly model: string;
  readonly dimensions: number;
  readonly file: string | undefined;
  readonly status: CacheLoadStatus;
  readonly #vectors = new Map<string, Float32Array>();
  #dirty = false;
  /** Checksum of the base file on disk (what a delta builds on); undefined when there is none. */
  #base: string | undefined;
  /** Changes since the base file: a vector set, or `null` for a removal. Cumulative across delta saves. */
  readonly #sinceBase = new Map<string, Float32Array | null>();

  constructor(options: EmbeddingCacheOptions) {
    this.model = options.model;
    this.dimensions = options.dimensions;
    this.file = options.dir === undefined ? undefined : embeddingCacheFile(options.dir, options.model);
    this.status = this.file === undefined ? 'memory' : this.#load(this.file);
  }

  get size(): number {
    return this.#vectors.size;
  }

  get dirty(): boolean {
    return this.#dirty;
  }

  /** Every vector by content hash (a copy of the map; the vectors are shared). */
  entries(): Map<string, Float32Array> {
    return new Map(this.#vectors);
  }

  get(contentHash: string): Float32Array | undefined {
    return this.#vectors.get(contentHash);
  }

  set(contentHash: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) {
      throw new RangeError(`Expected a ${this.dimensions}-dimensional vector, got ${vector.length}`);
    }
    this.#vectors.set(contentHash, vector);
    this.#sinceBase.set(contentHash, vector);
    this.#dirty = true;
  }

  /** Drops every entry whose hash is not in `keep` (skills that no longer exist). */
  retain(keep: ReadonlySet<string>): void {
    for (const hash of this.#vectors.keys()) {
      if (!keep.has(hash)) {
        this.#vectors.delete(hash);
        this.#sinceBase.set(hash, null);
        this.#dirty = true;
      }
    }
  }

  /**
   * Persists when something changed since the last load/save. No-op in memory mode. Few
   * changes go to the delta file; many (or no base yet) rewrite the base. Either way one
   * atomic rename makes them durable, so a crash leaves the previous state or the new one.
   */
  save(): void {
    if (this.file === undefined || !this.#dirty) return;
    const deltaFits = this.#sinceBase.size <= Math.min(DELTA_MAX_ENTRIES, Math.max(16, DELTA_MAX_SHARE * this.#vectors.size));
    if (this.#base !== undefined && deltaFits) this.#saveDelta(this.file, this.#base);
    else this.#saveBase(this.file);
    this.#dirty = false;
  }

  #saveBase(file: string): void {
    const { body, digest } = encodeRecords(this.#vectors, this.dimensions);
    const header: CacheHeader = { version: FORMAT_VERSION, model: this.model, dimensions: this.dimensions, count: this.#vectors.size, sha256: digest };
    writeFileAtomic(file, withHeader(MAGIC, header, body));
    writeStamp(file, digest);
    // The old delta names the old base, so a crash before this removal leaves it ignored.
    rmSync(deltaFileFor(file), { force: true });
    this.#base = digest;
    this.#sinceBase.clear();
  }

  #saveDelta(file: string, base: string): void {
    const set = new Map<string, Float32Array>();
    const removed: string[] = [];
    for (const [hash, vector] of this.#sinceBase) {
      if (vector === null) removed.push(hash);
      else set.set(hash, vector);
    }
    const { body, digest } = encodeRecords(set, this.dimensions);
    const header: DeltaHeader = { version: FORMAT_VERSION, model: this.model, dimensions: this.dimensions, count: set.size, sha256: digest, base, removed };
    writeFileAtomic(deltaFileFor(file), withHeader(DELTA_MAGIC, header, body));
  }

  #load(file: string): CacheLoadStatus {
    let data: Buffer;
    try {
      data = readFileSync(file);
    } catch {
      return 'missing';
    }
    const parsed = parseFile<CacheHeader>(data, MAGIC, cacheHeaderShape);
    if (parsed === undefined) return 'corrupt';
    const { header, body } = parsed;
    if (header.version !== FORMAT_VERSION || header.model !== this.model || header.dimensions !== this.dimensions) {
      return 'mismatch';
    }
    const recordBytes = HASH_BYTES + 4 * this.dimensions;
    if (body.length !== header.count * recordBytes) return 'corrupt';
    // A file still as written (its stamp matches) was checksummed then; any other is hashed now.
    if (!stampVouchesFor(file, header.sha256) && sha256(body) !== header.sha256) return 'corrupt';
    decodeRecords(body, this.dimensions, (hash, vector) => this.#vectors.set(hash, vector));
    this.#base = header.sha256;
    this.#applyDelta(file, header.sha256);
    return 'loaded';
  }

  /** Replays `<file>.delta` when it builds on this base and checks out; otherwise it is ignored (and replaced at the next save). */
  #applyDelta(file: string, base: string): void {
    let data: Buffer;
    try {
      data = readFileSync(deltaFileFor(file));
    } catch {
      return;
    }
    const parsed = parseFile<DeltaHeader>(data, DELTA_MAGIC, deltaHeaderShape);
    if (parsed === undefined) return;
    const { header, body } = parsed;
    if (header.base !== base || header.version !== FORMAT_VERSION || header.model !== this.model || header.dimensions !== this.dimensions) return;
    if (body.length !== header.count * (HASH_BYTES + 4 * this.dimensions) || sha256(body) !== header.sha256) return;
    for (const hash of header.removed) {
      this.#vectors.delete(hash);
      this.#sinceBase.set(hash, null);
    }
    decodeRecords(body, this.dimensions, (hash, vector) => {
      this.#vectors.set(hash, vector);
      this.#sinceBase.set(hash, vector);
    });
  }
}

export function deltaFileFor(file: string): string {
  return `${file}.delta`;
}

/** `count` records of [32-byte hash · f32 vector] and their sha256. */
function encodeRecords(vectors: ReadonlyMap<string, Float32Array>, dimensions: number): { body: Buffer; digest: string } {
  const recordBytes = HASH_BYTES + 4 * dimensions;
  const body = Buffer.alloc(recordBytes * vectors.size);
  let offset = 0;
  for (const [hash, vector] of vectors) {
    body.write(hash, offset, HASH_BYTES, 'hex');
    Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(body, offset + HASH_BYTES);
    offset += recordBytes;
  }
  return { body, digest: sha256(body) };
}

/**
 * Vectors are views into `body` when its records are 4-byte aligned in memory (they are in a
 * file read whole: the header is padded for it), so loading allocates no vector; else copies.
 */
function decodeRecords(body: Buffer, dimensions: number, add: (hash: string, vector: Float32Array) => void): void {
  const recordBytes = HASH_BYTES + 4 * dimensions;
  const aligned = body.byteOffset % 4 === 0;
  for (let offset = 0; offset < body.length; offset += recordBytes) {
    let floats: Float32Array;
    if (aligned) floats = new Float32Array(body.buffer, body.byteOffset + offset + HASH_BYTES, dimensions);
    else {
      floats = new Float32Array(dimensions);
      Buffer.from(floats.buffer).set(body.subarray(offset + HASH_BYTES, offset + recordBytes));
    }
    add(body.toString('hex', offset, offset + HASH_BYTES), floats);
  }
}

/** magic · u32 header length · header JSON space-padded so the records start 4-byte aligned · records. */
function withHeader(magic: string, header: object, body: Buffer): Buffer {
  let json = JSON.stringify(header);
  json += ' '.repeat((4 - ((8 + Buffer.byteLength(json)) % 4)) % 4);
  const prefix = Buffer.alloc(8);
  prefix.write(magic, 0, 'latin1');
  prefix.writeUInt32LE(Buffer.byteLength(json), 4);
  return Buffer.concat([prefix, Buffer.from(json, 'utf8'), body]);
}

/** The header (of the shape `shape` checks, as `T`) and the body; undefined when either is not there or not right. */
function parseFile<T>(data: Buffer, magic: string, shape: Check): { header: T; body: Buffer } | undefined {
  if (data.length < 8 || data.toString('latin1', 0, 4) !== magic) return undefined;
  const headerLength = data.readUInt32LE(4);
  if (8 + headerLength > data.length) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(data.toString('utf8', 8, 8 + headerLength));
  } catch {
    return undefined;
  }
  return shapeIssue(shape, header) === undefined ? { header: header as T, body: data.subarray(8 + headerLength) } : undefined;
}
