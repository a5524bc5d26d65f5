import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

/** The files of the per-folder index kept before the store: the manifest, its artefacts and their logs, and the layout before the manifest. */
const OLD_FILE =
  /^(index\.json|(vector-data|vector-entries|lexical|languages|search)-[0-9a-f]{16}\.(bin|log)|vectors\.json|embeddings-.+\.bin|lexical\.bin|.+\.tmp)$/;

/**
 * Removes what an index folder of the layout before the store holds (everything now lives in the
 * store, docs/store.md), leaving anything else in the folder alone; returns the one line to show,
 * or undefined when the folder holds no such index.
 */
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
