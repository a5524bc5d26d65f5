import { readdirSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';

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

/** The files of the tools folder kept before the store: parsed snapshots and line tables, and a killed writer's temp files. */
const OLD_TOOLS_FILE = /^(tools|lines)-[0-9a-f]{16}\.bin(\.\d+\.tmp)?$/;

/** Removes what the tools folder under the cache root held before the store kept tools files' loads, and the folder when nothing else is in it. */
export function retireToolsFolder(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) if (OLD_TOOLS_FILE.test(name)) rmSync(path.join(dir, name), { force: true });
  try {
    rmdirSync(dir);
  } catch {
    // Something else is in it: left alone.
  }
}
