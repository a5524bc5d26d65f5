import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillCatalog, formatShadowed, type CatalogOptions } from '../../src/load/index.js';
import { projectDirs } from '../../src/load/sources.js';
import { removeDir, skillMd, tempDir, writeTree } from './helpers.js';

describe('projectDirs', () => {
  it('walks from cwd up to, not including, home', () => {
    expect(projectDirs('/home/u/work/repo/pkg', '/home/u')).toEqual(['/home/u/work/repo/pkg', '/home/u/work/repo', '/home/u/work']);
  });

  it('walks up to the filesystem root when cwd is outside home', () => {
    expect(projectDirs('/srv/app', '/home/u')).toEqual(['/srv/app', '/srv', '/']);
  });

  it('has none when cwd is home: home is the user source, and the folders above it no project', () => {
    expect(projectDirs('/home/u', '/home/u')).toEqual([]);
  });
});

describe('shadowing across every source', () => {
  let root: string;
  beforeEach(async () => {
    root = await tempDir();
  });
  afterEach(() => removeDir(root));

  /** Every source directory, highest priority first, as (label, file for skill `name`). */
  function levels(r: string): [string, (name: string) => string][] {
    const home = join(r, 'home');
    const nearest = join(home, 'work', 'repo', 'pkg');
    const parent = join(home, 'work', 'repo');
    return [
      ['bundled', (n) => join(r, 'bundled', n, 'SKILL.md')],
      ['builtin plugin', (n) => join(r, 'builtin', 'skills', n, 'SKILL.md')],
      ['managed', (n) => join(r, 'managed', n, 'SKILL.md')],
      ['user', (n) => join(home, '.claude', 'skills', n, 'SKILL.md')],
      ['project nearest', (n) => join(nearest, '.claude', 'skills', n, 'SKILL.md')],
      ['project parent', (n) => join(parent, '.claude', 'skills', `${n}.md`)],
      ['add-dir', (n) => join(r, 'extra', '.claude', 'skills', n, 'SKILL.md')],
      ['user commands', (n) => join(home, '.claude', 'commands', `${n}.md`)],
      ['project commands', (n) => join(nearest, '.claude', 'commands', `${n}.md`)],
      ['plugin commands', (n) => join(r, 'plugin', 'commands', `${n}.md`)],
      ['plugin skills', (n) => join(r, 'plugin', 'skills', n, 'SKILL.md')],
    ];
  }

  function options(r: string): CatalogOptions {
    return {
      cwd: join(r, 'home', 'work', 'repo', 'pkg'),
      home: join(r, 'home'),
      bundledDir: join(r, 'bundled'),
      managedDir: join(r, 'managed'),
      builtinPluginDirs: [join(r, 'builtin')],
      addDirs: [join(r, 'extra')],
      pluginDirs: [join(r, 'plugin')],
    };
  }

  it('first wins by rank, and every loser is recorded in rank order', async () => {
    const all = levels(root);
    // Skill `s<i>` exists at level i and every level below it, so level i must win it.
    const files: Record<string, string> = {};
    all.forEach((_, i) => {
      for (const [label, fileFor] of all.slice(i)) {
        files[fileFor(`s${i}`).slice(root.length + 1)] = skillMd(`s${i} from ${label}`);
      }
    });
    await writeTree(root, files);
    const catalog = new SkillCatalog(options(root));
    catalog.registerMcpSkills('srv', [
      ...all.map((_, i) => ({ name: `s${i}`, description: `s${i} from mcp` })),
      { name: 'only-mcp', description: 'MCP alone' },
    ]);
    const snapshot = await catalog.get();

    expect(snapshot.skills.map((skill) => [skill.name, skill.description, skill.source, skill.rank])).toEqual([
      ['s0', 's0 from bundled', 'bundled', 1],
      ['s1', 's1 from builtin plugin', 'plugin', 2],
      ['s2', 's2 from managed', 'managed', 3],
      ['s3', 's3 from user', 'skills', 4],
      ['s4', 's4 from project nearest', 'skills', 5],
      ['s5', 's5 from project parent', 'skills', 5],
      ['s6', 's6 from add-dir', 'skills', 6],
      ['s7', 's7 from user commands', 'commands_DEPRECATED', 7],
      ['s8', 's8 from project commands', 'commands_DEPRECATED', 7],
      ['s9', 's9 from plugin commands', 'plugin', 7],
      ['s10', 's10 from plugin skills', 'plugin', 7],
      ['only-mcp', 'MCP alone', 'mcp', 8],
    ]);
    // Per name: the winner, then every loser in rank order.
    const expected = Object.fromEntries(
      all.map(([, winnerFile], i) => [
        `s${i}`,
        { winner: winnerFile(`s${i}`), losers: [...all.slice(i + 1).map(([, fileFor]) => fileFor(`s${i}`)), `mcp:srv/s${i}`] },
      ]),
    );
    const actual: Record<string, { winner: string; losers: string[] }> = {};
    for (const s of snapshot.shadowed) {
      const entry = (actual[s.name] ??= { winner: s.winner.path, losers: [] });
      expect(s.winner.path).toBe(entry.winner);
      entry.losers.push(s.loser.path);
    }
    expect(actual).toEqual(expected);
    expect(snapshot.diagnostics).toEqual([]);
  });

  it('formats a collision as one line naming winner and loser', async () => {
    await writeTree(root, {
      'bundled/pdf/SKILL.md': skillMd('bundled pdf'),
      'home/.claude/skills/pdf/SKILL.md': skillMd('user pdf'),
    });
    const snapshot = await new SkillCatalog(options(root)).get();
    expect(snapshot.shadowed.map(formatShadowed)).toEqual([
      `skill-search: duplicate skill "pdf": ${root}/bundled/pdf/SKILL.md shadows ${root}/home/.claude/skills/pdf/SKILL.md`,
    ]);
    expect(snapshot.shadowed[0]).toEqual({
      name: 'pdf',
      winner: { path: `${root}/bundled/pdf/SKILL.md`, source: 'bundled', rank: 1 },
      loser: { path: `${root}/home/.claude/skills/pdf/SKILL.md`, source: 'skills', rank: 4 },
    });
  });

  it('two paths to the same file are one skill, not a collision', async () => {
    await writeTree(root, { 'home/.claude/skills/shared/SKILL.md': skillMd('shared skill') });
    const projectSkills = join(root, 'home', 'work', 'repo', 'pkg', '.claude', 'skills');
    await mkdir(projectSkills, { recursive: true });
    await symlink(join(root, 'home', '.claude', 'skills', 'shared'), join(projectSkills, 'shared'));
    await symlink(join(root, 'home', '.claude', 'skills', 'shared'), join(projectSkills, 'alias'));
    const snapshot = await new SkillCatalog(options(root)).get();
    expect(snapshot.skills.map((skill) => [skill.name, skill.path])).toEqual([['shared', join(root, 'home', '.claude', 'skills', 'shared', 'SKILL.md')]]);
    expect(snapshot.shadowed).toEqual([]);
  });

  it("Claude Code's folders name a skill by its folder, as Claude Code lists it; Codex's keep the frontmatter name", async () => {
    await writeTree(root, {
      'home/.claude/skills/view-transitions/SKILL.md': skillMd('User skill', { name: 'vercel-view-transitions' }),
      'home/work/repo/pkg/.claude/skills/composition/SKILL.md': skillMd('Project skill', { name: 'vercel-composition' }),
      'managed/policy/SKILL.md': skillMd('Managed skill', { name: 'org-policy' }),
      'home/.agents/skills/fix-ci/SKILL.md': skillMd('Codex skill', { name: 'gh-fix-ci' }),
    });
    const snapshot = await new SkillCatalog(options(root)).get();
    expect(snapshot.skills.map((skill) => [skill.name, skill.source])).toEqual([
      ['policy', 'managed'],
      ['view-transitions', 'skills'],
      ['composition', 'skills'],
      ['gh-fix-ci', 'codex'],
    ]);
    // The spec's warning still names both, and the name the host uses.
    const file = join(root, 'home', '.claude', 'skills', 'view-transitions', 'SKILL.md');
    expect(snapshot.diagnostics.filter((d) => d.path === file).map((d) => d.message)).toEqual([
      'name "vercel-view-transitions" does not match its folder "view-transitions" (Agent Skills spec); Claude Code names it "view-transitions"',
    ]);
  });

  it('the project walk stops below home, so the user folder is not read twice as a project', async () => {
    await writeTree(root, { 'home/.claude/skills/mine/SKILL.md': skillMd('mine') });
    const snapshot = await new SkillCatalog(options(root)).get();
    expect(snapshot.skills.map((skill) => [skill.name, skill.rank])).toEqual([['mine', 4]]);
  });

  it('started in home, each user file is read once and nothing above home is read', async () => {
    await writeTree(root, {
      'home/.claude/skills/mine/SKILL.md': skillMd('mine'),
      'home/.claude/skills/broken/SKILL.md': '---\ndescription: [unclosed\n---\n',
      '.claude/skills/above-home/SKILL.md': skillMd('above home'),
    });
    const snapshot = await new SkillCatalog({ ...options(root), cwd: join(root, 'home') }).get();
    expect(snapshot.skills.map((skill) => [skill.name, skill.rank])).toEqual([['mine', 4]]);
    expect(snapshot.diagnostics.map((d) => [d.code, d.path])).toEqual([['bad-yaml', join(root, 'home', '.claude', 'skills', 'broken', 'SKILL.md')]]);
  });

  it('--skills-dir replaces every default source', async () => {
    await writeTree(root, {
      'bundled/pdf/SKILL.md': skillMd('bundled pdf'),
      'home/.claude/skills/user-skill/SKILL.md': skillMd('user'),
      'only/a/SKILL.md': skillMd('a'),
      'only2/a.md': skillMd('a again'),
      'only2/b.md': skillMd('b'),
    });
    const snapshot = await new SkillCatalog({
      ...options(root),
      skillsDirs: [join(root, 'only'), join(root, 'only2')],
    }).get();
    expect(snapshot.skills.map((skill) => [skill.name, skill.source])).toEqual([
      ['a', 'skills'],
      ['b', 'skills'],
    ]);
    expect(snapshot.shadowed.map((s) => [s.winner.path, s.loser.path])).toEqual([[join(root, 'only', 'a', 'SKILL.md'), join(root, 'only2', 'a.md')]]);
  });
});
