/**
 * How a host starts this CLI, once per prompt: the installed bin on PATH, or `node <its absolute
 * path>` (never `npx`, which resolves the package on every prompt).
 */
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../load/default-dirs.js';
import { realpathOrSelf } from '../util/paths.js';

const BIN_NAME = 'skill-search';

/** This package's bin script, or undefined when the package root cannot be found. */
export function ownBin(): string | undefined {
  const root = packageRoot();
  return root === null ? undefined : path.join(root, 'bin', 'skill-search.js');
}

/** The first `skill-search` on `PATH`, if it is an executable file. */
export function binOnPath(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const names = process.platform === 'win32' ? [`${BIN_NAME}.cmd`, `${BIN_NAME}.exe`, BIN_NAME] : [BIN_NAME];
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    for (const name of names) {
      const candidate = path.join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // Not here; keep looking.
      }
    }
  }
  return undefined;
}

/** `['skill-search']` when the `skill-search` on PATH is this package's bin, else `['node', <absolute bin path>]`. */
export function resolveHostCommand(env: Readonly<Record<string, string | undefined>>): string[] {
  const own = ownBin();
  const onPath = binOnPath(env);
  if (onPath !== undefined && (own === undefined || realpathOrSelf(onPath) === realpathOrSelf(own))) return [BIN_NAME];
  return own === undefined ? [BIN_NAME] : ['node', own];
}
