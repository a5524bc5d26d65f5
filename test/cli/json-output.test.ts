import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ownBin } from '../../src/hosts/command.js';
import { removeDir, runCli, tempDir } from './helpers.js';

// --json wherever a command prints a result: install, uninstall, print-config, library path.
let home: string;
const cli = (argv: string[]) => runCli(argv, home, { env: { PATH: '', CODEX_HOME: undefined }, cwd: home });
const command = ['node', ownBin()];

beforeEach(() => {
  home = tempDir('skill-search-json-');
});
afterEach(() => removeDir(home));

describe('--json', () => {
  it('install and uninstall: each file changed, what and how, and nothing else on stdout', async () => {
    const dry = await cli(['install', 'claude-code', '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual({
      host: 'claude-code',
      scope: 'user',
      dryRun: true,
      command,
      changes: [
        { file: path.join(home, '.claude', 'settings.json'), action: 'added', what: expect.any(String) },
        { file: path.join(home, '.claude.json'), action: 'added', what: expect.any(String) },
      ],
    });
    expect(existsSync(path.join(home, '.claude.json'))).toBe(false);

    const installed = JSON.parse((await cli(['install', 'claude-code', '--json'])).stdout);
    expect(installed).toMatchObject({ dryRun: false, changes: [{ action: 'added' }, { action: 'added' }] });
    expect(existsSync(path.join(home, '.claude.json'))).toBe(true);

    const removed = JSON.parse((await cli(['uninstall', 'claude-code', '--json'])).stdout);
    expect(removed).toEqual({
      host: 'claude-code',
      scope: 'user',
      dryRun: false,
      changes: [
        { file: path.join(home, '.claude', 'settings.json'), action: 'deleted', what: expect.any(String) },
        { file: path.join(home, '.claude.json'), action: 'deleted', what: expect.any(String) },
      ],
    });
  });

  it('print-config: the settings as objects, keyed by the file they go in', async () => {
    const generic = await cli(['print-config', '--json']);
    expect(JSON.parse(generic.stdout)).toEqual({
      host: 'generic',
      files: { 'mcp.json': { mcpServers: { 'skill-search': { command: 'node', args: [ownBin(), 'mcp'] } } } },
    });
    const claude = JSON.parse((await cli(['print-config', '--host', 'claude-code', '--command', 'skill-search', '--json'])).stdout);
    expect(claude.files['.mcp.json']).toEqual({ mcpServers: { 'skill-search': { type: 'stdio', command: 'skill-search', args: ['mcp'] } } });
    expect(claude.files['settings.json'].hooks.UserPromptSubmit[0].hooks[0].command).toBe('skill-search hook claude-code');
    const codex = JSON.parse((await cli(['print-config', '--host', 'codex', '--command', 'skill-search', '--json'])).stdout);
    expect(codex.files['config.toml']).toContain('[mcp_servers.skill-search]');
  });

  it('library path: the folder and whether it exists', async () => {
    const result = await cli(['library', 'path', '--json']);
    expect(JSON.parse(result.stdout)).toEqual({ library: path.join(home, '.config', 'skill-search', 'library'), exists: false });
    mkdirSync(path.join(home, '.config', 'skill-search', 'library'), { recursive: true });
    expect(JSON.parse((await cli(['library', 'path', '--json'])).stdout).exists).toBe(true);
  });
});

describe('demo skills are labelled as such', () => {
  it('in validate and list, in an empty HOME', async () => {
    const validate = await cli(['validate']);
    expect(validate.stdout).toBe(
      "9 skills loaded, all 9 demo skills (this package's examples, used because no skill of yours was found; --no-demo leaves them out); 0 errors, 0 warnings, 0 shadowed\n",
    );
    expect(JSON.parse((await cli(['validate', '--json'])).stdout)).toMatchObject({ skills: 9, demo: 9 });
    const list = await cli(['list']);
    expect(list.stderr).toBe(
      "skill-search: listing all 9 demo skills (this package's examples, used because no skill of yours was found; --no-demo leaves them out)\n",
    );
    const listed = JSON.parse((await cli(['list', '--json'])).stdout) as { skills: { demo?: boolean }[] };
    expect(listed.skills.every((skill) => skill.demo === true)).toBe(true);
  });
});
