import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillCatalog, type CatalogOptions } from '../../src/load/index.js';
import { removeDir, skillMd, tempDir, writeTree } from './helpers.js';

let root: string;
let base: CatalogOptions;

beforeEach(async () => {
  root = await tempDir();
  base = {
    cwd: join(root, 'home/project'),
    home: join(root, 'home'),
    managedDir: null,
    codexHome: join(root, 'home/.codex'),
    codexAdminDir: null,
    demoDir: join(root, 'demo'),
  };
  await writeTree(root, {
    'home/project/README.md': 'a project',
    'demo/pdf/SKILL.md': skillMd('demo pdf skill'),
    'demo/commit-message/SKILL.md': skillMd('demo commit messages'),
  });
});
afterEach(async () => removeDir(root));

const summary = async (options: CatalogOptions) => (await new SkillCatalog(options).get()).skills.map((skill) => [skill.name, skill.source, skill.rank]);

describe('demo catalogue', () => {
  it('auto: fills an empty catalog, and nothing more', async () => {
    expect(await summary({ ...base, demo: 'auto' })).toEqual([
      ['commit-message', 'demo', 11],
      ['pdf', 'demo', 11],
    ]);
  });

  it("auto: gone as soon as the user has one skill, so it never shadows the user's own pdf", async () => {
    await writeTree(root, { 'home/.claude/skills/pdf/SKILL.md': skillMd('my pdf skill') });
    const catalog = new SkillCatalog({ ...base, demo: 'auto' });
    const snapshot = await catalog.get();
    expect(snapshot.skills.map((skill) => [skill.name, skill.source, skill.description])).toEqual([['pdf', 'skills', 'my pdf skill']]);
    expect(snapshot.shadowed).toEqual([]);
  });

  it('never (the library default) and always', async () => {
    expect(await summary(base)).toEqual([]);
    await writeTree(root, { 'home/.claude/skills/pdf/SKILL.md': skillMd('my pdf skill') });
    // Even when forced in, the demo ranks last: the user's pdf wins and the demo one is reported.
    const snapshot = await new SkillCatalog({ ...base, demo: 'always' }).get();
    expect(snapshot.skills.map((skill) => [skill.name, skill.source])).toEqual([
      ['pdf', 'skills'],
      ['commit-message', 'demo'],
    ]);
    expect(snapshot.shadowed.map((entry) => [entry.name, entry.loser.source])).toEqual([['pdf', 'demo']]);
  });
});

describe('Claude Code plugins', () => {
  const plugin = (name: string) => ({
    [`home/.claude/plugins/cache/market/${name}/1.0.0/.claude-plugin/plugin.json`]: JSON.stringify({ name }),
    [`home/.claude/plugins/cache/market/${name}/1.0.0/skills/review/SKILL.md`]: skillMd(`${name} review`),
  });
  const install = (name: string, extra: Record<string, unknown> = {}) => [
    { scope: 'user', installPath: join(root, `home/.claude/plugins/cache/market/${name}/1.0.0`), version: '1.0.0', ...extra },
  ];

  it('scans enabled plugins only, named plugin:skill; project settings override the user', async () => {
    await writeTree(root, {
      ...plugin('alpha'),
      ...plugin('beta'),
      ...plugin('gamma'),
      'home/.claude/plugins/installed_plugins.json': JSON.stringify({
        version: 2,
        plugins: { 'alpha@market': install('alpha'), 'beta@market': install('beta'), 'gamma@market': install('gamma') },
      }),
      'home/.claude/settings.json': JSON.stringify({ enabledPlugins: { 'alpha@market': true, 'beta@market': true } }),
      'home/project/.claude/settings.local.json': JSON.stringify({ enabledPlugins: { 'beta@market': false } }),
    });
    expect(await summary(base)).toEqual([['alpha:review', 'plugin', 7]]);
    expect(await summary({ ...base, claudePlugins: false })).toEqual([]);
  });

  it("uses a project-scoped install only in its own project, and the manifest's extra skills folder", async () => {
    await writeTree(root, {
      ...plugin('alpha'),
      'home/.claude/plugins/cache/market/alpha/1.0.0/extra/notes/SKILL.md': skillMd('alpha notes'),
      'home/.claude/plugins/cache/market/alpha/1.0.0/.claude-plugin/plugin.json': JSON.stringify({ name: 'alpha', skills: './extra' }),
      'home/.claude/plugins/installed_plugins.json': JSON.stringify({
        version: 2,
        plugins: { 'alpha@market': install('alpha', { scope: 'project', projectPath: join(root, 'home/project') }) },
      }),
      'home/.claude/settings.json': JSON.stringify({ enabledPlugins: { 'alpha@market': true } }),
    });
    expect(await summary(base)).toEqual([
      ['alpha:review', 'plugin', 7],
      ['alpha:notes', 'plugin', 7],
    ]);
    await writeTree(root, { 'home/other/README.md': 'x' });
    expect(await summary({ ...base, cwd: join(root, 'home/other') })).toEqual([]);
  });
});

describe('Codex folders and the library', () => {
  it('scans project .agents/skills, ~/.agents/skills and $CODEX_HOME/skills as codex, after Claude Code; the library after that', async () => {
    await writeTree(root, {
      'home/project/.agents/skills/lint/SKILL.md': skillMd('project lint'),
      'home/.agents/skills/lint/SKILL.md': skillMd('user lint'),
      'home/.codex/skills/deploy/SKILL.md': skillMd('codex deploy'),
      'home/.claude/skills/deploy/SKILL.md': skillMd('claude deploy'),
      'library/xlsx/SKILL.md': skillMd('spreadsheets'),
      'library/deploy/SKILL.md': skillMd('library deploy'),
    });
    const catalog = new SkillCatalog({ ...base, libraryDirs: [join(root, 'library')], demo: 'auto' });
    const snapshot = await catalog.get();
    expect(snapshot.skills.map((skill) => [skill.name, skill.source, skill.rank, skill.description])).toEqual([
      ['deploy', 'skills', 4, 'claude deploy'],
      ['lint', 'codex', 9, 'project lint'],
      ['xlsx', 'library', 10, 'spreadsheets'],
    ]);
    expect(snapshot.shadowed.map((entry) => [entry.name, entry.loser.source])).toEqual([
      ['lint', 'codex'],
      ['deploy', 'codex'],
      ['deploy', 'library'],
    ]);
    expect(await summary({ ...base, codexHome: null })).toEqual([['deploy', 'skills', 4]]);
  });
});
