import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative } from 'node:path';

/** Whether `child` is `parent` or a path below it (compared as given: no link is followed). */
export function within(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return !rel.startsWith('..') && !isAbsolute(rel);
}

/** `path` with every link resolved, or `path` itself when it cannot be (missing, a loop). */
export function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** `path` if it exists, else the nearest folder above it that does (the root at worst). */
export function nearestExisting(path: string): string {
  let found = path;
  while (!existsSync(found) && dirname(found) !== found) found = dirname(found);
  return found;
}

/** Whether `path` is a folder now (a link followed); false when it is missing or cannot be stat'ed (a path through a file), never an error. */
export function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Whether `path` is a file now (a link followed); false when it is missing or cannot be stat'ed, never an error. */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
