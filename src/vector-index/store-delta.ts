import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { sha256, writeFileAtomic } from './atomic-file.js';
import type { VectorIndex } from './vector-index.js';

/**
 * The changes made to a vector index since its data file was written, so that saving one
 * changed skill writes a few KB instead of the whole graph (53 MB at 24k skills).
 *
 * File layout: one JSON header line — format, the data file it builds on, the upserted
 * `[id, tag]` pairs, the removed ids, the sha256 of the body — then the body: one f32 row per
 * upsert, in order. Rewritten whole and atomically at each save (it holds every change since
 * the base, not just the last), so a crash leaves the previous delta or the new one. A delta
 * that names another data file (left over from before a full save) or fails its checksum is
 * ignored: the engine then finds those entries stale and upserts them again from its cache.
 */
export const DELTA_FILE = 'vectors.delta';
const DELTA_FORMAT = 1;

const HeaderSchema = z.object({
  format: z.literal(DELTA_FORMAT),
  base: z.string(),
  upserts: z.array(z.tuple([z.string(), z.string()])),
  removed: z.array(z.string()),
  sha256: z.string(),
});

export interface StoreDelta {
  readonly upserts: readonly (readonly [id: string, tag: string])[];
  readonly removed: readonly string[];
}

/** What changed in `index` since the base holding `baseTags` (id → tag). O(n) in the index size. */
export function deltaSince(index: VectorIndex, baseTags: ReadonlyMap<string, string>): StoreDelta {
  const upserts: [string, string][] = [];
  for (const id of index.ids()) {
    const tag = index.tagOf(id)!;
    if (baseTags.get(id) !== tag) upserts.push([id, tag]);
  }
  const removed: string[] = [];
  for (const id of baseTags.keys()) if (!index.has(id)) removed.push(id);
  return { upserts, removed };
}

export function writeDelta(dir: string, base: string, index: VectorIndex, delta: StoreDelta): void {
  const body = Buffer.alloc(delta.upserts.length * index.dimensions * 4);
  delta.upserts.forEach(([id], i) => {
    const vector = index.vectorOf(id)!;
    Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(body, i * index.dimensions * 4);
  });
  const header = { format: DELTA_FORMAT, base, upserts: delta.upserts, removed: delta.removed, sha256: sha256(body) };
  writeFileAtomic(join(dir, DELTA_FILE), Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`, 'utf8'), body]));
}

/** Applies the delta built on data file `base` to `index`; returns false when there is none that fits (nothing applied). */
export function applyDelta(dir: string, base: string, index: VectorIndex): boolean {
  let data: Buffer;
  try {
    data = readFileSync(join(dir, DELTA_FILE));
  } catch {
    return false;
  }
  const newline = data.indexOf(0x0a);
  if (newline < 0) return false;
  let header: z.infer<typeof HeaderSchema>;
  try {
    const parsed = HeaderSchema.safeParse(JSON.parse(data.toString('utf8', 0, newline)));
    if (!parsed.success) return false;
    header = parsed.data;
  } catch {
    return false;
  }
  const body = data.subarray(newline + 1);
  const rowBytes = index.dimensions * 4;
  if (header.base !== base || body.length !== header.upserts.length * rowBytes || sha256(body) !== header.sha256) return false;
  for (const id of header.removed) index.remove(id);
  header.upserts.forEach(([id, tag], i) => {
    const vector = new Float32Array(index.dimensions);
    Buffer.from(vector.buffer).set(body.subarray(i * rowBytes, (i + 1) * rowBytes));
    index.upsert(id, vector, tag);
  });
  return true;
}
