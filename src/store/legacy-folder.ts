import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { sqliteHeader } from './sqlite-driver.js';
import { SCHEMA_VERSION } from './store-layout.js';

/** The files of the per-folder index kept before the store: the manifest, its artefacts and their logs, and the layout before the manifest. */
const OLD_FILE =
  /^(index\.json|(vector-data|vector-entries|lexical|languages|search)-[0-9a-f]{16}\.(bin|log)|vectors\.json|embeddings-.+\.bin|lexical\.bin|.+\.tmp)$/;

/** Removes what an index folder of the layout before the store holds, leaving anything else alone; returns the one line to show, if any. */
export function retireIndexFolder(dir: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  if (!names.includes('index.json') && !names.includes('vectors.json')) return undefined;
  for (const name of names) if (OLD_FILE.test(name)) rmSync(path.join(dir, name), { force: true });
  return `skill-search: removed the index of an older layout from ${dir} (indexes are kept in the store now)`;
}

/** The SQLite header's `user_version` (big-endian at byte 60), or undefined for no readable SQLite file. */
function headerLayout(file: string): number | undefined {
  const header = sqliteHeader(file);
  return header === undefined || header.length < 64 ? undefined : header.readUInt32BE(60);
}

/**
 * The one line to show when the store `file` was laid out by an older skill-search, which opening
 * it here empties and lays out anew (`layOut`). The header is only a quick filter (a write still
 * in the WAL is not in it): SQLite decides, under its write lock, so of processes starting at once
 * one gets the line. Undefined, and nothing opened, for a current, new or newer store; never throws.
 */
export async function retireOtherStoreLayout(file: string): Promise<string | undefined> {
  const found = headerLayout(file);
  // A newer skill-search's store is not opened here: the search says it goes without it.
  if (found === undefined || found === 0 || found >= SCHEMA_VERSION) return undefined;
  try {
    const { SqliteStore } = await import('./sqlite-store.js');
    const store = SqliteStore.open(file);
    store.close();
    return store.reset;
  } catch {
    return undefined;
  }
}
