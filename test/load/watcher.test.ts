import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CATALOG_EVENTS, SkillCatalog, type CatalogChange } from '../../src/load/index.js';
import { removeDir, skillMd, tempDir, writeTree } from './helpers.js';

/** Resolves with the first `change` whose paths include `path` (rejects after `timeoutMs`). */
export function changeFor(catalog: SkillCatalog, path: string, timeoutMs = 15_000): Promise<CatalogChange> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      catalog.off(CATALOG_EVENTS.change, listener);
      reject(new Error(`no change event for ${path} within ${timeoutMs} ms`));
    }, timeoutMs);
    const listener = (change: CatalogChange): void => {
      if (!change.paths.includes(path)) return;
      clearTimeout(timer);
      catalog.off(CATALOG_EVENTS.change, listener);
      resolve(change);
    };
    catalog.on(CATALOG_EVENTS.change, listener);
  });
}

describe.each([
  ['native events', false],
  ['polling', true],
])('watching with %s', (_label, usePolling) => {
  let root: string;
  let catalog: SkillCatalog;
  beforeEach(async () => {
    root = await tempDir();
    await writeTree(root, { 'project/.claude/skills/keep/SKILL.md': skillMd('kept') });
    catalog = new SkillCatalog({
      cwd: join(root, 'project'),
      home: join(root, 'home'),
      bundledDir: null,
      managedDir: null,
    });
  });
  afterEach(async () => {
    await catalog.close();
    await removeDir(root);
  });

  it('add, change and unlink each invalidate the catalog and emit change', { timeout: 60_000 }, async () => {
    const errors: Error[] = [];
    catalog.on(CATALOG_EVENTS.error, (error) => errors.push(error));
    await catalog.watch({ usePolling });
    const skills = join(root, 'project', '.claude', 'skills');
    const file = join(skills, 'fresh', 'SKILL.md');
    const before = await catalog.get();
    expect(before.skills.map((skill) => skill.name)).toEqual(['keep']);

    const added = changeFor(catalog, file);
    await writeTree(root, { 'project/.claude/skills/fresh/SKILL.md': skillMd('fresh v1') });
    expect(await added).toMatchObject({ reason: 'files' });
    const afterAdd = await catalog.get();
    expect(afterAdd.skills.map((skill) => [skill.name, skill.description])).toEqual([
      ['fresh', 'fresh v1'],
      ['keep', 'kept'],
    ]);
    expect(afterAdd.generation).toBe(before.generation + 1);

    // An editor-style atomic save: write a temp file, then rename it over the original.
    const changed = changeFor(catalog, file);
    await writeFile(join(skills, 'fresh', '.SKILL.md.tmp'), skillMd('fresh v2'));
    await rename(join(skills, 'fresh', '.SKILL.md.tmp'), file);
    await changed;
    expect((await catalog.get()).skills.map((skill) => skill.description)).toEqual(['fresh v2', 'kept']);

    const removed = changeFor(catalog, file);
    await rm(file);
    await removed;
    expect((await catalog.get()).skills.map((skill) => skill.name)).toEqual(['keep']);
    expect(errors).toEqual([]);
  });
});

describe('watching a source folder that does not exist yet', () => {
  it('notices the folder and its skill when they are created', { timeout: 30_000 }, async () => {
    const root = await tempDir();
    await writeTree(root, { 'project/README.md': 'not a skill' });
    const catalog = new SkillCatalog({ cwd: join(root, 'project'), home: join(root, 'home'), bundledDir: null, managedDir: null });
    try {
      await catalog.watch();
      expect((await catalog.get()).skills).toEqual([]);
      const file = join(root, 'project', '.claude', 'skills', 'late', 'SKILL.md');
      const seen = changeFor(catalog, file);
      await writeTree(root, { 'project/.claude/skills/late/SKILL.md': skillMd('created after watch') });
      await seen;
      expect((await catalog.get()).skills.map((skill) => skill.name)).toEqual(['late']);
    } finally {
      await catalog.close();
      await removeDir(root);
    }
  });
});
