import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATALOG_EVENTS, type CatalogChange, type SkillCatalog } from '../../src/load/catalog.js';
import { within } from '../../src/util/paths.js';

export const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures');

export async function tempDir(prefix = 'skill-search-load-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Writes `files` (relative path → content) under `root`. */
export async function writeTree(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const path = join(root, relative);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }
}

export function skillMd(description: string, extra: Record<string, string> = {}, body = 'Body.'): string {
  const lines = Object.entries({ description, ...extra }).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  return `---\n${lines.join('\n')}\n---\n${body}\n`;
}

/**
 * Resolves with the first `change` whose paths include `path` or a folder above it (rejects after `timeoutMs`). A folder
 * counts because any change makes the catalog read every source again, and chokidar reads a just-created folder before
 * it watches it: a file written in between is reported only through its folder.
 */
export function changeFor(catalog: SkillCatalog, path: string, timeoutMs = 15_000): Promise<CatalogChange> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      catalog.off(CATALOG_EVENTS.change, listener);
      reject(new Error(`no change event for ${path} within ${timeoutMs} ms`));
    }, timeoutMs);
    const listener = (change: CatalogChange): void => {
      if (!change.paths.some((changed) => within(path, changed))) return;
      clearTimeout(timer);
      catalog.off(CATALOG_EVENTS.change, listener);
      resolve(change);
    };
    catalog.on(CATALOG_EVENTS.change, listener);
  });
}

/**
 * Seeded random tools lines for property tests: `fresh()` is a new line (a tool whose id is one
 * of `ids`, so ids repeat, or one time in `brokenEvery` a line that is not JSON), `edit(lines)`
 * makes a few random edits, insertions, removals and moves in place, `random(n)` is below `n`.
 */
export function randomTools(seed: number, ids: number, brokenEvery: number) {
  let state = seed;
  const random = (n: number): number => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % n;
  };
  let serial = 0;
  const fresh = (): string => {
    serial += 1;
    if (random(brokenEvery) === 0) return `{"id": "broken-${serial}", `;
    const id = `t${random(ids)}`;
    return JSON.stringify({ id, name: id, description: `Tool text number ${serial}` });
  };
  const edit = (lines: string[], most: number): void => {
    for (let op = 1 + random(most); op > 0; op -= 1) {
      const at = random(lines.length);
      const kind = random(4);
      if (kind === 0) lines[at] = fresh();
      else if (kind === 1) lines.splice(at, 0, fresh());
      else if (kind === 2) lines.splice(at, 1);
      else lines.splice(random(lines.length), 0, ...lines.splice(at, 1));
    }
  };
  return { random, fresh, edit };
}
