import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
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

  const HASH = 'sha256:f92850a0ae8288af68f6a910f47e353a24fea2422dfb6e2a3d8e6a414b6db305';
  const trustTable = (group = 0) => `[hooks.state."${realpathSync(home)}/.codex/hooks.json:user_prompt_submit:${group}:0"]\ntrusted_hash = "${HASH}"\n`;

  it('appends the MCP table, the hook and its trust entry, and uninstall restores config.toml byte for byte', async () => {
    write('.codex/config.toml', CONFIG);
    const out = await cli(['install', 'codex', '--command', 'skill-search']);
    expect(out.stdout).toContain('Codex runs a hook only once it is trusted: install recorded the trust for this hook in ~/.codex/config.toml.');
    expect(read('.codex/config.toml')).toBe(`${CONFIG}\n[mcp_servers.skill-search]\ncommand = "skill-search"\nargs = ["mcp"]\n\n${trustTable()}`);
    expect(JSON.parse(read('.codex/hooks.json')).hooks.UserPromptSubmit[0].hooks[0].command).toBe('skill-search hook codex');
    const again = await cli(['install', 'codex', '--command', 'skill-search']);
    expect(again.stdout).toContain('~/.codex/config.toml: already has the MCP server "skill-search" (skill-search mcp), and the hook\'s trust entry');
    await cli(['uninstall', 'codex']);
    expect(read('.codex/config.toml')).toBe(CONFIG);
    expect(existsSync(path.join(home, '.codex/hooks.json'))).toBe(false);
  });

  it("keys the trust entry by where the hook lands among the user's hooks; --dry-run shows it and writes nothing", async () => {
    const hooks = '{\n  "hooks": {\n    "UserPromptSubmit": [\n      { "hooks": [{ "type": "command", "command": "echo mine" }] }\n    ]\n  }\n}\n';
    write('.codex/hooks.json', hooks);
    const dry = await cli(['install', 'codex', '--dry-run', '--command', 'skill-search']);
    expect(dry.stdout).toContain(`+${trustTable(1).split('\n')[0]}`);
    expect(existsSync(path.join(home, '.codex/config.toml'))).toBe(false);
    expect(read('.codex/hooks.json')).toBe(hooks);
    await cli(['install', 'codex', '--command', 'skill-search']);
    expect(read('.codex/config.toml')).toContain(trustTable(1));
    await cli(['uninstall', 'codex']);
    expect(read('.codex/hooks.json')).toBe(hooks);
    expect(existsSync(path.join(home, '.codex/config.toml'))).toBe(false);
  });

  it('install again after a hook was put before ours moves the trust entry with it, leaving none behind', async () => {
    await cli(['install', 'codex', '--command', 'skill-search']);
    const hooks = JSON.parse(read('.codex/hooks.json'));
    hooks.hooks.UserPromptSubmit.unshift({ hooks: [{ type: 'command', command: 'echo mine' }] });
    write('.codex/hooks.json', JSON.stringify(hooks, null, 2));
    const moved = await cli(['install', 'codex', '--command', 'skill-search']);
    expect(read('.codex/config.toml')).toBe(`[mcp_servers.skill-search]\ncommand = "skill-search"\nargs = ["mcp"]\n\n${trustTable(1)}`);
    // Only the trust entry changed: the message names it alone, not the MCP server.
    expect(moved.stdout).toContain("~/.codex/config.toml: updated the hook's trust entry (the hash Codex checks before it runs the hook) (original kept in");
    expect(moved.stdout).not.toContain('MCP server');
  });

  it('--project writes the hook in the project and its trust in the user config.toml (Codex reads trust only there)', async () => {
    mkdirSync(path.join(home, 'proj'));
    await cli(['install', 'codex', '--project', '--cwd', path.join(home, 'proj'), '--command', 'skill-search']);
    expect(read('proj/.codex/config.toml')).toBe('[mcp_servers.skill-search]\ncommand = "skill-search"\nargs = ["mcp"]\n');
    expect(read('.codex/config.toml')).toBe(`[hooks.state."${realpathSync(home)}/proj/.codex/hooks.json:user_prompt_submit:0:0"]\ntrusted_hash = "${HASH}"\n`);
    await cli(['uninstall', 'codex', '--project', '--cwd', path.join(home, 'proj')]);
    expect(existsSync(path.join(home, '.codex/config.toml'))).toBe(false);
    expect(existsSync(path.join(home, 'proj/.codex/config.toml'))).toBe(false);
    // The folder install made for them goes too; one holding the user's files stays.
    expect(existsSync(path.join(home, 'proj/.codex'))).toBe(false);
    write('proj/.codex/notes.md', 'mine\n');
    await cli(['install', 'codex', '--project', '--cwd', path.join(home, 'proj'), '--command', 'skill-search']);
    await cli(['uninstall', 'codex', '--project', '--cwd', path.join(home, 'proj')]);
    expect(readdirSync(path.join(home, 'proj/.codex'))).toEqual(['notes.md']);
  });

  it('uninstall --project in a bare folder leaves the folder itself, empty as it was', async () => {
    mkdirSync(path.join(home, 'bare'));
    await cli(['install', 'claude-code', '--project', '--cwd', path.join(home, 'bare'), '--command', 'skill-search']);
    await cli(['uninstall', 'claude-code', '--project', '--cwd', path.join(home, 'bare')]);
    expect(readdirSync(path.join(home, 'bare'))).toEqual([]);
  });

  it('updates its own table in place, and removes it even after other edits', async () => {
    write('.codex/config.toml', `[mcp_servers.skill-search]\ncommand = "node"\nargs = ["/old/bin/skill-search.js", "mcp"]\n\n[tui]\ntheme = "x"\n`);
    await cli(['install', 'codex', '--command', 'skill-search']);
    expect(read('.codex/config.toml')).toBe(`[mcp_servers.skill-search]\ncommand = "skill-search"\nargs = ["mcp"]\n\n[tui]\ntheme = "x"\n\n${trustTable()}`);
    write('.codex/config.toml', read('.codex/config.toml').replace('theme = "x"\n', 'theme = "x"\nextra = 1\n'));
    await cli(['uninstall', 'codex']);
    expect(read('.codex/config.toml')).toBe(`[tui]\ntheme = "x"\nextra = 1\n`);
  });

  it("never replaces or removes the user's own [mcp_servers.skill-search] table", async () => {
    const own = `[mcp_servers.skill-search]\ncommand = "npx"\nargs = ["-y", "skill-search", "mcp"]\nenv = { SKILL_SEARCH_LIBRARY = "/lib" }\n`;
    write('.codex/config.toml', own);
    const out = await cli(['install', 'codex', '--command', 'skill-search']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('~/.codex/config.toml: has its own [mcp_servers.skill-search] (not written by install); left as it is');
    expect(read('.codex/config.toml')).toBe(`${own}\n${trustTable()}`);
    await cli(['uninstall', 'codex']);
    expect(read('.codex/config.toml')).toBe(own);
  });

  it('refuses in one line, changing nothing, where the table cannot be added safely (inline mcp_servers)', async () => {
    const inline = 'mcp_servers = { other = { command = "other" } }\n';
    write('.codex/config.toml', inline);
    const out = await cli(['install', 'codex', '--command', 'skill-search']);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(
      /^skill-search: .*\.codex\/config\.toml: cannot be edited safely here; add this table by hand: \[mcp_servers\.skill-search\]; command = "skill-search"; args = \["mcp"\]; nothing was changed\n$/,
    );
    expect(read('.codex/config.toml')).toBe(inline);
    expect(existsSync(path.join(home, '.codex/hooks.json'))).toBe(false);
  });

  it('is not fooled by a table header inside a multi-line string, and refuses a file that is not TOML', async () => {
    const tricky = 'notes = """\n[mcp_servers.skill-search]\ncommand = "not a table"\n"""\n';
    write('.codex/config.toml', tricky);
    await cli(['install', 'codex', '--command', 'skill-search']);
    const installed = parseToml(read('.codex/config.toml'));
    expect(installed.notes).toBe('[mcp_servers.skill-search]\ncommand = "not a table"\n');
    expect(installed.mcp_servers).toEqual({ 'skill-search': { command: 'skill-search', args: ['mcp'] } });
    await cli(['uninstall', 'codex']);
    expect(read('.codex/config.toml')).toBe(tricky);

    write('.codex/config.toml', 'model = \n');
    const bad = await cli(['install', 'codex']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^skill-search: .*\.codex\/config\.toml: not valid TOML \(.*\); fix it or move it away, nothing was changed\n$/);
  });
});

describe("install keeps the user's settings file as it is", () => {
  const RAW = '{\n  "model": "opus",\n  "cleanupPeriodDays": 12345678901234567890,\n  "model": "sonnet",\n  "env": {"A": "1"}\n}\n';

  it('edits the text around our entry only: 20-digit integers and duplicate keys survive, uninstall gives the bytes back', async () => {
    write('.claude/settings.json', RAW);
    await cli(['install', 'claude-code', '--command', 'skill-search']);
    const after = read('.claude/settings.json');
    expect(after.startsWith(RAW.slice(0, RAW.lastIndexOf('\n}')))).toBe(true);
    expect(after).toContain('12345678901234567890');
    expect(JSON.parse(after).hooks.UserPromptSubmit[0].hooks[0].command).toBe('skill-search hook claude-code');
    // Edited after install, so no restore from the backup: removal alone must give the bytes back.
    rmSync(path.join(home, '.claude/settings.json.skill-search.bak'));
    await cli(['uninstall', 'claude-code']);
    expect(read('.claude/settings.json')).toBe(RAW);
  });

  it('writes a symlinked settings.json through the link, and keeps a read-only mode', async () => {
    write('dotfiles/claude-settings.json', RAW);
    chmodSync(path.join(home, 'dotfiles/claude-settings.json'), 0o444);
    mkdirSync(path.join(home, '.claude'));
    symlinkSync('../dotfiles/claude-settings.json', path.join(home, '.claude/settings.json'));
    await cli(['install', 'claude-code', '--command', 'skill-search']);
    expect(lstatSync(path.join(home, '.claude/settings.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(read('dotfiles/claude-settings.json')).hooks.UserPromptSubmit).toHaveLength(1);
    expect(statSync(path.join(home, 'dotfiles/claude-settings.json')).mode & 0o777).toBe(0o444);
    await cli(['uninstall', 'claude-code']);
    expect(lstatSync(path.join(home, '.claude/settings.json')).isSymbolicLink()).toBe(true);
    expect(read('dotfiles/claude-settings.json')).toBe(RAW);
  });

  it('--dry-run refuses a FIFO at the settings path in one line instead of waiting on it', async () => {
    mkdirSync(path.join(home, '.claude'));
    execFileSync('mkfifo', [path.join(home, '.claude/settings.json')]);
    const out = await cli(['install', 'claude-code', '--dry-run']);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^skill-search: .*\.claude\/settings\.json: not a regular file; move it away, nothing was changed\n$/);
  }, 5000);
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

describe('install where a file cannot be written', () => {
  it('says which file in one line, with no stack trace', async () => {
    // A folder in /proc takes no new file, even from root.
    symlinkSync('/proc/self/fdinfo', path.join(home, '.claude'));
    const out = await cli(['install', 'claude-code']);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^skill-search: .*\/\.claude\/settings\.json: cannot write \(E[A-Z]+\); nothing was changed\n$/);
  });
});
