import { execFileSync } from 'node:child_process';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatDiagnostic, scanSkillsDir } from '../../src/load/index.js';
import { FIXTURES, removeDir, skillMd, tempDir, writeTree } from './helpers.js';

const skillsOptions = { source: 'skills', rank: 5 } as const;

function summary(result: Awaited<ReturnType<typeof scanSkillsDir>>) {
  return {
    names: result.skills.map((skill) => skill.name),
    problems: result.diagnostics.map((d) => [d.code, d.path, d.severity]),
  };
}

describe('scanSkillsDir on the valid fixture', () => {
  it('loads folder skills and loose files in name order, and nothing else', async () => {
    const dir = join(FIXTURES, 'valid', 'skills');
    const result = await scanSkillsDir(dir, skillsOptions);
    expect(summary(result)).toEqual({ names: ['alpha', 'beta', 'listed', 'loose', 'numbered'], problems: [] });
    expect(result.skills.map((skill) => skill.path)).toEqual([
      join(dir, 'alpha', 'SKILL.md'),
      join(dir, 'beta', 'SKILL.md'),
      join(dir, 'listed', 'SKILL.md'),
      join(dir, 'loose.md'),
      join(dir, 'numbered', 'SKILL.md'),
    ]);
    expect(result.skills[2]).toMatchObject({ description: 'first part, second part', whenToUse: 'one, two' });
    expect(result.skills[4]).toMatchObject({ description: '42', body: '' });
  });

  it('namespaces nested legacy commands as folder:name', async () => {
    const dir = join(FIXTURES, 'valid', 'commands');
    const result = await scanSkillsDir(dir, { source: 'commands_DEPRECATED', rank: 7, layout: 'commands' });
    expect(result.skills.map((skill) => [skill.name, skill.path])).toEqual([
      ['git:commit', join(dir, 'git', 'commit.md')],
      ['git:remote:push', join(dir, 'git', 'remote', 'push.md')],
      ['top', join(dir, 'top.md')],
    ]);
    expect(result.diagnostics).toEqual([]);
  });

  it('names a SKILL.md at the top of the scanned folder after that folder', async () => {
    const result = await scanSkillsDir(join(FIXTURES, 'valid', 'skills', 'beta'), skillsOptions);
    expect(result.skills.map((skill) => skill.name)).toEqual(['beta']);
  });

  it('treats a missing directory as empty, without a diagnostic', async () => {
    const result = await scanSkillsDir(join(FIXTURES, 'does-not-exist'), skillsOptions);
    expect(summary(result)).toEqual({ names: [], problems: [] });
  });
});

describe('scanSkillsDir on broken fixtures', () => {
  const cases: [string, string[][]][] = [
    [
      'bad-field',
      [
        ['bad-field', 'bell/SKILL.md'],
        ['bad-field', 'control/SKILL.md'],
        ['bad-field', 'mapping/SKILL.md'],
      ],
    ],
    [
      'js-frontmatter',
      [
        ['bad-yaml', 'coffee/SKILL.md'],
        ['bad-yaml', 'evil/SKILL.md'],
      ],
    ],
  ];

  it.each(cases)('%s: each broken file is diagnosed and the good file still loads', async (kind, expected) => {
    const dir = join(FIXTURES, 'broken', kind, 'skills');
    const result = await scanSkillsDir(dir, skillsOptions);
    expect(summary(result)).toEqual({
      names: ['ok'],
      problems: expected.map(([code, file]) => [code, join(dir, file!), 'error']),
    });
  });

  it('missing-description: a SKILL.md body gives the description (a warning, as Claude Code does); a blank one, or a loose .md, is an error', async () => {
    const dir = join(FIXTURES, 'broken', 'missing-description', 'skills');
    const result = await scanSkillsDir(dir, skillsOptions);
    expect(summary(result)).toEqual({
      names: ['absent', 'ok'],
      problems: [
        ['missing-description', join(dir, 'absent', 'SKILL.md'), 'warning'],
        ['missing-description', join(dir, 'blank', 'SKILL.md'), 'error'],
        // A loose .md beside skill folders (a README, notes) is not taken for a skill without a description.
        ['missing-description', join(dir, 'no-frontmatter.md'), 'error'],
      ],
    });
    expect(result.skills.map((skill) => skill.description)).toEqual(['Body without a description.', 'The good file beside a broken one']);
  });

  it('a legacy command without frontmatter loads by its first paragraph, as Claude Code loads it', async () => {
    const dir = join(FIXTURES, 'broken', 'missing-description', 'skills');
    const result = await scanSkillsDir(dir, { ...skillsOptions, layout: 'commands' });
    expect(result.skills.find((skill) => skill.name === 'no-frontmatter')?.description).toBe('Just markdown');
  });

  it('bad-yaml: unreadable frontmatter is an error, except text fields with an unquoted ": " (read line by line)', async () => {
    const dir = join(FIXTURES, 'broken', 'bad-yaml', 'skills');
    const result = await scanSkillsDir(dir, skillsOptions);
    expect(summary(result)).toEqual({
      names: ['broken', 'ok'],
      problems: [
        ['bad-yaml', join(dir, 'broken', 'SKILL.md'), 'warning'],
        ['bad-yaml', join(dir, 'scalar', 'SKILL.md'), 'error'],
        ['bad-yaml', join(dir, 'unclosed', 'SKILL.md'), 'error'],
      ],
    });
    expect(result.skills[0]?.description).toBe('this: has: too many colons and: [an unclosed list');
  });

  it('bad-effort and too-large are warnings: the skill still loads', async () => {
    const effortDir = join(FIXTURES, 'broken', 'bad-effort', 'skills');
    expect(summary(await scanSkillsDir(effortDir, skillsOptions))).toEqual({
      names: ['extreme', 'ok'],
      problems: [['bad-effort', join(effortDir, 'extreme', 'SKILL.md'), 'warning']],
    });
    const largeDir = join(FIXTURES, 'broken', 'too-large', 'skills');
    const large = await scanSkillsDir(largeDir, skillsOptions);
    expect(summary(large)).toEqual({
      names: ['long-description', 'ok'],
      problems: [
        ['too-large', join(largeDir, 'long-description', 'SKILL.md'), 'warning'],
        // The Agent Skills spec allows 1,024 characters: a warning, never an error.
        ['bad-field', join(largeDir, 'long-description', 'SKILL.md'), 'warning'],
      ],
    });
    expect(large.skills[0]?.description).toHaveLength(4096);
  });

  it('never evaluates executable frontmatter while scanning', async () => {
    await scanSkillsDir(join(FIXTURES, 'broken', 'js-frontmatter', 'skills'), skillsOptions);
    expect((globalThis as Record<string, unknown>)['__skillSearchPwned']).toBeUndefined();
  });

  it('renders each problem as one line naming the file', async () => {
    const dir = join(FIXTURES, 'broken', 'bad-field', 'skills');
    const result = await scanSkillsDir(dir, skillsOptions);
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([
      `skill-search: ${dir}/bell/SKILL.md: name "bell\\u0007name" contains a newline or control character`,
      `skill-search: ${dir}/control/SKILL.md: name "evil\\nname" contains a newline or control character`,
      `skill-search: ${dir}/mapping/SKILL.md: \`description\` must be text, got a mapping`,
    ]);
  });
});

describe('scanSkillsDir on files git cannot store', () => {
  let root: string;
  beforeEach(async () => {
    root = await tempDir();
    await writeTree(root, { 'ok/SKILL.md': skillMd('fine') });
  });
  afterEach(async () => {
    await chmod(join(root, 'locked', 'SKILL.md'), 0o644).catch(() => undefined);
    await removeDir(root);
  });

  async function expectOnly(code: string, file: string, message: string) {
    const result = await scanSkillsDir(root, skillsOptions);
    expect(result.skills.map((skill) => skill.name)).toEqual(['ok']);
    expect(result.diagnostics).toEqual([{ code, path: join(root, file), message, severity: 'error' }]);
  }

  it('binary: NUL bytes', async () => {
    await writeTree(root, { 'nul/SKILL.md': Buffer.from('---\ndescription: x\n---\n\0\0\0') });
    await expectOnly('binary', 'nul/SKILL.md', 'contains NUL bytes; a skill must be UTF-8 text');
  });

  it('binary: invalid UTF-8', async () => {
    await writeTree(root, { 'latin1/SKILL.md': Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0xc3, 0x28]) });
    await expectOnly('binary', 'latin1/SKILL.md', 'is not valid UTF-8 text');
  });

  it('symlink-loop: a SKILL.md that links to itself', async () => {
    await mkdir(join(root, 'loop'));
    await symlink('SKILL.md', join(root, 'loop', 'SKILL.md'));
    await expectOnly('symlink-loop', 'loop/SKILL.md', 'symbolic link loop (ELOOP)');
  });

  it('symlink-loop: a skill folder that links to itself', async () => {
    await symlink(join(root, 'cycle'), join(root, 'cycle'));
    await expectOnly('symlink-loop', 'cycle', 'symbolic link loop (ELOOP)');
  });

  it('unreadable: a SKILL.md that is a directory', async () => {
    await mkdir(join(root, 'dir', 'SKILL.md'), { recursive: true });
    await expectOnly('unreadable', 'dir/SKILL.md', 'is not a regular file');
  });

  it('unreadable: a FIFO is reported, not opened (which would hang)', async () => {
    await mkdir(join(root, 'fifo'));
    execFileSync('mkfifo', [join(root, 'fifo', 'SKILL.md')]);
    await expectOnly('unreadable', 'fifo/SKILL.md', 'is not a regular file');
  });

  it('unreadable: a broken symlink', async () => {
    await symlink(join(root, 'nowhere'), join(root, 'dangling.md'));
    await expectOnly('unreadable', 'dangling.md', 'is a broken symbolic link');
  });

  it.skipIf(process.getuid?.() === 0)('unreadable: permission denied', async () => {
    await writeTree(root, { 'locked/SKILL.md': skillMd('secret') });
    await chmod(join(root, 'locked', 'SKILL.md'), 0o000);
    await expectOnly('unreadable', 'locked/SKILL.md', 'cannot be read: permission denied (EACCES)');
  });

  it('too-large: a 10 MB file is read only up to the cap and loads with a warning', async () => {
    await writeFile(join(root, 'huge.md'), `---\ndescription: huge\n---\n${'y'.repeat(10 * 1024 * 1024)}`);
    const result = await scanSkillsDir(root, skillsOptions);
    expect(result.skills.map((skill) => [skill.name, skill.body.length])).toEqual([
      ['huge', 1024 * 1024],
      ['ok', 'Body.\n'.length],
    ]);
    expect(result.diagnostics).toEqual([
      {
        code: 'too-large',
        path: join(root, 'huge.md'),
        message: 'body is larger than 1048576 bytes; cut to that size',
        severity: 'warning',
      },
    ]);
  });

  it('a FIFO or a link to /dev/zero named .md is reported as skipped, naming it, not opened (which would hang or never end)', async () => {
    await writeTree(root, { 'cmds/a.md': skillMd('a') });
    execFileSync('mkfifo', [join(root, 'cmds', 'pipe.md')]);
    await symlink('/dev/zero', join(root, 'cmds', 'zero.md'));
    const commands = await scanSkillsDir(join(root, 'cmds'), { source: 'commands_DEPRECATED', rank: 7, layout: 'commands' });
    expect(commands.skills.map((skill) => skill.name)).toEqual(['a']);
    expect(commands.diagnostics).toEqual([
      { code: 'unreadable', path: join(root, 'cmds', 'pipe.md'), message: 'is not a regular file (a FIFO); skipped', severity: 'error' },
      { code: 'unreadable', path: join(root, 'cmds', 'zero.md'), message: 'is not a regular file (a device); skipped', severity: 'error' },
    ]);
    const skills = await scanSkillsDir(join(root, 'cmds'), skillsOptions);
    expect(skills.diagnostics.map((d) => [d.path, d.message])).toEqual([
      [join(root, 'cmds', 'pipe.md'), 'is not a regular file (a FIFO); skipped'],
      [join(root, 'cmds', 'zero.md'), 'is not a regular file (a device); skipped'],
    ]);
  });

  it('a commands tree that links back to itself is scanned once', async () => {
    await writeTree(root, { 'cmds/a.md': skillMd('a') });
    await symlink(join(root, 'cmds'), join(root, 'cmds', 'again'));
    const result = await scanSkillsDir(join(root, 'cmds'), { source: 'commands_DEPRECATED', rank: 7, layout: 'commands' });
    expect(result.skills.map((skill) => skill.name)).toEqual(['a']);
    expect(result.diagnostics.map((d) => [d.code, d.path])).toEqual([['symlink-loop', join(root, 'cmds', 'again')]]);
  });
});
