import { accessSync, constants, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../errors.js';
import { nearestExisting } from '../util/paths.js';

/**
 * Where the store cannot be written, if anywhere: the file and its folder (SQLite adds its journal beside it), or, before the
 * file exists, the nearest folder that does (where it would be made). A read-only mount or an immutable folder says so even to root.
 */
export function storeUnwritable(file: string): { at: string; code: string } | undefined {
  const folder = nearestExisting(path.dirname(file));
  // A file where a folder on the way should be (SKILL_SEARCH_CACHE_DIR naming a file): no folder can be made there.
  if (!statSync(folder).isDirectory()) return { at: folder, code: 'ENOTDIR' };
  for (const at of existsSync(file) ? [file, folder] : [folder]) {
    try {
      accessSync(at, constants.W_OK);
    } catch (error) {
      return { at, code: (error as NodeJS.ErrnoException).code ?? errorMessage(error) };
    }
  }
  return undefined;
}
