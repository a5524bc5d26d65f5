import { utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SkillCatalog, type CatalogOptions } from '../../src/load/index.js';
import { ScanMemo, scanSkillsDir } from '../../src/load/scan.js';
import { removeDir, skillMd, tempDir, writeTree } from './helpers.js';

// Counted, not changed: every call goes through to the real module.
const counted = vi.hoisted(() => ({ reads: [] as string[], parses: 0, toolsLoads: [] as string[] }));
vi.mock('../../src/load/read-file.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/load/read-file.js')>();
  return {
    ...actual,
    readSkillText: (path: string, max: number) => {
      // Codex's policy file beside each SKILL.md is read through here too: count skill files only.
      if (path.endsWith('.md')) counted.reads.push(path);
      return actual.readSkillText(path, max);
    },
  };
});
vi.mock('../../src/load/frontmatter.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/load/frontmatter.js')>();
  return {
    ...actual,
    parseSkillFile: (...args: Parameters<typeof actual.parseSkillFile>) => {
      counted.parses += 1;
      return actual.parseSkillFile(...args);
    },
  };
});
vi.mock('../../src/load/tools-jsonl.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/load/tools-jsonl.js')>();
  return {
    ...actual,
    loadToolsJsonl: (file: string, options: Parameters<typeof actual.loadToolsJsonl>[1]) => {
      counted.toolsLoads.push(file);
      return actual.loadToolsJsonl(file, options);
    },
  };
});

let root: string;
let skills: string;
let tools: string;
let options: CatalogOptions;
const SKILLS = ['alpha', 'beta', 'gamma', 'delta'];

beforeEach(async () => {
  root = await tempDir();
  skills = join(root, 'skills');
  tools = join(root, 'tools.jsonl');
  await writeTree(skills, Object.fromEntries(SKILLS.map((name) => [`${name}/SKILL.md`, skillMd(`${name} skill`)])));
  // Written a while ago: a file modified within RACY_MS of a scan is read again by the next one.
  const earlier = new Date(Date.now() - 60_000);
  for (const name of SKILLS) await utimes(join(skills, name, 'SKILL.md'), earlier, earlier);
  await writeFile(tools, `${JSON.stringify({ id: 'one', name: 'one', description: 'first tool' })}\n`);
  options = { cwd: root, home: root, skillsDirs: [skills], toolsFiles: [tools], bundledDir: null, managedDir: null, toolsCache: null };
  counted.reads.length = 0;
  counted.parses = 0;
  counted.toolsLoads.length = 0;
});
afterEach(async () => {
  await removeDir(root);
});

const descriptionOf = (snapshot: { skills: readonly { name: string; description: string }[] }, name: string) =>
  snapshot.skills.find((skill) => skill.name === name)?.description;

describe('a catalog rescan after one SKILL.md changed', () => {
  it('reads and parses that one file, and does not load the unchanged tools file again', async () => {
    const catalog = new SkillCatalog(options);
    await catalog.get();
    expect(counted.reads).toHaveLength(SKILLS.length);
    expect(counted.parses).toBe(SKILLS.length);
    expect(counted.toolsLoads).toHaveLength(1);

    counted.reads.length = 0;
    counted.parses = 0;
    counted.toolsLoads.length = 0;
    await writeFile(join(skills, 'beta', 'SKILL.md'), skillMd('beta skill, revised'));
    catalog.clear();
    const after = await catalog.get();

    expect(counted.reads).toEqual([join(skills, 'beta', 'SKILL.md')]);
    expect(counted.parses).toBe(1);
    expect(counted.toolsLoads).toEqual([]);
    expect(descriptionOf(after, 'beta')).toBe('beta skill, revised');
    expect(descriptionOf(after, 'alpha')).toBe('alpha skill');
    expect(descriptionOf(after, 'one')).toBe('first tool');
    expect(after.skills).toHaveLength(SKILLS.length + 1);
  });

  it('loads a tools file again once its stat moved, and sees a deleted skill go', async () => {
    const catalog = new SkillCatalog(options);
    await catalog.get();
    counted.toolsLoads.length = 0;
    await writeFile(tools, `${JSON.stringify({ id: 'one', name: 'one', description: 'first tool, revised' })}\n`);
    const later = new Date(Date.now() + 5000);
    await utimes(tools, later, later);
    await removeDir(join(skills, 'gamma'));
    catalog.clear();
    const after = await catalog.get();
    expect(counted.toolsLoads).toEqual([tools]);
    expect(descriptionOf(after, 'one')).toBe('first tool, revised');
    expect(after.skills.map((skill) => skill.name).sort()).toEqual(['alpha', 'beta', 'delta', 'one']);
  });
});

describe('ScanMemo', () => {
  it('keeps a scan equal to a scan without it, counting what it reused and read', async () => {
    const memo = new ScanMemo();
    const scan = (withMemo: boolean) => scanSkillsDir(skills, { source: 'skills', rank: 3, ...(withMemo ? { memo } : {}) });
    await scan(true);
    expect(memo.last).toEqual({ reused: 0, read: SKILLS.length });
    await writeTree(skills, { 'epsilon/SKILL.md': skillMd('epsilon skill'), 'alpha/SKILL.md': skillMd('alpha skill, revised') });
    const memoised = await scan(true);
    expect(memo.last).toEqual({ reused: SKILLS.length - 1, read: 2 });
    const plain = await scan(false);
    expect(memoised.skills).toEqual(plain.skills);
    expect(memoised.diagnostics).toEqual(plain.diagnostics);
    expect(memoised.stamp).toEqual(plain.stamp);
  });
});
