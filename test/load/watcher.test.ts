import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOG_EVENTS } from '../../src/load/index.js';
import { watchedProjectEach, withWatchedProject } from '../support/watched-project.js';
import { changeFor, skillMd, writeTree } from './helpers.js';

describe.each([
  ['native events', false],
  ['polling', true],
])('watching with %s', (_label, usePolling) => {
  const watched = watchedProjectEach(() => ({ 'project/.claude/skills/keep/SKILL.md': skillMd('kept') }), { project: 'project' });

  it('add, change and unlink each invalidate the catalog and emit change', { timeout: 60_000 }, async () => {
    const { root, catalog } = watched;
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
    await withWatchedProject({ 'project/README.md': 'not a skill' }, { project: 'project' }, async ({ root, catalog }) => {
      await catalog.watch();
      expect((await catalog.get()).skills).toEqual([]);
      const file = join(root, 'project', '.claude', 'skills', 'late', 'SKILL.md');
      const seen = changeFor(catalog, file);
      await writeTree(root, { 'project/.claude/skills/late/SKILL.md': skillMd('created after watch') });
      await seen;
      expect((await catalog.get()).skills.map((skill) => skill.name)).toEqual(['late']);
    });
  });

  it.each([
    ['with its .claude folder', 'project/.claude'],
    ['while its parent stays', 'project/.claude/skills'],
  ])('follows a skills folder deleted %s, and created again after that was reported', { timeout: 30_000 }, async (_how, deleted) => {
    await withWatchedProject({ 'project/.claude/skills/a/SKILL.md': skillMd('a') }, { project: 'project' }, async ({ root, skills, catalog }) => {
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
    });
  });

  it('follows a skills folder wiped and recreated at once (its inode may be recycled)', { timeout: 30_000 }, async () => {
    await withWatchedProject({ 'project/.claude/skills/a/SKILL.md': skillMd('a') }, { project: 'project' }, async ({ root, skills, catalog }) => {
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
    });
  });
});
