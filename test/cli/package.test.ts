import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOurHookCommand } from '../../src/hosts/json-settings.js';
import { ensureBuilt } from '../../scripts/ensure-built.js';
import { ROOT, removeDir, tempDir } from './helpers.js';

const readJson = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));

describe('npm package contents', () => {
  it('holds the bin, the build, the skills, the models and the plugin files, and no tests or fixtures', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const files = (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((file) => file.path);
    for (const wanted of [
      'bin/skill-search.js',
      'bin/package.json',
      'dist/cli/main.js',
      'dist/cli/bundle.cjs',
      'dist/cli/hook-bundle.cjs',
      'dist/cli/mcp-bundle.cjs',
      'dist/index.js',
      'examples/skills/pdf/SKILL.md',
      'models/README.md',
      '.claude-plugin/marketplace.json',
      'plugin/.claude-plugin/plugin.json',
      'plugin/hooks/hooks.json',
      'plugin/skills/skill-search/SKILL.md',
      'package.json',
      'README.md',
    ]) {
      expect(files).toContain(wanted);
    }
    const junk = files.filter((file) => /^(test|fixtures|bench|scripts|src|node_modules)\/|\.test\.|\.tmp$|examples\/(?!skills\/)/.test(file));
    expect(junk).toEqual([]);
  });
});

describe('Claude Code plugin', () => {
  it('is the plugin/ folder: manifests and its skill only, running the skill-search command npm installed', () => {
    const pkg = readJson('package.json');
    const manifest = readJson('plugin/.claude-plugin/plugin.json');
    expect(manifest).toMatchObject({ name: 'skill-search', version: pkg.version, author: { name: 'skill-search' } });
    const hooks = readJson('plugin/hooks/hooks.json').hooks.UserPromptSubmit as { hooks: { type: string; command: string }[] }[];
    const command = hooks[0]!.hooks[0]!.command;
    expect(command).toBe('skill-search hook claude-code');
    expect(isOurHookCommand(command)).toBe(true);
    // Declared in the plugin's manifest: a clone's root .mcp.json would be read as a project config.
    expect(manifest.mcpServers['skill-search']).toEqual({ command: 'skill-search', args: ['mcp'] });
    expect(existsSync(path.join(ROOT, '.mcp.json'))).toBe(false);
    expect(readJson('.claude-plugin/marketplace.json').plugins[0]).toMatchObject({ name: 'skill-search', source: './plugin' });
    // Claude Code copies the whole folder and runs `npm ci` where it finds a package.json and a lockfile:
    // the plugin holds no package, no node_modules, no model.
    const files = (function walk(dir: string): string[] {
      return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? walk(path.join(dir, entry.name)) : [path.relative(path.join(ROOT, 'plugin'), path.join(dir, entry.name))],
      );
    })(path.join(ROOT, 'plugin'));
    expect(files.sort()).toEqual(['.claude-plugin/plugin.json', 'hooks/hooks.json', 'skills/skill-search/SKILL.md']);
  });
});

describe('fresh HOME: npm install -g, install claude-code, a prompt through the installed hook, uninstall', () => {
  let prefix: string;
  let home: string;
  beforeAll(() => {
    // The bin runs the build: bring dist up to date when a source is newer.
    ensureBuilt();
    prefix = tempDir('skill-search-prefix-');
    home = tempDir('skill-search-home-');
  }, 180_000);
  afterAll(() => {
    removeDir(prefix);
    removeDir(home);
  });

  it('works end to end with the bin npm put on PATH', () => {
    // A folder install is a link to the clone: no registry, no rebuild.
    execFileSync('npm', ['install', '-g', '.', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: ROOT, stdio: 'ignore' });
    const bin = path.join(prefix, 'bin');
    expect(existsSync(path.join(bin, 'skill-search'))).toBe(true);
    const env = { PATH: `${bin}${path.delimiter}${process.env.PATH}`, HOME: home, SKILL_SEARCH_CACHE_DIR: path.join(home, '.cache') };
    const run = (args: string[], input?: string) => spawnSync('skill-search', args, { env, cwd: home, encoding: 'utf8', input: input ?? '', timeout: 60_000 });

    const settingsFile = path.join(home, '.claude', 'settings.json');
    mkdirSync(path.dirname(settingsFile), { recursive: true });
    const original = '{\n  "theme": "dark"\n}\n';
    writeFileSync(settingsFile, original);
    const project = path.join(home, 'project');
    mkdirSync(path.join(home, '.claude', 'skills', 'pdf-tables'), { recursive: true });
    mkdirSync(project);
    writeFileSync(
      path.join(home, '.claude', 'skills', 'pdf-tables', 'SKILL.md'),
      '---\ndescription: Extract text and tables from PDF files\n---\nUse pdfplumber.\n',
    );

    const install = run(['install', 'claude-code']);
    expect(install.status).toBe(0);
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
    expect(settings.theme).toBe('dark');
    const command = settings.hooks.UserPromptSubmit[0].hooks[0].command as string;
    expect(command).toBe('skill-search hook claude-code');
    expect(JSON.parse(readFileSync(path.join(home, '.claude.json'), 'utf8')).mcpServers['skill-search']).toMatchObject({
      command: 'skill-search',
      args: ['mcp'],
    });

    expect(run(['index', '--cwd', project]).status).toBe(0);
    const hook = spawnSync('sh', ['-c', command], {
      env,
      cwd: project,
      encoding: 'utf8',
      input: JSON.stringify({ hook_event_name: 'UserPromptSubmit', cwd: project, prompt: 'extract the tables from this PDF file' }),
      timeout: 60_000,
    });
    expect(hook.status).toBe(0);
    const context = JSON.parse(hook.stdout).hookSpecificOutput.additionalContext as string;
    expect(context).toContain('- pdf-tables: Extract text and tables from PDF files');
    expect(context).not.toContain('examples/skills');

    expect(run(['uninstall', 'claude-code']).status).toBe(0);
    expect(readFileSync(settingsFile, 'utf8')).toBe(original);
    expect(existsSync(path.join(home, '.claude.json'))).toBe(false);
  }, 180_000);
});
