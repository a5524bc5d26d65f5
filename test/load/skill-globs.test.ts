import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfigFile } from '../../src/config/user-config.js';
import { MAX_GLOB_LENGTH, SkillMatcher } from '../../src/load/skill-globs.js';
import { removeDir, runCli, tempDir } from '../cli/helpers.js';

const skill = (name: string, file = `/home/u/.claude/skills/${name}/SKILL.md`) => ({ name, path: file });
const matches = (patterns: string[], name: string, file?: string) => new SkillMatcher(patterns).matches(skill(name, file));

describe('SkillMatcher', () => {
  it('matches names with * and ?, ignoring case', () => {
    expect(matches(['pdf-*'], 'PDF-forms')).toBe(true);
    expect(matches(['pdf-*'], 'xlsx')).toBe(false);
    expect(matches(['p?f'], 'pdf')).toBe(true);
    expect(matches(['p?f'], 'pf')).toBe(false);
    expect(matches(['*forms'], 'pdf-forms')).toBe(true);
    expect(matches(['*a*b'], 'aXbYa')).toBe(false);
    expect(matches(['*a*b'], 'aXbYab')).toBe(true);
    expect(matches(['a.c'], 'abc')).toBe(false);
  });

  it('matches a pattern with a slash against the path: * stays in one folder, a ** segment crosses any number', () => {
    const file = '/home/u/project/vendor/x/pdf/SKILL.md';
    expect(matches(['**/vendor/**'], 'pdf', file)).toBe(true);
    expect(matches(['**/vendor/**'], 'pdf', '/home/u/myvendor/pdf/SKILL.md')).toBe(false);
    expect(matches(['/home/u/project/*/SKILL.md'], 'pdf', file)).toBe(false);
    expect(matches(['/home/u/project/*/*/*/SKILL.md'], 'pdf', file)).toBe(true);
    expect(matches(['/home/u/**/SKILL.md'], 'pdf', file)).toBe(true);
    expect(matches(['/home/u/**/pdf/SKILL.md'], 'pdf', '/home/u/pdf/SKILL.md')).toBe(true);
    expect(matches(['**/Vendor/**'], 'pdf', file)).toBe(false);
    expect(matches(['**/v?ndor/**'], 'pdf', 'C:\\u\\vendor\\pdf\\SKILL.md')).toBe(true);
  });

  it('answers a backtracking bomb at once (a regular expression took minutes)', () => {
    const bomb = `${'*a'.repeat(20)}*c`;
    const started = performance.now();
    expect(matches([bomb], 'a'.repeat(60))).toBe(false);
    expect(matches([`**/${bomb}/**`], 'x', `/${'a'.repeat(60)}/${'a/'.repeat(200)}SKILL.md`)).toBe(false);
    expect(matches([`${'**/a/'.repeat(100)}c`], 'x', `/${'a/'.repeat(1000)}SKILL.md`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('refuses a pattern longer than the cap', () => {
    expect(() => new SkillMatcher(['x'.repeat(MAX_GLOB_LENGTH + 1)])).toThrow(/skill pattern of 1025 characters is longer than 1024/);
    expect(new SkillMatcher(['x'.repeat(MAX_GLOB_LENGTH)]).empty).toBe(false);
  });
});

describe('patterns in a config file', () => {
  let home: string | undefined;
  afterEach(() => {
    if (home !== undefined) removeDir(home);
    home = undefined;
  });

  it('a pattern over the cap is a one-line error naming the file', () => {
    home = tempDir('skill-search-globs-');
    const file = path.join(home, 'skill-search.json');
    writeFileSync(file, JSON.stringify({ include: ['x'.repeat(200_000)] }));
    expect(() => readConfigFile(file)).toThrow(`${file}: "include[0]": Too big: expected string to have <=1024 characters, got 200000`);
  });

  it('a project exclude bomb with a long skill name does not stall list', async () => {
    home = tempDir('skill-search-globs-');
    const project = path.join(home, 'project');
    const name = 'a'.repeat(60);
    mkdirSync(path.join(home, '.claude', 'skills', name), { recursive: true });
    writeFileSync(path.join(home, '.claude', 'skills', name, 'SKILL.md'), '---\ndescription: Many a\n---\nSteps.\n');
    mkdirSync(path.join(project, '.claude'), { recursive: true });
    writeFileSync(path.join(project, '.claude', 'skill-search.json'), JSON.stringify({ exclude: [`${'*a'.repeat(20)}*c`] }));
    const result = await runCli(['list', '--json'], home, { env: { PATH: '' }, cwd: project });
    expect((JSON.parse(result.stdout) as { skills: { name: string }[] }).skills.map((entry) => entry.name)).toEqual([name]);
  }, 20_000);
});
