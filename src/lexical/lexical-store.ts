import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { z } from 'zod';
import type { Skill } from '../types.js';
import { mkdirPrivate, removeStaleTempFiles, sha256, shapeProblem, writeFileAtomic } from '../vector-index/atomic-file.js';
import { stampVouchesFor, writeStamp } from '../vector-index/file-stamp.js';
import { LEXICAL_FORMAT_VERSION, LexicalIndex, type CompactLexicalSnapshot } from './lexical-index.js';

/**
 * The lexical index persisted next to the vector store, so a fresh process (a hook call, a
 * one-shot query) loads it instead of tokenising the whole catalog again.
 *
 * File layout: one header line `{"format","sha256"}` and then the body, a
 * {@link CompactLexicalSnapshot} in `v8.serialize` form (MiniSearch's own maps, read back
 * natively: several times faster than parsing its JSON snapshot and re-inserting every term;
 * a file from another Node version that cannot be read is rebuilt). The header's sha256 covers the body, so a torn or edited file is
 * detected before MiniSearch reads it — unless the file still matches the stamp recorded when it
 * was written (`file-stamp.ts`), which spares a cold process hashing it. Written with
 * {@link writeFileAtomic}; any doubt on load means "rebuild" — the index is derived data.
 *
 * Few changes since that file are saved as `lexical.delta.json` instead (same header line; the
 * body lists the upserted skills with their glosses and the removed ids, and names the base by
 * its sha256): re-serialising the whole index costs far more than one changed skill. A delta
 * that names another base or fails its checksum is ignored, and the engine re-indexes what it
 * held (the entries it finds stale).
 */
export const LEXICAL_FILE = 'lexical.bin';
/** Where the JSON form was kept before; removed at the next save. */
const LEGACY_LEXICAL_FILE = 'lexical.json';
export const LEXICAL_DELTA_FILE = 'lexical.delta.json';
/** A save writes a delta while the changes since the base number at most this many and this share of the index. */
const DELTA_MAX_ENTRIES = 512;
const DELTA_MAX_SHARE = 0.05;

const HeaderSchema = z.object({ format: z.number(), sha256: z.string() });
type Header = z.infer<typeof HeaderSchema>;
const DeltaSchema = z.object({
  base: z.string(),
  upserts: z.array(z.object({ skill: z.record(z.string(), z.unknown()), glosses: z.string() })),
  removed: z.array(z.string()),
});

export type LexicalLoad = { readonly index: LexicalIndex } | { readonly reason: string };

/** What a delta replays for one skill: the skill and the glosses it was indexed with. */
export interface LexicalSource {
  readonly skill: Skill;
  readonly glosses?: string | undefined;
}

/** The base file an index was loaded from or last fully saved to, and the keys it holds then. */
const bases = new WeakMap<LexicalIndex, { readonly dir: string; readonly sha256: string; readonly keys: ReadonlyMap<string, string> }>();

export function lexicalFile(dir: string): string {
  return join(dir, LEXICAL_FILE);
}

/**
 * Creates `dir` when needed (a lexical-only engine may be the first to write into it).
 * `sourceOf` lets a save with few changes write only a delta; without it the index is written whole.
 */
export function saveLexicalIndex(dir: string, index: LexicalIndex, sourceOf?: (id: string) => LexicalSource | undefined): void {
  mkdirPrivate(dir);
  removeStaleTempFiles(dir);
  const base = bases.get(index);
  if (sourceOf !== undefined && base !== undefined && base.dir === dir && saveDelta(dir, index, base, sourceOf)) return;
  const body = serialize(index.compactSnapshot());
  const header: Header = { format: LEXICAL_FORMAT_VERSION, sha256: sha256(body) };
  writeFileAtomic(lexicalFile(dir), Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`, 'utf8'), body]));
  writeStamp(lexicalFile(dir), header.sha256);
  rmSync(join(dir, LEGACY_LEXICAL_FILE), { force: true });
  // The old delta names the old base: a crash before this removal leaves it ignored.
  rmSync(join(dir, LEXICAL_DELTA_FILE), { force: true });
  bases.set(index, { dir, sha256: header.sha256, keys: keysOf(index) });
}

/** False when the changes are too many for a delta (or a source is missing): the caller writes the whole index. */
function saveDelta(
  dir: string,
  index: LexicalIndex,
  base: { sha256: string; keys: ReadonlyMap<string, string> },
  sourceOf: (id: string) => LexicalSource | undefined,
): boolean {
  const upserts: { skill: Skill; glosses: string }[] = [];
  const removed: string[] = [];
  const limit = Math.min(DELTA_MAX_ENTRIES, Math.max(16, DELTA_MAX_SHARE * index.size));
  for (const id of index.ids()) {
    if (base.keys.get(id) === index.keyOf(id)) continue;
    const source = sourceOf(id);
    if (source === undefined || upserts.length >= limit) return false;
    upserts.push({ skill: source.skill, glosses: source.glosses ?? '' });
  }
  for (const id of base.keys.keys()) if (!index.has(id)) removed.push(id);
  if (upserts.length + removed.length > limit) return false;
  const body = Buffer.from(JSON.stringify({ base: base.sha256, upserts, removed }), 'utf8');
  const header: Header = { format: LEXICAL_FORMAT_VERSION, sha256: sha256(body) };
  writeFileAtomic(join(dir, LEXICAL_DELTA_FILE), Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`, 'utf8'), body]));
  return true;
}

function keysOf(index: LexicalIndex): Map<string, string> {
  const keys = new Map<string, string>();
  for (const id of index.ids()) keys.set(id, index.keyOf(id)!);
  return keys;
}

/** The header line and body of a file written by this module, or why not. */
function readChecked(file: string): { header: Header; body: Buffer } | { reason: string } {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch {
    return { reason: 'missing' };
  }
  const newline = data.indexOf(0x0a);
  if (newline < 0) return { reason: 'no header line' };
  let header: Header;
  try {
    const parsed = HeaderSchema.safeParse(JSON.parse(data.toString('utf8', 0, newline)));
    if (!parsed.success) return { reason: `header has the wrong shape (${shapeProblem(parsed.error)})` };
    header = parsed.data;
  } catch {
    return { reason: 'header is not valid JSON' };
  }
  if (header.format !== LEXICAL_FORMAT_VERSION) return { reason: `format ${String(header.format)} ≠ ${LEXICAL_FORMAT_VERSION}` };
  const body = data.subarray(newline + 1);
  if (!stampVouchesFor(file, header.sha256) && sha256(body) !== header.sha256) return { reason: 'body fails its checksum' };
  return { header, body };
}

export function loadLexicalIndex(dir: string): LexicalLoad {
  const read = readChecked(lexicalFile(dir));
  if ('reason' in read) return read;
  let index: LexicalIndex;
  try {
    const snapshot: unknown = deserialize(read.body);
    if (typeof snapshot !== 'object' || snapshot === null) return { reason: 'body has the wrong shape (not an object)' };
    index = LexicalIndex.restoreCompact(snapshot as CompactLexicalSnapshot);
  } catch (error) {
    return { reason: `body is unreadable: ${(error as Error).message}` };
  }
  bases.set(index, { dir, sha256: read.header.sha256, keys: keysOf(index) });
  applyDelta(dir, read.header.sha256, index);
  return { index };
}

/** Replays the delta built on base `sha256`; one that does not fit is ignored (the engine re-indexes what it held). */
function applyDelta(dir: string, base: string, index: LexicalIndex): void {
  const read = readChecked(join(dir, LEXICAL_DELTA_FILE));
  if ('reason' in read) return;
  let delta: z.infer<typeof DeltaSchema>;
  try {
    const parsed = DeltaSchema.safeParse(JSON.parse(read.body.toString('utf8')));
    if (!parsed.success || parsed.data.base !== base) return;
    delta = parsed.data;
  } catch {
    return;
  }
  for (const id of delta.removed) index.remove(id);
  for (const { skill, glosses } of delta.upserts) {
    const candidate = skill as unknown as Skill;
    if (
      typeof candidate.id !== 'string' ||
      typeof candidate.name !== 'string' ||
      typeof candidate.description !== 'string' ||
      typeof candidate.contentHash !== 'string'
    )
      continue;
    index.upsert(candidate, glosses);
  }
}
