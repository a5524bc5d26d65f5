import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CATALOG_EVENTS, SkillCatalog } from '../../src/load/index.js';
import { changeFor, removeDir, skillMd, tempDir, writeTree } from './helpers.js';

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

describe('watching source folders that come and go', () => {
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

  it.each([
    ['with its .claude folder', 'project/.claude'],
    ['while its parent stays', 'project/.claude/skills'],
  ])('follows a skills folder deleted %s, and created again after that was reported', { timeout: 30_000 }, async (_how, deleted) => {
    const root = await tempDir();
    const skills = join(root, 'project/.claude/skills');
    await writeTree(root, { 'project/.claude/skills/a/SKILL.md': skillMd('a') });
    const catalog = new SkillCatalog({ cwd: join(root, 'project'), home: join(root, 'home'), bundledDir: null, managedDir: null });
    try {
      await catalog.watch();
      expect((await catalog.get()).skills.map((skill) => skill.name)).toEqual(['a']);
      const gone = changeFor(catalog, join(skills, 'a/SKILL.md'));
      await rm(join(root, deleted), { recursive: true });
      await gone;
      expect((await catalog.get()).skills).toEqual([]);
      const back = changeFor(catalog, join(skills, 'b/SKILL.md'));
      await writeTree(root, { 'project/.claude/skills/b/SKILL.md': skillMd('b') });
      await back;
      expect((await catalog.get()).skills.map((skill) => skill.name)).toEqual(['b']);
    } finally {
      await catalog.close();
      await removeDir(root);
    }
  });

  it('follows a skills folder wiped and recreated at once (its inode may be recycled)', { timeout: 30_000 }, async () => {
    const root = await tempDir();
    const skills = join(root, 'project/.claude/skills');
    await writeTree(root, { 'project/.claude/skills/a/SKILL.md': skillMd('a') });
    const catalog = new SkillCatalog({ cwd: join(root, 'project'), home: join(root, 'home'), bundledDir: null, managedDir: null });
    try {
      await catalog.watch();
      const wiped = changeFor(catalog, join(skills, 'a'));
      await rm(skills, { recursive: true });
      await writeTree(root, { 'project/.claude/skills/b.md': skillMd('b') });
      await wiped;
      expect((await catalog.get()).skills.map((skill) => skill.name)).toEqual(['b']);
      // The recreated folder must still be watched.
      const later = changeFor(catalog, join(skills, 'c.md'));
      await writeTree(root, { 'project/.claude/skills/c.md': skillMd('c') });
      await later;
      expect((await catalog.get()).skills.map((skill) => skill.name)).toEqual(['b', 'c']);
    } finally {
      await catalog.close();
      await removeDir(root);
    }
  });
});
