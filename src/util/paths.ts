import { realpathSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';

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
