import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ownBin } from '../../src/hosts/command.js';
import { removeDir, runCli, tempDir } from './helpers.js';

let home: string;
const env = () => ({ PATH: '', CODEX_HOME: undefined });
const cli = (argv: string[]) => runCli(argv, home, { env: env(), cwd: home });
const read = (file: string) => readFileSync(path.join(home, file), 'utf8');
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(home, file)), { recursive: true });
  writeFileSync(path.join(home, file), text);
};

beforeEach(() => {
  home = tempDir('skill-search-install-');
});
afterEach(() => removeDir(home));

const USER_SETTINGS = `{
    "model": "opus",
    "hooks": {
        "UserPromptSubmit": [
            { "hooks": [{ "type": "command", "command": "echo hi" }] }
        ]
    }
}`;

describe('install claude-code', () => {
  it('merges the hook and the MCP server into the user files, keeps a backup, and is idempotent', async () => {
    write('.claude/settings.json', USER_SETTINGS);
    const first = await cli(['install', 'claude-code', '--command', 'skill-search']);
    expect(first.code).toBe(0);
    expect(first.stdout.split('\n')[0]).toBe(
      '~/.claude/settings.json: added the UserPromptSubmit hook "skill-search hook claude-code" (original kept in ~/.claude/settings.json.skill-search.bak)',
    );
    expect(read('.claude/settings.json.skill-search.bak')).toBe(USER_SETTINGS);
    const settings = JSON.parse(read('.claude/settings.json'));
    expect(settings.model).toBe('opus');
    expect(settings.hooks.UserPromptSubmit).toEqual([
      { hooks: [{ type: 'command', command: 'echo hi' }] },
      { hooks: [{ type: 'command', command: 'skill-search hook claude-code', timeout: 10 }] },
    ]);
    // The file's own indentation (4 spaces) is kept.
    expect(read('.claude/settings.json')).toMatch(/^\{\n {4}"model"/);
    expect(JSON.parse(read('.claude.json'))).toEqual({ mcpServers: { 'skill-search': { type: 'stdio', command: 'skill-search', args: ['mcp'] } } });

    const again = await cli(['install', 'claude-code', '--command', 'skill-search']);
    expect(again.stdout).toContain('~/.claude/settings.json: already has the UserPromptSubmit hook');
    expect(JSON.parse(read('.claude/settings.json')).hooks.UserPromptSubmit).toHaveLength(2);
  });

  it('uninstall restores the original bytes, and deletes a file install created', async () => {
    write('.claude/settings.json', USER_SETTINGS);
    await cli(['install', 'claude-code']);
    const out = await cli(['uninstall', 'claude-code']);
    expect(out.code).toBe(0);
    expect(read('.claude/settings.json')).toBe(USER_SETTINGS);
    expect(existsSync(path.join(home, '.claude/settings.json.skill-search.bak'))).toBe(false);
    expect(existsSync(path.join(home, '.claude.json'))).toBe(false);
  });

  it('uninstall keeps what others changed since install (and the backup)', async () => {
    write('.claude/settings.json', USER_SETTINGS);
    await cli(['install', 'claude-code', '--command', 'skill-search']);
    const edited = JSON.parse(read('.claude/settings.json'));
    edited.theme = 'dark';
    write('.claude/settings.json', JSON.stringify(edited, null, 4));
    await cli(['uninstall', 'claude-code']);
    const after = JSON.parse(read('.claude/settings.json'));
    expect(after).toEqual({ ...JSON.parse(USER_SETTINGS), theme: 'dark' });
    expect(existsSync(path.join(home, '.claude/settings.json.skill-search.bak'))).toBe(true);
  });

  it('--dry-run prints a diff and writes nothing; --project writes .claude/settings.json and .mcp.json in --cwd', async () => {
    write('.claude/settings.json', USER_SETTINGS);
    const dry = await cli(['install', 'claude-code', '--dry-run', '--command', 'skill-search']);
    expect(dry.stdout).toContain('would change: ~/.claude/settings.json: added the UserPromptSubmit hook');
    expect(dry.stdout).toContain('+            {\n+                "hooks": [');
    expect(read('.claude/settings.json')).toBe(USER_SETTINGS);
    expect(existsSync(path.join(home, '.claude.json'))).toBe(false);

    mkdirSync(path.join(home, 'proj'));
    await cli(['install', 'claude-code', '--project', '--cwd', path.join(home, 'proj'), '--command', 'skill-search']);
    expect(JSON.parse(read('proj/.mcp.json')).mcpServers['skill-search'].command).toBe('skill-search');
    expect(JSON.parse(read('proj/.claude/settings.json')).hooks.UserPromptSubmit[0].hooks[0].command).toBe('skill-search hook claude-code');
  });

  it("uses this package's bin by absolute path when skill-search is not on PATH", async () => {
    await cli(['install', 'claude-code']);
    const command = JSON.parse(read('.claude/settings.json')).hooks.UserPromptSubmit[0].hooks[0].command as string;
    expect(command).toBe(`node ${ownBin()} hook claude-code`);
    expect(JSON.parse(read('.claude.json')).mcpServers['skill-search']).toMatchObject({ command: 'node', args: [ownBin(), 'mcp'] });
  });

  it('refuses a settings file that is not JSON, naming it, and changes nothing', async () => {
    write('.claude/settings.json', '{ "model": ');
    const out = await cli(['install', 'claude-code']);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^skill-search: .*\.claude\/settings\.json: not valid JSON/);
    expect(read('.claude/settings.json')).toBe('{ "model": ');
  });
});

describe('install codex', () => {
  const CONFIG = '# my codex config\nmodel = "gpt-5"\n\n[mcp_servers.other]\ncommand = "other"\n';

  it('appends the MCP table and the hook, and uninstall restores config.toml byte for byte', async () => {
    write('.codex/config.toml', CONFIG);
    await cli(['install', 'codex', '--command', 'skill-search']);
    expect(read('.codex/config.toml')).toBe(`${CONFIG}\n[mcp_servers.skill-search]\ncommand = "skill-search"\nargs = ["mcp"]\n`);
    expect(JSON.parse(read('.codex/hooks.json')).hooks.UserPromptSubmit[0].hooks[0].command).toBe('skill-search hook codex');
    await cli(['uninstall', 'codex']);
    expect(read('.codex/config.toml')).toBe(CONFIG);
    expect(existsSync(path.join(home, '.codex/hooks.json'))).toBe(false);
  });

  it('replaces an existing skill-search table in place, and removes it even after other edits', async () => {
    write('.codex/config.toml', `[mcp_servers.skill-search]\ncommand = "old"\n\n[tui]\ntheme = "x"\n`);
    await cli(['install', 'codex', '--command', 'skill-search']);
    expect(read('.codex/config.toml')).toBe(`[mcp_servers.skill-search]\ncommand = "skill-search"\nargs = ["mcp"]\n\n[tui]\ntheme = "x"\n`);
    write('.codex/config.toml', `${read('.codex/config.toml')}extra = 1\n`);
    await cli(['uninstall', 'codex']);
    expect(read('.codex/config.toml')).toBe(`[tui]\ntheme = "x"\nextra = 1\n`);
  });
});

describe('print-config', () => {
  it('prints the generic MCP entry', async () => {
    const out = await cli(['print-config', '--command', 'skill-search']);
    expect(JSON.parse(out.stdout)).toEqual({ mcpServers: { 'skill-search': { command: 'skill-search', args: ['mcp'] } } });
  });

  it('prints the Codex TOML table', async () => {
    const out = await cli(['print-config', '--host', 'codex', '--command', 'skill-search']);
    expect(out.stdout).toContain('[mcp_servers.skill-search]\ncommand = "skill-search"\nargs = ["mcp"]\n');
  });
});
