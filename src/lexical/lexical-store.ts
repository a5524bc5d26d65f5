import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { removeStaleTempFiles, sha256, shapeProblem, writeFileAtomic } from '../vector-index/atomic-file.js';
import { stampVouchesFor, writeStamp } from '../vector-index/file-stamp.js';
import { LEXICAL_FORMAT_VERSION, LexicalIndex, type LexicalSnapshot } from './lexical-index.js';

/**
 * The lexical index persisted next to the vector store, so a fresh process (a hook call, a
 * one-shot query) loads it instead of tokenising the whole catalog again.
 *
 * File layout: one header line `{"format","sha256"}` and then the body, the JSON of a
 * {@link LexicalSnapshot}. The header's sha256 covers the body, so a torn or edited file is
 * detected before MiniSearch reads it — unless the file still matches the stamp recorded when it
 * was written (`file-stamp.ts`), which spares a cold process hashing it. Written with
 * {@link writeFileAtomic}; any doubt on load means "rebuild" — the index is derived data.
 */
export const LEXICAL_FILE = 'lexical.json';

const HeaderSchema = z.object({ format: z.number(), sha256: z.string() });
type Header = z.infer<typeof HeaderSchema>;
/** Only the outer shape: MiniSearch checks its own part, and `restore` checks every entry. */
const SnapshotSchema = z.object({ entries: z.array(z.unknown()), index: z.record(z.string(), z.unknown()) });

export type LexicalLoad = { readonly index: LexicalIndex } | { readonly reason: string };

export function lexicalFile(dir: string): string {
  return join(dir, LEXICAL_FILE);
}

/** Creates `dir` when needed (a lexical-only engine may be the first to write into it). */
export function saveLexicalIndex(dir: string, index: LexicalIndex): void {
  mkdirSync(dir, { recursive: true });
  removeStaleTempFiles(dir);
  const body = Buffer.from(JSON.stringify(index.snapshot()), 'utf8');
  const header: Header = { format: LEXICAL_FORMAT_VERSION, sha256: sha256(body) };
  writeFileAtomic(lexicalFile(dir), Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`, 'utf8'), body]));
  writeStamp(lexicalFile(dir), header.sha256);
}

export function loadLexicalIndex(dir: string): LexicalLoad {
  let data: Buffer;
  try {
    data = readFileSync(lexicalFile(dir));
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
  if (!stampVouchesFor(lexicalFile(dir), header.sha256) && sha256(body) !== header.sha256) return { reason: 'body fails its checksum' };
  try {
    const parsed = SnapshotSchema.safeParse(JSON.parse(body.toString('utf8')));
    if (!parsed.success) return { reason: `body has the wrong shape (${shapeProblem(parsed.error)})` };
    return { index: LexicalIndex.restore(parsed.data as unknown as LexicalSnapshot) };
  } catch (error) {
    return { reason: `body is unreadable: ${(error as Error).message}` };
  }
}
