import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillCatalog, type CatalogChange } from '../../src/load/catalog.js';
import { removeDir, skillMd, tempDir, writeTree } from './helpers.js';

let root: string;
beforeEach(async () => {
  root = await tempDir();
  // A user who has skill folders already: the skill watcher watches them, not the settings files beside them.
  await writeTree(root, {
    'home/project/README.md': 'a project',
    'home/.claude/skills/README.md': 'no skills yet',
    'home/project/.claude/skills/README.md': 'no skills yet',
  });
});
afterEach(async () => removeDir(root));

/** The next change the catalog reports for plugins (file changes are the skill watcher's). */
function pluginChange(catalog: SkillCatalog, timeoutMs = 8000): Promise<CatalogChange> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no plugins change event')), timeoutMs);
    const listener = (change: CatalogChange): void => {
      if (change.reason !== 'plugins') return;
      clearTimeout(timer);
      catalog.off('change', listener);
      resolve(change);
    };
    catalog.on('change', listener);
  });
}

describe('a long-lived catalog follows Claude Code plugin installs and enables', () => {
  it('rescans when a plugin is installed and enabled, and again when it is disabled', async () => {
    const catalog = new SkillCatalog({
      cwd: join(root, 'home/project'),
      home: join(root, 'home'),
      managedDir: null,
      codexHome: null,
      bundledDir: null,
      watch: { pollInterval: 50, stabilityThreshold: 50, coalesceMs: 20 },
    });
    try {
      await catalog.watch();
      expect((await catalog.get()).skills).toEqual([]);
      const installPath = join(root, 'home/.claude/plugins/cache/market/alpha/1.0.0');
      const installed = pluginChange(catalog);
      await writeTree(root, {
        'home/.claude/plugins/cache/market/alpha/1.0.0/.claude-plugin/plugin.json': JSON.stringify({ name: 'alpha' }),
        'home/.claude/plugins/cache/market/alpha/1.0.0/skills/review/SKILL.md': skillMd('alpha review'),
        'home/.claude/plugins/installed_plugins.json': JSON.stringify({ version: 2, plugins: { 'alpha@market': [{ scope: 'user', installPath }] } }),
        'home/.claude/settings.json': JSON.stringify({ enabledPlugins: { 'alpha@market': true } }),
      });
      await installed;
      expect((await catalog.get()).skills.map((skill) => skill.name)).toContain('alpha:review');

      const disabled = pluginChange(catalog);
      await writeTree(root, { 'home/project/.claude/settings.local.json': JSON.stringify({ enabledPlugins: { 'alpha@market': false } }) });
      await disabled;
      expect((await catalog.get()).skills.map((skill) => skill.name)).not.toContain('alpha:review');
    } finally {
      await catalog.close();
    }
  });
});
