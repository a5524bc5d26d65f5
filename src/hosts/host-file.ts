/**
 * A host's settings file as the user keeps it: only a regular file is read (a FIFO is refused,
 * never waited on), a symlink is written through (the link kept, as dotfile managers expect),
 * and the file keeps its mode.
 */
import { chmodSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, rmdirSync, rmSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { SkillSearchError, unreadableFile } from '../errors.js';
import { writeFileAtomic } from '../vector-index/atomic-file.js';

/** Settings files are small; a bigger one is not what we think it is. */
const MAX_HOST_FILE_BYTES = 16 * 1024 * 1024;
/** Links followed before giving up, as the kernel's ELOOP bound. */
const MAX_LINKS = 40;

/** The file's text, or undefined when it does not exist (a dangling link counts as absent). */
export function readHostFile(file: string): string | undefined {
  let stat: Stats;
  try {
    stat = statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadableFile(file, error);
  }
  if (!stat.isFile()) throw new SkillSearchError('BAD_FILE', `${file}: not a regular file; move it away, nothing was changed`);
  if (stat.size > MAX_HOST_FILE_BYTES)
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
  const mode = statSync(target, { throwIfNoEntry: false })?.mode;
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileAtomic(target, text);
  if (mode !== undefined) chmodSync(target, mode & 0o7777);
}

/** Host folders install may have made for a file (`install --project` in a bare folder); never a project or HOME itself. */
const HOST_FOLDERS = new Set(['.claude', '.codex']);

/**
 * Deletes the file a write to `file` would land in (the link, if any, stays as it was before install), and its
 * `.claude` or `.codex` folder when that is left empty.
 */
export function removeHostFile(file: string): void {
  const target = writeTarget(file);
  rmSync(target, { force: true });
  if (!HOST_FOLDERS.has(path.basename(path.dirname(target)))) return;
  try {
    rmdirSync(path.dirname(target));
  } catch {
    // Not empty: the host's or the user's files.
  }
}
