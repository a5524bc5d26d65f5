import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOG_EVENTS, type CatalogChange } from '../../src/load/catalog.js';
import { within } from '../../src/util/paths.js';
import { projectCatalog, watchedProjectEach } from '../support/watched-project.js';
import { skillMd } from './helpers.js';

const FOLDERS = 200;

// The user's skills folder and the other sources do not exist: chokidar is handed missing paths beside the project's folder.
const watched = watchedProjectEach(() => {
  const tree: Record<string, string> = {};
  for (let i = 0; i < FOLDERS; i++) tree[`home/project/.claude/skills/s${i}/SKILL.md`] = skillMd(`skill ${i}`);
  return tree;
});

describe('watch() resolving', () => {
  it('means every existing skill folder is watched: an edit made right after it is reported', { timeout: 60_000 }, async () => {
    const { catalog, skills } = watched;
    await catalog.watch({ stabilityThreshold: 50, coalesceMs: 10 });
    const files = Array.from({ length: FOLDERS }, (_, i) => join(skills, `s${i}`, 'SKILL.md'));
    const reported = new Set<string>();
    const all = new Promise<void>((resolve) => {
      catalog.on(CATALOG_EVENTS.change, (change) => {
        for (const path of change.paths) reported.add(path);
        if (files.every((file) => reported.has(file))) resolve();
      });
    });
    for (const [i, file] of files.entries()) writeFileSync(file, skillMd(`skill ${i}, edited`));
    // An edit chokidar missed is never reported: 15 s is only the test's bound on a loaded machine.
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, 15_000).unref());
    await Promise.race([all, timeout]);
    expect(files.filter((file) => !reported.has(file))).toEqual([]);
  });

  it('means a missing source folder is watched for: one created right after it is reported', { timeout: 60_000 }, async () => {
    const codex = join(watched.root, 'codex');
    await watched.catalog.close();
    const catalog = projectCatalog(watched.root, { codexHome: codex });
    watched.catalog = catalog;
    await catalog.watch({ stabilityThreshold: 50, coalesceMs: 10 });
    // The change names the file, or, when it came before chokidar watched for the folder, the folder's first missing part.
    const seen = new Promise<CatalogChange>((resolve) =>
      catalog.on(CATALOG_EVENTS.change, (change) => change.paths.some((path) => within(path, codex)) && resolve(change)),
    );
    const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 15_000).unref());
    mkdirSync(join(codex, 'skills', 'late'), { recursive: true });
    writeFileSync(join(codex, 'skills', 'late', 'SKILL.md'), skillMd('created right after watch'));
    expect(await Promise.race([seen, timeout]), 'a change under the new folder').toBeDefined();
    expect((await catalog.get()).skills.map((skill) => skill.name)).toContain('late');
  });
});
