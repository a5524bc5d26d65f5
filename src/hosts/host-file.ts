/**
 * Reading and writing a host's settings file as the user keeps it: only a regular file is read
 * (a FIFO or a device at the path is refused, never waited on), a symlink is written through
 * (its target updated, the link kept, as dotfile managers expect), and the file keeps its mode.
 */
import { chmodSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { SkillSearchError, unreadableFile } from '../errors.js';
import { writeFileAtomic } from '../vector-index/atomic-file.js';

/** Settings files are small; a bigger one is not what we think it is. */
export const MAX_HOST_FILE_BYTES = 16 * 1024 * 1024;
/** Links followed before giving up, as the kernel's ELOOP bound. */
const MAX_LINKS = 40;

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/** The file's text, or undefined when it does not exist (a dangling link counts as absent). */
export function readHostFile(file: string): string | undefined {
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new SkillSearchError('BAD_FILE', `${file}: not a regular file; move it away, nothing was changed`);
    size = stat.size;
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    if (error instanceof SkillSearchError) throw error;
    throw unreadableFile(file, error);
  }
  if (size > MAX_HOST_FILE_BYTES)
    throw new SkillSearchError('BAD_FILE', `${file}: larger than ${MAX_HOST_FILE_BYTES} bytes, not a settings file; nothing was changed`);
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw unreadableFile(file, error);
  }
}

/** The file a write to `file` lands in: the end of its symlink chain (which may not exist yet). */
export function writeTarget(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    // Missing, or a dangling link: follow the links by hand to where the file will be.
  }
  let current = path.resolve(file);
  for (let i = 0; i < MAX_LINKS; i++) {
    try {
      if (!lstatSync(current).isSymbolicLink()) return current;
    } catch {
      return current;
    }
    current = path.resolve(path.dirname(current), readlinkSync(current));
  }
  throw new SkillSearchError('BAD_FILE', `${file}: too many symbolic links; nothing was changed`);
}

/** Writes `text` to `file` atomically, through a symlink, keeping an existing file's mode. */
export function writeHostFile(file: string, text: string): void {
  const target = writeTarget(file);
  let mode: number | undefined;
  try {
    mode = statSync(target).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileAtomic(target, text);
  if (mode !== undefined) chmodSync(target, mode);
}

/** Deletes the file a write to `file` would land in (the link, if any, stays as it was before install). */
export function removeHostFile(file: string): void {
  rmSync(writeTarget(file), { force: true });
}
