import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, lstatSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sha256Hex } from '../util/hash.js';
import { makeDirs } from '../util/make-dirs.js';

/** Temp files end with this; {@link removeStaleTempFiles} cleans up after a crash. */
export const TEMP_SUFFIX = '.tmp';

/**
 * Index files and folders are private to their user: they hold every skill's name and
 * description, and the socket beside them is 0600 for the same reason.
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** Creates `dir` (and missing parents) with mode 0700; an existing folder keeps its mode. */
export function mkdirPrivate(dir: string): void {
  makeDirs(dir, { mode: PRIVATE_DIR_MODE });
}

export function tempPathFor(file: string): string {
  return `${file}.${process.pid}.${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`;
}

function fsyncPath(path: string, flags: string): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } catch (error) {
    // Directories cannot be fsynced on some platforms (Windows: EPERM); the rename is still atomic.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM' && (error as NodeJS.ErrnoException).code !== 'EISDIR') throw error;
  } finally {
    closeSync(fd);
  }
}

/**
 * Moves a fully written temp file into place: fsync the data, rename over the target (atomic
 * on POSIX and NTFS), fsync the directory so the rename itself survives a power cut.
 * A reader therefore sees either the old file or the new one, never a prefix of the new one.
 */
export function commitTempFile(temp: string, file: string): void {
  // Native writers (usearch) create files with the umask's mode: narrow it before it is visible.
  chmodSync(temp, PRIVATE_FILE_MODE);
  fsyncPath(temp, 'r+');
  try {
    renameSync(temp, file);
  } catch (error) {
    // A folder where a derived file belongs (made by hand or by a tool gone wrong) would fail
    // every later save: it is debris in our index folder, so it goes and the rename is retried.
    if (!isDirectoryInTheWay(file, error)) throw error;
    rmSync(file, { recursive: true, force: true });
    renameSync(temp, file);
  }
  if (process.platform !== 'win32') fsyncPath(dirname(file), 'r');
}

/** Writes `data` to `file` crash-safely (temp file + fsync + rename). */
export function writeFileAtomic(file: string, data: Uint8Array | string): void {
  const temp = tempPathFor(file);
  const fd = openSync(temp, 'w', PRIVATE_FILE_MODE);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    commitTempFile(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

function isDirectoryInTheWay(file: string, error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'EISDIR' && code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'EPERM') return false;
  try {
    return lstatSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** sha256 of bytes, as hex. */
export const sha256: (data: Uint8Array) => string = sha256Hex;

/** Removes temp files left by a writer that died; only ones older than `minAgeMs`, since another process may be writing now. */
export function removeStaleTempFiles(dir: string, minAgeMs = 60_000): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    if (!name.endsWith(TEMP_SUFFIX)) continue;
    const path = join(dir, name);
    try {
      if (now - statSync(path).mtimeMs >= minAgeMs) rmSync(path, { force: true });
    } catch {
      // Raced with its owner renaming or removing it: nothing to clean.
    }
  }
}
