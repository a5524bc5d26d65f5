import { open, stat } from 'node:fs/promises';
import type { Diagnostic } from '../types.js';
import { READ_NONBLOCK, readBounded } from '../util/read-bounded.js';
import { diagnostic, utf8Boundary } from './skill.js';

/** Room for the frontmatter on top of the body cap when a file is read only in part. */
export const FRONTMATTER_ALLOWANCE = 64 * 1024;

export type ReadResult =
  | { readonly state: 'ok'; readonly text: string; readonly truncated: boolean; readonly size: number }
  | { readonly state: 'gone' }
  | { readonly state: 'failed'; readonly diagnostic: Diagnostic };

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Reads a skill file's first `maxBodyBytes` plus the frontmatter allowance as text, never throwing; a file gone since its listing is `gone`. */
export async function readSkillText(path: string, maxBodyBytes: number): Promise<ReadResult> {
  const limit = maxBodyBytes + FRONTMATTER_ALLOWANCE;
  const notAFile = (): ReadResult => ({ state: 'failed', diagnostic: diagnostic('unreadable', path, 'is not a regular file') });
  let read: Awaited<ReturnType<typeof readBounded>>;
  try {
    // Checked before opening: opening a FIFO would block forever.
    if (!(await stat(path)).isFile()) return notAFile();
    const handle = await open(path, READ_NONBLOCK);
    try {
      read = await readBounded(handle, limit);
    } finally {
      await handle.close();
    }
  } catch (error) {
    return fromFsError(path, error);
  }
  if (read === undefined) return notAFile();
  const { bytes, size } = read;
  const truncated = size > bytes.length;
  if (bytes.includes(0)) return { state: 'failed', diagnostic: diagnostic('binary', path, 'contains NUL bytes; a skill must be UTF-8 text') };
  let text: string;
  try {
    text = decoder.decode(truncated ? bytes.subarray(0, utf8Boundary(bytes, bytes.length)) : bytes);
  } catch {
    return { state: 'failed', diagnostic: diagnostic('binary', path, 'is not valid UTF-8 text') };
  }
  return { state: 'ok', text, truncated, size };
}

export function fromFsError(path: string, error: unknown): ReadResult {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { state: 'gone' };
  if (code === 'ELOOP') return { state: 'failed', diagnostic: diagnostic('symlink-loop', path, 'symbolic link loop (ELOOP)') };
  const reason = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (error as Error).message;
  return {
    state: 'failed',
    diagnostic: diagnostic('unreadable', path, `cannot be read: ${reason}${code ? ` (${code})` : ''}`),
  };
}
