import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ownBin } from '../../src/hosts/command.js';
import { ROOT, removeDir, runCli, spawnCli, tempDir } from './helpers.js';

let home: string;
const cli = (argv: string[]) => runCli(argv, home, { env: { PATH: '', CODEX_HOME: undefined }, cwd: home });

beforeEach(() => {
  home = tempDir('skill-search-doctor-');
});
afterEach(() => removeDir(home));

describe('doctor', () => {
  it('says a host is not installed, and exits 0', async () => {
    const out = await cli(['doctor', 'codex']);
    expect(out.stdout).toBe("Codex (user): not installed ('skill-search install codex' adds it)\n");
    expect(out.code).toBe(0);
  });

  it('reports an installed Codex hook as trusted, and an untrusted or modified one with the step that fixes it', async () => {
    await cli(['install', 'codex']);
    const ok = await cli(['doctor', 'codex']);
    expect(ok.stdout).toBe(
      [
        'Codex (user):',
        `  ok      hook: "node ${ownBin()} hook codex" in ~/.codex/hooks.json`,
        `  ok      hook command: ${ownBin()} exists`,
        '  ok      trust: Codex trusts the hook (~/.codex/config.toml)',
        '  ok      MCP server: [mcp_servers.skill-search] in ~/.codex/config.toml',
        "  WARN    MCP start-up: Codex starts a turn without search_skills when the server takes over 1000 ms to start (a busy machine); fix: put 'mcp_optional_startup_grace_ms = 0' at the top of ~/.codex/config.toml",
        '',
      ].join('\n'),
    );
    // A warning: the hook and the server work, so doctor still exits 0.
    expect(ok.code).toBe(0);

    const config = path.join(home, '.codex/config.toml');
    const trusted = readFileSync(config, 'utf8');
    writeFileSync(config, trusted.replace(/trusted_hash = "[^"]+"/, 'trusted_hash = "sha256:0"'));
    const modified = await cli(['doctor', 'codex']);
    expect(modified.code).toBe(1);
    expect(modified.stdout).toContain(
      "  PROBLEM trust: Codex will not run the hook: the hook changed since it was trusted (~/.codex/config.toml holds another hash for it); fix: 'skill-search install codex' records it, or trust the hook in Codex (/hooks)",
    );
    writeFileSync(config, trusted.replace(/\n\[hooks\.state[\s\S]*$/, '\n'));
    expect((await cli(['doctor', 'codex'])).stdout).toContain('  PROBLEM trust: Codex will not run the hook: no trust entry for it in ~/.codex/config.toml;');
  });

  it("reads Codex's grace for MCP servers from the top of the user's config.toml", async () => {
    await cli(['install', 'codex']);
    const config = path.join(home, '.codex/config.toml');
    const installed = readFileSync(config, 'utf8');
    writeFileSync(config, `mcp_optional_startup_grace_ms = 0\n${installed}`);
    expect((await cli(['doctor', 'codex'])).stdout).toContain('  ok      MCP start-up: Codex waits for the server before a turn (~/.codex/config.toml)\n');
    writeFileSync(config, `mcp_optional_startup_grace_ms = 5000\n${installed}`);
    expect((await cli(['doctor', 'codex'])).stdout).toContain('  ok      MCP start-up: Codex waits up to 5000 ms for the server before a turn');
    writeFileSync(config, `mcp_optional_startup_grace_ms = 250\n${installed}`);
    expect((await cli(['doctor', 'codex'])).stdout).toContain(
      '  WARN    MCP start-up: Codex starts a turn without search_skills when the server takes over 250 ms to start',
    );
  });

  it("says when the user hook and this trusted project folder's hook both run, so every prompt runs it twice", async () => {
    const project = path.join(home, 'proj');
    mkdirSync(project);
    const inProject = (argv: string[]) => runCli(argv, home, { env: { PATH: '', CODEX_HOME: undefined }, cwd: project });
    await inProject(['install', 'codex']);
    await inProject(['install', 'codex', '--project']);
    // Not yet trusted: Codex does not load the project's hooks, so it runs one.
    expect((await inProject(['doctor', 'codex'])).code).toBe(0);
    writeFileSync(path.join(home, '.codex/config.toml'), `[projects."${project}"]\ntrust_level = "trusted"\n`, { flag: 'a' });
    const user = await inProject(['doctor', 'codex']);
    expect(user.code).toBe(1);
    expect(user.stdout).toContain(
      "  PROBLEM hook: ~/proj/.codex/hooks.json runs it too: every prompt in ~/proj runs it twice; fix: 'skill-search uninstall codex --project' removes that one",
    );
    expect((await inProject(['doctor', 'codex', '--project'])).stdout).toContain(
      "  PROBLEM hook: ~/.codex/hooks.json runs it too: every prompt in ~/proj runs it twice; fix: 'skill-search uninstall codex' removes that one",
    );
    // Claude Code runs two identical commands once: nothing to report.
    await inProject(['install', 'claude-code']);
    await inProject(['install', 'claude-code', '--project']);
    expect((await inProject(['doctor', 'claude-code'])).code).toBe(0);
  });

  it('reports an install for this project, without --project, where there is none for the user', async () => {
    const project = path.join(home, 'proj');
    mkdirSync(project);
    const inProject = (argv: string[]) => runCli(argv, home, { env: { PATH: '', CODEX_HOME: undefined }, cwd: project });
    await inProject(['install', 'claude-code', '--project']);
    const out = await inProject(['doctor', 'claude-code']);
    expect(out.stdout.split('\n').slice(0, 2)).toEqual([
      'Claude Code (project):',
      `  ok      hook: "node ${ownBin()} hook claude-code" in ~/proj/.claude/settings.json`,
    ]);
    expect(out.stdout).toContain('  ok      MCP server: "skill-search" in ~/proj/.mcp.json');
    expect(out.stdout).not.toContain('not installed');
    expect(out.code).toBe(0);
    // Asked for the user's alone, it says so.
    expect((await inProject(['doctor', 'claude-code', '--user'])).stdout).toBe(
      "Claude Code (user): not installed ('skill-search install claude-code' adds it)\n",
    );
  });

  it('reports a hook whose bin is gone, and a missing MCP entry, for Claude Code', async () => {
    mkdirSync(path.join(home, '.claude'));
    writeFileSync(
      path.join(home, '.claude/settings.json'),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'node /gone/bin/skill-search.js hook claude-code' }] }] } }),
    );
    const out = await cli(['doctor', 'claude-code']);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain("  PROBLEM hook command: /gone/bin/skill-search.js does not exist (moved or deleted); fix: run 'skill-search install' again");
    expect(out.stdout).toContain('  MISSING MCP server: no "skill-search" server in ~/.claude.json; fix: skill-search install claude-code');
  });
  it('reports a skill-search.json that does not load (the hook would skip every prompt), and exits 1', async () => {
    await cli(['install', 'claude-code']);
    expect((await cli(['doctor', 'claude-code'])).stdout).not.toContain(' settings: ');
    const config = path.join(home, '.claude/skill-search.json');
    writeFileSync(config, '{"exlude": ["legacy-*"]}');
    const out = await cli(['doctor', 'claude-code']);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(
      `  PROBLEM settings: ${config}: "exlude": unknown key (did you mean "exclude"?); until it loads, the hook suggests nothing and the MCP server does not start; fix: correct it ('skill-search config' reads it back)\n`,
    );
    // The hook agrees: it skips the prompt and says why.
    const hook = await runCli(['hook', 'claude-code'], home, { env: { PATH: '', CODEX_HOME: undefined }, cwd: home, stdin: '{"prompt":"x"}' });
    expect(JSON.parse(hook.stdout).systemMessage).toContain('"exlude": unknown key');
    writeFileSync(config, '{"exclude": ["legacy-*"]}');
    expect((await cli(['doctor', 'claude-code'])).code).toBe(0);
  });
});

describe('doctor and the Claude Code plugin', () => {
  it('says when the enabled plugin runs the hook with another command than install wrote (every prompt would run it twice)', async () => {
    await cli(['install', 'claude-code']);
    const pluginRoot = path.join(home, '.claude/plugins/cache/skill-search/skill-search/0.1.0');
    cpSync(path.join(ROOT, 'plugin'), pluginRoot, { recursive: true });
    writeFileSync(
      path.join(home, '.claude/plugins/installed_plugins.json'),
      JSON.stringify({ version: 2, plugins: { 'skill-search@skill-search': [{ scope: 'user', installPath: pluginRoot }] } }),
    );
    expect((await cli(['doctor', 'claude-code'])).code).toBe(0);

    const settings = path.join(home, '.claude/settings.json');
    writeFileSync(settings, JSON.stringify({ ...JSON.parse(readFileSync(settings, 'utf8')), enabledPlugins: { 'skill-search@skill-search': true } }));
    const out = await cli(['doctor', 'claude-code']);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(
      `  PROBLEM plugin: the plugin skill-search@skill-search runs the hook too, as "skill-search hook claude-code": every prompt runs it twice; fix: 'skill-search uninstall claude-code', or 'claude plugin uninstall skill-search@skill-search'\n`,
    );
  });
});

describe('doctor --project for Codex', () => {
  it('says whether Codex trusts the project folder, which it needs to load .codex/ there', async () => {
    const proj = path.join(home, 'proj');
    mkdirSync(path.join(proj, 'sub'), { recursive: true });
    await cli(['install', 'codex', '--project', '--cwd', path.join(proj, 'sub')]);
    const untrusted = await cli(['doctor', 'codex', '--project', '--cwd', path.join(proj, 'sub')]);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stdout).toContain(
      '  PROBLEM project trust: Codex does not load ~/proj/sub/.codex until you trust this folder; fix: start Codex in the folder',
    );
    const config = path.join(home, '.codex/config.toml');
    writeFileSync(config, `[projects.${JSON.stringify(proj)}]\ntrust_level = "trusted"\n\n${readFileSync(config, 'utf8')}`);
    const trusted = await cli(['doctor', 'codex', '--project', '--cwd', path.join(proj, 'sub')]);
    expect(trusted.stdout).toContain('  ok      project trust: Codex trusts ~/proj\n');
    expect(trusted.stdout).toContain('  ok      trust: Codex trusts the hook (~/.codex/config.toml)\n');
    expect(trusted.code).toBe(0);
  });
});

describe.skipIf(!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js')))('doctor search: what searches use (built CLI)', () => {
  const BIN = path.join(ROOT, 'bin', 'skill-search.js');
  const doctor = (...flags: string[]) => spawnCli(['doctor', 'search', '--cwd', path.join(home, 'proj'), ...flags], home, { entry: BIN });
  const skill = (dir: string, text: string) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'SKILL.md'), text);
  };

  it('names each skill folder with its skills and broken files, the model, the store, the saved index and a running server, each with its fix', async () => {
    mkdirSync(path.join(home, 'proj'));
    skill(path.join(home, '.claude/skills/pdf'), '---\ndescription: Extract tables from PDF files\n---\nSteps.\n');
    skill(path.join(home, '.claude/skills/broken'), '---\ndescription: [never closed\n---\n');
    writeFileSync(path.join(home, '.claude/skill-search.json'), JSON.stringify({ library: ['team'] }));
    const validateFix = "fix: 'skill-search validate' says why each does not load";
    const fresh = await doctor();
    expect(fresh).toEqual({
      code: 0,
      stdout: [
        'Search (what the hook, query and the MCP server use):',
        `  WARN    skills: ~/.claude/skills: 1 skill, 1 broken: ~/.claude/skills/broken/SKILL.md; ${validateFix}`,
        '  WARN    skills: ~/.claude/team: no such folder; fix: create it, or stop naming it (flag, config or libraryDirs)',
        '  ok      model: use-lite (512 dimensions) is on this machine: searches need no network',
        "  WARN    store: none yet at ~/store.sqlite: the first search embeds every skill; fix: 'skill-search index'",
        "  ok      server: none running for these skills and model: each search opens the store itself ('skill-search watch' keeps one warm)",
        '',
      ].join('\n'),
      stderr: '',
    });

    expect((await spawnCli(['index', '--cwd', path.join(home, 'proj')], home, { entry: BIN })).code).toBe(0);
    const indexed = await doctor();
    expect(indexed.code).toBe(0);
    expect(indexed.stdout).toMatch(/^ {2}ok {6}store: ~\/store\.sqlite opens: \d+\.\d MB, 1 skill embedded by use-lite@[\d.]+$/m);
    expect(indexed.stdout).toContain('  ok      saved index: 1 skill, current: a cold search reads them without embedding\n');
    // Read without the demo rule, as the hook and the MCP server read them: the same saved index.
    expect((await doctor('--no-demo')).stdout).toContain('  ok      saved index: 1 skill, current: a cold search reads them without embedding\n');

    const watch = spawn(process.execPath, [BIN, 'watch', '--cwd', path.join(home, 'proj')], {
      env: { ...process.env, HOME: home, SKILL_SEARCH_CACHE_DIR: home },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      let stderr = '';
      await new Promise<void>((resolve, reject) => {
        watch.stderr.setEncoding('utf8').on('data', (chunk: string) => {
          stderr += chunk;
          if (stderr.includes('serving searches on')) resolve();
        });
        watch.on('exit', () => reject(new Error(`watch exited: ${stderr}`)));
      });
      expect((await doctor()).stdout).toMatch(
        new RegExp(`^ {2}ok {6}server: running \\(pid ${watch.pid}, version [^,]+, 1 skill\\): hooks and queries ask it$`, 'm'),
      );
    } finally {
      watch.kill('SIGINT');
      await once(watch, 'exit');
    }
  }, 60_000);

  it('a model not on this machine and a store that does not open are problems (exit 1); a config that does not load is said alone', async () => {
    mkdirSync(path.join(home, 'proj'));
    skill(path.join(home, '.claude/skills/pdf'), '---\ndescription: Extract tables from PDF files\n---\nSteps.\n');
    mkdirSync(path.join(home, 'store.sqlite'));
    const out = await doctor('--model', 'bge-small-en-v1.5');
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(
      `  PROBLEM model: model "bge-small-en-v1.5" is not downloaded yet: run 'skill-search model pull bge-small-en-v1.5'; fix: that, or --model use-lite`,
    );
    expect(out.stdout).toMatch(/^ {2}PROBLEM store: ~\/store\.sqlite does not open: .*EISDIR.*; fix: /m);
    writeFileSync(path.join(home, '.claude/skill-search.json'), '{"libary": []}');
    const config = await doctor();
    expect(config.code).toBe(1);
    expect(config.stdout.split('\n').slice(1)).toEqual([
      `  PROBLEM settings: ${path.join(home, '.claude/skill-search.json')}: "libary": unknown key (did you mean "library"?); until it loads, the hook suggests nothing and the MCP server does not start; fix: correct it ('skill-search config' reads it back)`,
      '',
    ]);
  });
});

describe('doctor search over a cache folder that cannot be written', () => {
  const BIN = path.join(ROOT, 'bin', 'skill-search.js');
  let cache: string;
  let locked = false;
  /** Read-only even for root: the immutable attribute as root (chmod does not stop root), a mode without write bits otherwise. */
  const lock = (dir: string) => {
    if (process.getuid?.() === 0) execFileSync('chattr', ['+i', dir], { stdio: 'ignore' });
    else chmodSync(dir, 0o555);
    locked = true;
  };
  afterEach(() => {
    if (!locked) return;
    if (process.getuid?.() === 0) execFileSync('chattr', ['-i', cache], { stdio: 'ignore' });
    else chmodSync(cache, 0o755);
    locked = false;
  });
  const doctor = () => spawnCli(['doctor', 'search', '--cwd', path.join(home, 'proj')], home, { entry: BIN, env: { SKILL_SEARCH_CACHE_DIR: cache } });

  it('says the store cannot be written, and how to fix that, not that SQLite or the file is broken', async (context) => {
    mkdirSync(path.join(home, 'proj'));
    mkdirSync(path.join(home, '.claude/skills/pdf'), { recursive: true });
    writeFileSync(path.join(home, '.claude/skills/pdf/SKILL.md'), '---\ndescription: Extract tables from PDF files\n---\nSteps.\n');
    cache = path.join(home, 'cache');
    mkdirSync(cache);
    try {
      lock(cache);
    } catch {
      context.skip();
    }
    const fix = 'fix: make it writable, or point SKILL_SEARCH_CACHE_DIR at a folder of yours';
    const empty = await doctor();
    expect(empty.code).toBe(1);
    expect(empty.stdout).toMatch(
      new RegExp(
        `^ {2}PROBLEM store: ~/cache/store\\.sqlite cannot be written \\(~/cache: E[A-Z]+\\): every search embeds the skills again and saves nothing; ${fix}$`,
        'm',
      ),
    );

    // A store made before the folder turned read-only: not damaged, and no SQLite to rebuild.
    if (process.getuid?.() === 0) execFileSync('chattr', ['-i', cache], { stdio: 'ignore' });
    else chmodSync(cache, 0o755);
    locked = false;
    expect((await spawnCli(['index', '--cwd', path.join(home, 'proj')], home, { entry: BIN, env: { SKILL_SEARCH_CACHE_DIR: cache } })).code).toBe(0);
    lock(cache);
    const made = await doctor();
    expect(made.code).toBe(1);
    expect(made.stdout).toMatch(new RegExp(`^ {2}PROBLEM store: ~/cache/store\\.sqlite cannot be written \\(~/cache: E[A-Z]+\\): .*; ${fix}$`, 'm'));
    expect(made.stdout).not.toContain('npm rebuild');
  }, 60_000);
});
