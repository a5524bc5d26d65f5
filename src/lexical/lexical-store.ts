import { IndexFolder } from '../index-folder/index-folder.js';
import type { Skill } from '../types.js';
import { array, object, record, shapeIssue, string, unknown } from '../util/shape.js';
import { encodeFlatLexical, FlatLexicalIndex } from './flat-lexical.js';
import { LEXICAL_FORMAT_VERSION, LexicalIndex } from './lexical-index.js';

/**
 * The lexical index persisted in the index folder (artefact `lexical`, see `index-folder.ts`),
 * so a fresh process (a hook call, a one-shot query) loads it instead of tokenising the whole
 * catalog again.
 *
 * The base file is the index's content keys (a JSON list, in id order) followed by the index
 * as a flat lexical buffer (`flat-lexical.ts`): loading reads every document's entry back from
 * the postings, tokenising nothing. The folder checks it (format, stamp or checksum); any
 * doubt on load means "rebuild" — the index is derived data.
 *
 * A save with few changes appends one record to the artefact's delta log instead: the
 * upserted skills with the glosses they were indexed with, and the removed ids (JSON).
 * Re-serialising the whole index costs far more than one changed skill. Past
 * {@link LOG_MAX_ENTRIES} logged entries (or {@link LOG_MAX_SHARE} of the index) the next
 * save writes a new base.
 */
export const LEXICAL_ARTEFACT = 'lexical';
/**
 * Every process that loads the index replays the log (each entry a re-tokenised upsert, about
 * a millisecond at 24k skills), and a new base costs a few hundred milliseconds there: the cap
 * keeps both bounded.
 */
const LOG_MAX_ENTRIES = 128;
const LOG_MAX_SHARE = 0.05;

/** One save's changes in the log (JSON); a skill's own fields are checked as it is replayed. */
interface LogRecord {
  readonly upserts: readonly { readonly skill: Readonly<Record<string, unknown>>; readonly glosses: string }[];
  readonly removed: readonly string[];
}
const logRecordShape = object({ upserts: array(object({ skill: record(unknown), glosses: string() })), removed: array(string()) });

export type LexicalLoad = { readonly index: LexicalIndex } | { readonly reason: string };

/** What a log record replays for one skill: the skill and the glosses it was indexed with. */
export interface LexicalSource {
  readonly skill: Skill;
  readonly glosses?: string | undefined;
}

/** The changes since the last save, for a save that appends them to the log. */
export interface LexicalChanges {
  readonly upserted: readonly LexicalSource[];
  readonly removed: readonly string[];
}

/** The folder an index was loaded from or last saved to, and how many entries its log holds. */
const bases = new WeakMap<LexicalIndex, { readonly dir: string; logged: number }>();

function folderOf(folder: IndexFolder | string): IndexFolder {
  return typeof folder === 'string' ? IndexFolder.open(folder) : folder;
}

/**
 * Persists `index` (creating the folder when needed: a lexical-only engine may be the first to
 * write into it). With `changes` (everything since the index was loaded or last saved) a save
 * appends them to the log while it stays small; without, the index is written whole.
 */
export function saveLexicalIndex(target: IndexFolder | string, index: LexicalIndex, changes?: LexicalChanges): void {
  const folder = folderOf(target);
  const base = bases.get(index);
  if (changes !== undefined && base !== undefined && base.dir === folder.dir && folder.entry(LEXICAL_ARTEFACT) !== undefined) {
    const count = changes.upserted.length + changes.removed.length;
    if (count === 0) return;
    if (base.logged + count <= Math.min(LOG_MAX_ENTRIES, Math.max(16, LOG_MAX_SHARE * index.size))) {
      const upserts = changes.upserted.map(({ skill, glosses }) => ({ skill, glosses: glosses ?? '' }));
      folder.appendLog(LEXICAL_ARTEFACT, Buffer.from(JSON.stringify({ upserts, removed: changes.removed }), 'utf8'));
      base.logged += count;
      return;
    }
  }
  const written = folder.write(LEXICAL_ARTEFACT, encodeBase(index), { format: LEXICAL_FORMAT_VERSION });
  folder.commit([written]);
  bases.set(index, { dir: folder.dir, logged: 0 });
}

export function loadLexicalIndex(target: IndexFolder | string): LexicalLoad {
  const folder = folderOf(target);
  const read = folder.read(LEXICAL_ARTEFACT, LEXICAL_FORMAT_VERSION);
  if ('reason' in read) return read;
  let index: LexicalIndex;
  try {
    index = decodeBase(read.bytes);
  } catch (error) {
    return { reason: `lexical body is unreadable: ${(error as Error).message}` };
  }
  bases.set(index, { dir: folder.dir, logged: replayLog(folder, index) });
  return { index };
}

/** The base file: a uint32 (LE) byte count, the content keys as JSON, zeros to an 8-byte boundary, the flat buffer. */
function encodeBase(index: LexicalIndex): Buffer {
  const keys = Buffer.from(JSON.stringify([...index.ids()].map((id) => index.keyOf(id))), 'utf8');
  const head = Buffer.alloc(Math.ceil((4 + keys.length) / 8) * 8);
  head.writeUInt32LE(keys.length, 0);
  keys.copy(head, 4);
  return Buffer.concat([head, encodeFlatLexical(index)]);
}

/** {@link encodeBase}'s output as an index; throws when it does not fit. */
function decodeBase(bytes: Uint8Array): LexicalIndex {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < 4) throw new Error('shorter than its header');
  const keyBytes = buffer.readUInt32LE(0);
  const flatAt = Math.ceil((4 + keyBytes) / 8) * 8;
  if (flatAt > buffer.length) throw new Error('the key list runs past the end');
  const keys: unknown = JSON.parse(buffer.toString('utf8', 4, 4 + keyBytes));
  const flat = FlatLexicalIndex.open(buffer.subarray(flatAt));
  const ids = [...flat.ids()];
  if (!Array.isArray(keys) || keys.length !== ids.length || !keys.every((key) => typeof key === 'string')) {
    throw new Error(`the key list does not match the ${ids.length} indexed documents`);
  }
  return new LexicalIndex({ postings: flat.toPostings(), keys: new Map(ids.map((id, doc) => [id, keys[doc] as string])) });
}

/** Replays the log onto the loaded base, up to the first record that does not fit; returns the entries replayed. */
function replayLog(folder: IndexFolder, index: LexicalIndex): number {
  let replayed = 0;
  for (const record of folder.readLog(LEXICAL_ARTEFACT)) {
    let data: unknown;
    try {
      data = JSON.parse(record.toString('utf8'));
    } catch {
      break;
    }
    if (shapeIssue(logRecordShape, data) !== undefined) break;
    const changes = data as LogRecord;
    for (const id of changes.removed) index.remove(id);
    for (const { skill, glosses } of changes.upserts) {
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
    replayed += changes.upserts.length + changes.removed.length;
  }
  return replayed;
}
