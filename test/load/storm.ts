import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CATALOG_EVENTS, SkillCatalog, scanSkillsDir } from '../../src/load/index.js';
import { removeDir, skillMd, tempDir } from './helpers.js';
import { prng as random } from '../../scripts/prng.js';

export interface StormOptions {
  readonly ops: number;
  readonly usePolling: boolean;
  readonly seed: number;
  /** Longest pause between two operations, ms (0 = back to back). */
  readonly maxPauseMs: number;
  /** The catalog counts as settled after this long without a change event. */
  readonly quietMs: number;
  readonly timeoutMs: number;
}

export interface StormResult {
  readonly ops: number;
  readonly changeEvents: number;
  /** `name: description` lines, sorted. */
  readonly onDisk: readonly string[];
  readonly watched: readonly string[];
  readonly equal: boolean;
  /** Watcher errors seen (emitted as events, never thrown). */
  readonly errors: readonly string[];
  readonly elapsedMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function lines(skills: readonly { name: string; description: string }[]): string[] {
  return skills.map((skill) => `${skill.name}: ${skill.description}`).sort();
}

/**
 * Hammers a watched skills folder with creates, edits, editor-style atomic saves (temp file
 * + rename), folder renames, deletes and the odd wipe of the whole folder, reading the catalog after every change event as a
 * consumer would. Once quiet, the watched catalog must equal a fresh scan of the disk.
 */
export async function runWatcherStorm(options: StormOptions): Promise<StormResult> {
  const started = Date.now();
  const root = await tempDir('skill-search-storm-');
  const skills = join(root, 'project', '.claude', 'skills');
  await mkdir(skills, { recursive: true });
  const catalog = new SkillCatalog({ cwd: join(root, 'project'), home: join(root, 'home'), bundledDir: null, managedDir: null });
  const next = random(options.seed);
  const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(next() * items.length)];
  const folders = new Set<string>();
  const loose = new Set<string>();
  let counter = 0;
  let changeEvents = 0;
  let lastChange = Date.now();
  catalog.on(CATALOG_EVENTS.change, () => {
    changeEvents += 1;
    lastChange = Date.now();
    void catalog.get().catch(() => undefined);
  });
  const errors: Error[] = [];
  catalog.on(CATALOG_EVENTS.error, (error) => errors.push(error));

  try {
    await catalog.watch({ usePolling: options.usePolling });
    await catalog.get();
    for (let op = 0; op < options.ops; op++) {
      const version = `v${op}`;
      const roll = next();
      const folder = pick([...folders]);
      const file = pick([...loose]);
      if (roll < 0.005) {
        // Rarely, the whole skills folder goes away and comes back.
        await rm(skills, { recursive: true, force: true });
        await mkdir(skills, { recursive: true });
        folders.clear();
        loose.clear();
      } else if (roll < 0.25 || folders.size === 0) {
        const name = `s${counter++}`;
        await mkdir(join(skills, name), { recursive: true });
        await writeFile(join(skills, name, 'SKILL.md'), skillMd(`${name} ${version}`));
        folders.add(name);
      } else if (roll < 0.4 && folder !== undefined) {
        await writeFile(join(skills, folder, 'SKILL.md'), skillMd(`${folder} ${version}`));
      } else if (roll < 0.6 && folder !== undefined) {
        const temp = join(skills, folder, `.SKILL.md.${op}.tmp`);
        await writeFile(temp, skillMd(`${folder} ${version} atomic`));
        await rename(temp, join(skills, folder, 'SKILL.md'));
      } else if (roll < 0.7 && folder !== undefined) {
        const renamed = `s${counter++}`;
        await rename(join(skills, folder), join(skills, renamed));
        folders.delete(folder);
        folders.add(renamed);
      } else if (roll < 0.8 && folder !== undefined) {
        await rm(join(skills, folder), { recursive: true, force: true });
        folders.delete(folder);
      } else if (roll < 0.9 || file === undefined) {
        const name = file ?? `l${counter++}`;
        await writeFile(join(skills, `${name}.md`), skillMd(`${name} ${version} loose`));
        loose.add(name);
      } else {
        await rm(join(skills, `${file}.md`), { force: true });
        loose.delete(file);
      }
      if (options.maxPauseMs > 0) await sleep(Math.floor(next() * options.maxPauseMs));
    }

    lastChange = Math.max(lastChange, Date.now());
    while (Date.now() - lastChange < options.quietMs) {
      if (Date.now() - started > options.timeoutMs) break;
      await sleep(100);
    }
    const watched = lines((await catalog.get()).skills);
    const fresh = await scanSkillsDir(skills, { source: 'skills', rank: 5 });
    const onDisk = lines(fresh.skills);
    return {
      ops: options.ops,
      changeEvents,
      onDisk,
      watched,
      equal: JSON.stringify(onDisk) === JSON.stringify(watched),
      errors: errors.map((error) => error.message),
      elapsedMs: Date.now() - started,
    };
  } finally {
    await catalog.close();
    await removeDir(root);
  }
}
