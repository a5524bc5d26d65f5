import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
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
 */
const MAGIC = 'SSEC';
const FORMAT_VERSION = 1;
const HASH_BYTES = 32;

/** The header as read: `null` or a missing field means "corrupt", never a crash. */
const CacheHeaderSchema = z.object({
  version: z.number(),
  model: z.string(),
  dimensions: z.number(),
  count: z.number().int().nonnegative(),
  sha256: z.string(),
});
type CacheHeader = z.infer<typeof CacheHeaderSchema>;

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

  get(contentHash: string): Float32Array | undefined {
    return this.#vectors.get(contentHash);
  }

  set(contentHash: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) {
      throw new RangeError(`Expected a ${this.dimensions}-dimensional vector, got ${vector.length}`);
    }
    this.#vectors.set(contentHash, vector);
    this.#dirty = true;
  }

  /** Drops every entry whose hash is not in `keep` (skills that no longer exist). */
  retain(keep: ReadonlySet<string>): void {
    for (const hash of this.#vectors.keys()) {
      if (!keep.has(hash)) {
        this.#vectors.delete(hash);
        this.#dirty = true;
      }
    }
  }

  /** Persists when something changed since the last load/save. No-op in memory mode. */
  save(): void {
    if (this.file === undefined || !this.#dirty) return;
    const recordBytes = HASH_BYTES + 4 * this.dimensions;
    const body = Buffer.alloc(recordBytes * this.#vectors.size);
    let offset = 0;
    for (const [hash, vector] of this.#vectors) {
      body.write(hash, offset, HASH_BYTES, 'hex');
      Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(body, offset + HASH_BYTES);
      offset += recordBytes;
    }
    const header: CacheHeader = {
      version: FORMAT_VERSION,
      model: this.model,
      dimensions: this.dimensions,
      count: this.#vectors.size,
      sha256: sha256(body),
    };
    let json = JSON.stringify(header);
    json += ' '.repeat((4 - ((8 + Buffer.byteLength(json)) % 4)) % 4);
    const prefix = Buffer.alloc(8);
    prefix.write(MAGIC, 0, 'latin1');
    prefix.writeUInt32LE(Buffer.byteLength(json), 4);
    writeFileAtomic(this.file, Buffer.concat([prefix, Buffer.from(json, 'utf8'), body]));
    writeStamp(this.file, header.sha256);
    this.#dirty = false;
  }

  #load(file: string): CacheLoadStatus {
    let data: Buffer;
    try {
      data = readFileSync(file);
    } catch {
      return 'missing';
    }
    if (data.length < 8 || data.toString('latin1', 0, 4) !== MAGIC) return 'corrupt';
    const headerLength = data.readUInt32LE(4);
    if (8 + headerLength > data.length) return 'corrupt';
    let header: CacheHeader;
    try {
      const parsed = CacheHeaderSchema.safeParse(JSON.parse(data.toString('utf8', 8, 8 + headerLength)));
      if (!parsed.success) return 'corrupt';
      header = parsed.data;
    } catch {
      return 'corrupt';
    }
    if (header.version !== FORMAT_VERSION || header.model !== this.model || header.dimensions !== this.dimensions) {
      return 'mismatch';
    }
    const recordBytes = HASH_BYTES + 4 * this.dimensions;
    const body = data.subarray(8 + headerLength);
    if (body.length !== header.count * recordBytes) return 'corrupt';
    // A file still as written (its stamp matches) was checksummed then; any other is hashed now.
    if (!stampVouchesFor(file, header.sha256) && sha256(body) !== header.sha256) return 'corrupt';
    for (let offset = 0; offset < body.length; offset += recordBytes) {
      const hash = body.toString('hex', offset, offset + HASH_BYTES);
      const floats = new Float32Array(this.dimensions);
      Buffer.from(floats.buffer).set(body.subarray(offset + HASH_BYTES, offset + recordBytes));
      this.#vectors.set(hash, floats);
    }
    return 'loaded';
  }
}
