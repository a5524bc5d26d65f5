import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, lstatSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { makeDirs } from '../util/make-dirs.js';

/** Index files and folders are private to their user: they hold every skill's name and description. */
const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** Creates `dir` (and missing parents) with mode 0700; an existing folder keeps its mode. */
export function mkdirPrivate(dir: string): void {
  makeDirs(dir, { mode: PRIVATE_DIR_MODE });
}

/** Some platforms cannot fsync a directory; the rename is still atomic. */
function fsyncDirRefused(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EPERM' || code === 'EISDIR';
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } catch (error) {
    if (!fsyncDirRefused(error)) throw error;
  } finally {
    closeSync(fd);
  }
}

/** A private temp name beside `file`, unique to this process and call. */
const tempFileFor = (file: string): string => `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;

export interface AtomicWriteOptions {
  /**
   * Flush the file and its folder to the disk, so the new content survives a power cut. Off for
   * files a hook writes on every prompt whose loss only forgets (a session's memory, usage counts):
   * a reader takes one empty or torn after a power cut as missing. @default true
   */
  readonly durable?: boolean;
}

/**
 * Writes `data` to `file` crash-safely: a private temp file, fsynced, renamed over the target,
 * then the directory fsynced. A reader sees either the old file or the new one.
 */
export function writeFileAtomic(file: string, data: Uint8Array | string, options: AtomicWriteOptions = {}): void {
  const durable = options.durable ?? true;
  const temp = tempFileFor(file);
  try {
    const fd = openSync(temp, 'w', PRIVATE_FILE_MODE);
    try {
      writeFileSync(fd, data);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      renameSync(temp, file);
    } catch (error) {
      // A folder where the file belongs would fail every later save: it is debris in our cache.
      if (!isDirectoryInTheWay(file, error)) throw error;
      rmSync(file, { recursive: true, force: true });
      renameSync(temp, file);
    }
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  if (durable && process.platform !== 'win32') fsyncDir(dirname(file));
}

/**
 * {@link writeFileAtomic} (durable) on the thread pool: the event loop stays free while a large
 * file is written and flushed, so a caller's timers (a hook's budget) still fire.
 */
export async function writeFileAtomicAsync(file: string, data: Uint8Array | string): Promise<void> {
  const temp = tempFileFor(file);
  // A process that exits meanwhile (a hook past its budget) leaves no temp file behind.
  const dropTemp = () => rmSync(temp, { force: true });
  process.once('exit', dropTemp);
  try {
    const handle = await open(temp, 'w', PRIVATE_FILE_MODE);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, file);
    } catch (error) {
      if (!isDirectoryInTheWay(file, error)) throw error;
      await rm(file, { recursive: true, force: true });
      await rename(temp, file);
    }
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  } finally {
    process.off('exit', dropTemp);
  }
  if (process.platform === 'win32') return;
  const dir = await open(dirname(file), 'r');
  try {
    await dir.sync();
  } catch (error) {
    if (!fsyncDirRefused(error)) throw error;
  } finally {
    await dir.close();
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
