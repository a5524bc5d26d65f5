import { utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SkillCatalog, type CatalogOptions } from '../../src/load/index.js';
import type { CatalogSnapshot } from '../../src/types.js';
import { removeDir, skillMd, tempDir, writeTree } from './helpers.js';

// Counted, not changed: every call goes through to the real module.
const counted = vi.hoisted(() => ({ merges: 0 }));
vi.mock('../../src/load/merge.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/load/merge.js')>();
  return {
    ...actual,
    mergeSkills: (...args: Parameters<typeof actual.mergeSkills>) => {
      counted.merges += 1;
      return actual.mergeSkills(...args);
    },
  };
});

let root: string;
let first: string;
let second: string;
let tools: string;
let options: CatalogOptions;
const LINES = ['one', 'two', 'three', 'four'].map((id) => ({ id, name: id, description: `the ${id} tool` }));

const jsonl = (records: readonly object[]) => `${records.map((record) => JSON.stringify(record)).join('\n')}\n`;
const byName = (snapshot: CatalogSnapshot, name: string) => snapshot.skills.find((skill) => skill.name === name);
/** What a catalog made afresh over the same disk loads. */
const fresh = () => new SkillCatalog(options).get();
const comparable = (snapshot: CatalogSnapshot) => ({ skills: snapshot.skills, shadowed: snapshot.shadowed, diagnostics: snapshot.diagnostics });

beforeEach(async () => {
  root = await tempDir();
  first = join(root, 'first');
  second = join(root, 'second');
  tools = join(root, 'tools.jsonl');
  // `shared` is in both folders: the first folder's wins, the second's is shadowed.
  await writeTree(first, { 'alpha/SKILL.md': skillMd('alpha skill'), 'shared/SKILL.md': skillMd('shared, first') });
  await writeTree(second, { 'beta/SKILL.md': skillMd('beta skill'), 'shared/SKILL.md': skillMd('shared, second') });
  await writeFile(tools, jsonl(LINES));
  const earlier = new Date(Date.now() - 60_000);
  for (const file of ['first/alpha', 'first/shared', 'second/beta', 'second/shared']) await utimes(join(root, file, 'SKILL.md'), earlier, earlier);
  options = { cwd: root, home: root, skillsDirs: [first, second], toolsFiles: [tools], bundledDir: null, managedDir: null, toolsCache: null };
  counted.merges = 0;
});
afterEach(async () => {
  await removeDir(root);
});

describe('a catalog rescan after one tools-file line changed', () => {
  it('parses that line only: every other line gives back the skill object it gave before', async () => {
    const catalog = new SkillCatalog(options);
    const before = await catalog.get();
    const edited = LINES.map((line) => (line.id === 'three' ? { ...line, description: 'the third tool, revised' } : line));
    await writeFile(tools, jsonl(edited));
    const later = new Date(Date.now() + 5000);
    await utimes(tools, later, later);
    catalog.clear();
    const after = await catalog.get();

    expect(byName(after, 'three')?.description).toBe('the third tool, revised');
    for (const name of ['one', 'two', 'four']) expect(byName(after, name)).toBe(byName(before, name));
    expect(after.generation).toBe(before.generation + 1);
    expect(comparable(after)).toEqual(comparable(await fresh()));
  });
});

describe('a catalog rescan after one SKILL.md changed', () => {
  it('patches the last merge instead of merging anew, and equals a fresh catalog', async () => {
    const catalog = new SkillCatalog(options);
    const before = await catalog.get();
    expect(before.shadowed).toHaveLength(1);
    counted.merges = 0;
    await writeFile(join(first, 'shared', 'SKILL.md'), skillMd('shared, first, revised'));
    catalog.clear();
    const after = await catalog.get();

    expect(counted.merges).toBe(0);
    expect(byName(after, 'shared')?.description).toBe('shared, first, revised');
    expect(byName(after, 'alpha')).toBe(byName(before, 'alpha'));
    expect(after.generation).toBe(before.generation + 1);
    expect(comparable(after)).toEqual(comparable(await fresh()));
  });

  it('merges anew when a skill is renamed, so shadowing follows the new name', async () => {
    const catalog = new SkillCatalog(options);
    await catalog.get();
    // The second folder's `shared` now names itself `beta`: it no longer collides with the first's `shared`, and collides with `beta`.
    await writeFile(join(second, 'shared', 'SKILL.md'), skillMd('shared, second', { name: 'beta' }));
    catalog.clear();
    const after = await catalog.get();

    expect(comparable(after)).toEqual(comparable(await fresh()));
    expect(after.shadowed.map((entry) => entry.name)).toEqual(['beta']);
  });

  it('keeps the generation when a file is rewritten with the same text', async () => {
    const catalog = new SkillCatalog(options);
    const before = await catalog.get();
    await writeFile(join(first, 'alpha', 'SKILL.md'), skillMd('alpha skill'));
    catalog.clear();
    const after = await catalog.get();

    expect(byName(after, 'alpha')).not.toBe(byName(before, 'alpha'));
    expect(after.generation).toBe(before.generation);
  });
});
