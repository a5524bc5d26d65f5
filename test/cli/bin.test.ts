import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheRoot } from '../../src/model-store/paths.js';
import { ROOT, SKILLS, removeDir, spawnCli, tempDir } from './helpers.js';

const BIN = path.join(ROOT, 'bin', 'skill-search.js');
const built = existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'));

// Runs only after `npm run build` (or `npm ci`, whose prepare step builds dist/).
describe.skipIf(!built)('bin/skill-search.js (built)', () => {
  const cache = tempDir();
  afterAll(() => removeDir(cache));

  it('prints the version', async () => {
    expect(await spawnCli(['--version'], cache, { entry: BIN })).toEqual({ code: 0, stdout: '0.1.0\n', stderr: '' });
  });

  it('validates a skills folder and maps a bad flag to exit 1', async () => {
    const ok = await spawnCli(['validate', '--skills-dir', SKILLS], cache, { entry: BIN });
    // The fixtures keep the camelCase `whenToUse` on purpose: five files, one warning each.
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout).toMatch(/(?:^|\n)6 skills loaded; 0 errors, 5 warnings, 0 shadowed\n$/);
    expect(ok.stdout.match(/`whenToUse` is ignored by Claude Code/g)).toHaveLength(5);
    const bad = await spawnCli(['validate', '--nope'], cache, { entry: BIN });
    expect(bad).toEqual({
      code: 1,
      stdout: '',
      stderr: "skill-search: unknown option '--nope' for 'validate' (see skill-search validate --help)\n",
    });
  });

  it('answers a query with the hash embedder', async () => {
    const result = await spawnCli(['query', '--skills-dir', SKILLS, '--model', 'hash', '--json', 'git bisect a regression'], cache, {
      entry: BIN,
    });
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { hits: { name: string }[] }).hits[0]?.name).toBe('git-bisect');
  });

  it('a hook past its budget exits at once, leaving its code cache to a hook that answers', async () => {
    const cold = tempDir();
    try {
      const input = JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'git bisect a regression', session_id: 's', cwd: cold });
      const result = await spawnCli(['hook', 'claude-code', '--skills-dir', SKILLS, '--model', 'hash', '--timeout-ms', '1'], cold, {
        entry: BIN,
        stdin: input,
      });
      expect(result.code).toBe(0);
      expect(result.stderr).toMatch(/^skill-search hook: no answer within 1 ms; skipped/);
      // Writing the cache (V8 serialising the bundle's code) past the budget can outlast the watchdog on a loaded machine.
      const codeCache = path.join(cold, 'code-cache');
      expect(existsSync(codeCache) ? readdirSync(codeCache).filter((name) => name.endsWith('-hook.v8')) : []).toEqual([]);
    } finally {
      removeDir(cold);
    }
  });

  it.skipIf(!existsSync(path.join(ROOT, 'dist', 'cli', 'mcp-bundle.cjs')))(
    "serves an MCP client from the server's own bundle, whose code cache the next start reads",
    async () => {
      const home = tempDir();
      // The server's tools, once it has ended (and written its code cache, as it does last).
      const serve = async () => {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [BIN, 'mcp', '--skills-dir', SKILLS, '--model', 'hash'],
          env: { ...(process.env as Record<string, string>), HOME: home, SKILL_SEARCH_CACHE_DIR: home },
          stderr: 'ignore',
        });
        const client = new Client({ name: 'skill-search-test', version: '0.0.0' });
        await client.connect(transport);
        const { tools } = await client.listTools();
        const pid = transport.pid!;
        await client.close();
        await expect.poll(() => isRunning(pid), { timeout: 20_000 }).toBe(false);
        return tools.map((tool) => tool.name).sort();
      };
      const mcpCaches = () => readdirSync(path.join(home, 'code-cache')).filter((name) => name.endsWith('-mcp.v8'));
      try {
        expect(await serve()).toEqual(['read_skill', 'search_skills']);
        const [cache, ...others] = mcpCaches();
        expect(others).toEqual([]);
        const file = path.join(home, 'code-cache', cache!);
        utimesSync(file, new Date(1_000_000_000), new Date(1_000_000_000));
        expect(await serve()).toEqual(['read_skill', 'search_skills']);
        // Accepted by V8: not written again.
        expect(statSync(file).mtimeMs).toBe(1_000_000_000);
      } finally {
        removeDir(home);
      }
    },
  );
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A package folder with this bin and an empty `dist/cli/`, for stand-in builds. */
function standInPackage(prefix: string): string {
  const dir = tempDir(prefix);
  mkdirSync(path.join(dir, 'bin'));
  mkdirSync(path.join(dir, 'dist', 'cli'), { recursive: true });
  for (const file of ['skill-search.js', 'package.json']) copyFileSync(path.join(ROOT, 'bin', file), path.join(dir, 'bin', file));
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  return dir;
}

describe('bin/skill-search.js: which build it loads', () => {
  const dir = standInPackage('skill-search-bin-');
  afterAll(() => removeDir(dir));
  // Stand-ins for the two builds: each answers with its own name and the arguments it was given.
  const bundle = path.join(dir, 'dist', 'cli', 'bundle.cjs');
  const modules = path.join(dir, 'dist', 'cli', 'main.js');
  writeFileSync(modules, "export async function main(argv) { process.stdout.write('modules ' + argv.join(' ')); return 3; }\n");
  const writeBundle = () => writeFileSync(bundle, "exports.main = async (argv) => { process.stdout.write('bundle ' + argv.join(' ')); return 4; };\n");
  const run = () => {
    try {
      return { code: 0, stdout: execFileSync(process.execPath, [path.join(dir, 'bin', 'skill-search.js'), 'a', 'b'], { encoding: 'utf8' }) };
    } catch (error) {
      const failed = error as { status: number; stdout: string };
      return { code: failed.status, stdout: failed.stdout };
    }
  };
  const age = (file: string, seconds: number) => utimesSync(file, new Date(seconds * 1000), new Date(seconds * 1000));

  it('the one-file bundle when it is as new as the modules, with their exit code', () => {
    writeBundle();
    age(modules, 1_000_000);
    age(bundle, 1_000_000);
    expect(run()).toEqual({ code: 4, stdout: 'bundle a b' });
  });

  it('the modules when the bundle is older (tsc ran alone) or missing', () => {
    writeBundle();
    age(bundle, 1_000_000);
    age(modules, 1_000_001);
    expect(run()).toEqual({ code: 3, stdout: 'modules a b' });
    rmSync(bundle);
    expect(run()).toEqual({ code: 3, stdout: 'modules a b' });
  });

  it('in a package installed under node_modules, the bundle even when npm unpacked the modules after it', () => {
    const installed = path.join(tempDir('skill-search-bin-installed-'), 'node_modules', 'skill-search');
    try {
      for (const part of ['bin', 'dist', 'package.json']) cpSync(path.join(dir, part), path.join(installed, part), { recursive: true });
      const copy = (file: string) => path.join(installed, path.relative(dir, file));
      writeFileSync(copy(bundle), "exports.main = async (argv) => { process.stdout.write('bundle ' + argv.join(' ')); return 4; };\n");
      age(copy(bundle), 1_000_000);
      age(copy(modules), 1_000_001);
      const ran = spawnSync(process.execPath, [path.join(installed, 'bin', 'skill-search.js'), 'a'], { encoding: 'utf8' });
      expect({ code: ran.status, stdout: ran.stdout }).toEqual({ code: 4, stdout: 'bundle a' });
    } finally {
      removeDir(path.dirname(path.dirname(installed)));
    }
  });

  it.each([
    { command: 'hook', own: 'hook-bundle.cjs', args: ['claude-code'] },
    { command: 'mcp', own: 'mcp-bundle.cjs', args: ['--demo'] },
  ])("for $command, its own bundle when it is current; else the CLI's", ({ command, own, args }) => {
    const ownBundle = path.join(dir, 'dist', 'cli', own);
    const other = path.join(dir, 'dist', 'cli', own === 'mcp-bundle.cjs' ? 'hook-bundle.cjs' : 'mcp-bundle.cjs');
    const runOwn = () => {
      try {
        return execFileSync(process.execPath, [path.join(dir, 'bin', 'skill-search.js'), command, ...args], { encoding: 'utf8' });
      } catch (error) {
        return (error as { stdout: string }).stdout;
      }
    };
    writeBundle();
    writeFileSync(ownBundle, `exports.main = async (argv) => { process.stdout.write('${own} ' + argv.join(' ')); return 0; };\n`);
    writeFileSync(other, "exports.main = async (argv) => { process.stdout.write('the other command bundle'); return 0; };\n");
    for (const file of [modules, bundle, ownBundle, other]) age(file, 1_000_000);
    expect(runOwn()).toBe(`${own} ${command} ${args.join(' ')}`);
    // Other commands never load it.
    expect(run()).toEqual({ code: 4, stdout: 'bundle a b' });
    age(ownBundle, 999_999);
    expect(runOwn()).toBe(`bundle ${command} ${args.join(' ')}`);
    rmSync(ownBundle);
    rmSync(other);
    expect(runOwn()).toBe(`bundle ${command} ${args.join(' ')}`);
  });
});

describe("bin/skill-search.js: the bundle's code cache", () => {
  const dir = standInPackage('skill-search-bin-cache-');
  afterAll(() => removeDir(dir));
  writeFileSync(path.join(dir, 'dist', 'cli', 'main.js'), 'export async function main() { return 3; }\n');
  utimesSync(path.join(dir, 'dist', 'cli', 'main.js'), new Date(1_000_000_000), new Date(1_000_000_000));
  const bundle = path.join(dir, 'dist', 'cli', 'bundle.cjs');
  // A stand-in bundle with functions for V8 to cache, which imports a module through the bin's
  // import (src/util/import-module.ts) as the real bundle's importModule does.
  const writeBundle = (answer: string) =>
    writeFileSync(
      bundle,
      `const words = (text) => text.split(' ').map((word) => word.toUpperCase());\n` +
        `exports.main = async (argv) => { const { sep } = await skillSearchImport('node:path'); process.stdout.write(words('${answer}').join(sep) + ' ' + argv.join(' ')); return 4; };\n`,
    );
  const run = (env: Record<string, string>, args: readonly string[] = ['a']) => {
    const clean = { ...process.env };
    for (const name of ['SKILL_SEARCH_CACHE_DIR', 'XDG_CACHE_HOME', 'HOME', 'USERPROFILE']) delete clean[name];
    try {
      return {
        code: 0,
        stdout: execFileSync(process.execPath, [path.join(dir, 'bin', 'skill-search.js'), ...args], { encoding: 'utf8', env: { ...clean, ...env } }),
      };
    } catch (error) {
      const failed = error as { status: number; stdout: string };
      return { code: failed.status, stdout: failed.stdout };
    }
  };
  const cacheFiles = (root: string) => {
    const folder = path.join(root, 'code-cache');
    return existsSync(folder) ? readdirSync(folder).map((name) => path.join(folder, name)) : [];
  };

  it('is written private after the first run, used as is by the next, and written anew for a changed bundle', () => {
    const root = path.join(dir, 'cache-a');
    writeBundle('one two');
    expect(run({ SKILL_SEARCH_CACHE_DIR: root })).toEqual({ code: 4, stdout: 'ONE/TWO a' });
    const [file, ...others] = cacheFiles(root);
    expect(others).toEqual([]);
    expect(path.basename(file!)).toMatch(/^cli-[0-9a-f]{8}\.v8$/);
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file!)).mode & 0o777).toBe(0o700);
    const header = JSON.parse(readFileSync(file!, 'utf8').split('\n', 1)[0]!) as { size: number; node: string };
    expect(header).toMatchObject({ size: statSync(bundle).size, node: process.version });
    const written = readFileSync(file!);
    expect(written.length).toBeGreaterThan(header.size);
    // Accepted by V8: not written again.
    utimesSync(file!, new Date(1_000_000_000), new Date(1_000_000_000));
    expect(run({ SKILL_SEARCH_CACHE_DIR: root })).toEqual({ code: 4, stdout: 'ONE/TWO a' });
    expect(statSync(file!).mtimeMs).toBe(1_000_000_000);
    // Another bundle of the same length (what V8's own check misses): compiled from source, cache replaced.
    writeBundle('six ten');
    expect(run({ SKILL_SEARCH_CACHE_DIR: root })).toEqual({ code: 4, stdout: 'SIX/TEN a' });
    expect(statSync(file!).mtimeMs).not.toBe(1_000_000_000);
    expect(readFileSync(file!).equals(written)).toBe(false);
  });

  it("the hook keeps a cache of its own, which another command's run does not replace", () => {
    const root = path.join(dir, 'cache-hook');
    writeBundle('one two');
    expect(run({ SKILL_SEARCH_CACHE_DIR: root }, ['index'])).toEqual({ code: 4, stdout: 'ONE/TWO index' });
    const [other] = cacheFiles(root);
    expect(path.basename(other!)).toMatch(/^cli-[0-9a-f]{8}\.v8$/);
    expect(run({ SKILL_SEARCH_CACHE_DIR: root }, ['hook', 'claude-code'])).toEqual({ code: 4, stdout: 'ONE/TWO hook claude-code' });
    const hook = cacheFiles(root).find((file) => file !== other);
    expect(path.basename(hook!)).toBe(path.basename(other!).replace(/\.v8$/, '-hook.v8'));
    expect(statSync(hook!).mode & 0o777).toBe(0o600);
    // Each accepted by V8 when its command runs again: neither is written anew.
    for (const file of [other!, hook!]) utimesSync(file, new Date(1_000_000_000), new Date(1_000_000_000));
    expect(run({ SKILL_SEARCH_CACHE_DIR: root }, ['hook', 'codex'])).toEqual({ code: 4, stdout: 'ONE/TWO hook codex' });
    expect(run({ SKILL_SEARCH_CACHE_DIR: root }, ['search'])).toEqual({ code: 4, stdout: 'ONE/TWO search' });
    expect(cacheFiles(root).map((file) => statSync(file).mtimeMs)).toEqual([1_000_000_000, 1_000_000_000]);
  });

  it('the MCP server keeps a cache of its own too', () => {
    const root = path.join(dir, 'cache-mcp');
    writeBundle('one two');
    expect(run({ SKILL_SEARCH_CACHE_DIR: root }, ['index'])).toEqual({ code: 4, stdout: 'ONE/TWO index' });
    expect(run({ SKILL_SEARCH_CACHE_DIR: root }, ['mcp'])).toEqual({ code: 4, stdout: 'ONE/TWO mcp' });
    const names = cacheFiles(root).map((file) => path.basename(file));
    expect(names).toHaveLength(2);
    expect(names).toContain(names.find((name) => /^cli-[0-9a-f]{8}\.v8$/.test(name))!.replace(/\.v8$/, '-mcp.v8'));
  });

  it('data V8 rejects under a matching header, or an unwritable cache root, only costs the shortcut', () => {
    const root = path.join(dir, 'cache-b');
    writeBundle('red green');
    expect(run({ SKILL_SEARCH_CACHE_DIR: root })).toEqual({ code: 4, stdout: 'RED/GREEN a' });
    const [file] = cacheFiles(root);
    const header = readFileSync(file!, 'utf8').split('\n', 1)[0]!;
    writeFileSync(file!, `${header}\nnot V8 data at all`);
    expect(run({ SKILL_SEARCH_CACHE_DIR: root })).toEqual({ code: 4, stdout: 'RED/GREEN a' });
    expect(readFileSync(file!).length).toBeGreaterThan(header.length + 100);
    // The cache written but not moved into place (here its name is a folder; a full disk alike): no part is left behind.
    rmSync(file!);
    mkdirSync(path.join(file!, 'in-the-way'), { recursive: true });
    expect(run({ SKILL_SEARCH_CACHE_DIR: root })).toEqual({ code: 4, stdout: 'RED/GREEN a' });
    expect(cacheFiles(root).map((name) => path.basename(name))).toEqual([path.basename(file!)]);
    const blocked = path.join(dir, 'not-a-folder');
    writeFileSync(blocked, '');
    expect(run({ SKILL_SEARCH_CACHE_DIR: blocked })).toEqual({ code: 4, stdout: 'RED/GREEN a' });
  });

  it('lives under the cache root src/model-store/paths.ts names', () => {
    writeBundle('x');
    const xdg = path.join(dir, 'xdg');
    run({ XDG_CACHE_HOME: xdg, HOME: path.join(dir, 'home-unused') });
    expect(cacheFiles(path.join(xdg, 'skill-search'))).toHaveLength(1);
    expect(cacheFiles(cacheRoot({ XDG_CACHE_HOME: xdg }))).toHaveLength(1);
    const home = path.join(dir, 'home');
    run({ HOME: home });
    expect(cacheFiles(cacheRoot({ HOME: home }))).toHaveLength(1);
  });
});

describe('bin/skill-search.js: the end of a hook', () => {
  const dir = standInPackage('skill-search-bin-exit-');
  afterAll(() => removeDir(dir));
  writeFileSync(path.join(dir, 'dist', 'cli', 'main.js'), 'export async function main() { return 3; }\n');
  utimesSync(path.join(dir, 'dist', 'cli', 'main.js'), new Date(1_000_000_000), new Date(1_000_000_000));
  // A stand-in that answers (more than a pipe holds, so part of it is written later) and
  // leaves a timer that would hold the process a minute.
  writeFileSync(
    path.join(dir, 'dist', 'cli', 'bundle.cjs'),
    "exports.main = async (argv) => { process.stdout.write(argv[0] + ':' + 'x'.repeat(300000)); setTimeout(() => {}, 60000); return 0; };\n",
  );
  const run = (args: readonly string[]) => {
    const started = Date.now();
    try {
      const stdout = execFileSync(process.execPath, [path.join(dir, 'bin', 'skill-search.js'), ...args], {
        encoding: 'utf8',
        env: { ...process.env, SKILL_SEARCH_CACHE_DIR: path.join(dir, 'cache') },
        timeout: 20_000,
        maxBuffer: 1 << 20,
      });
      return { code: 0, stdout, ms: Date.now() - started };
    } catch (error) {
      return { code: (error as { status: number | null }).status, stdout: '', ms: Date.now() - started };
    }
  };

  it('a hook ends once its answer is written, whatever it leaves pending, with every byte of it', () => {
    const ended = run(['hook', 'claude-code']);
    expect(ended.code).toBe(0);
    expect(ended.stdout).toBe(`hook:${'x'.repeat(300000)}`);
    expect(ended.ms).toBeLessThan(15_000);
  }, 30_000);
});
