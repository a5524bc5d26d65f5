import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PURE_PACKAGES } from '../../scripts/bundle-cli.js';
import { ROOT, SKILLS, removeDir, spawnCli, tempDir } from './helpers.js';

const BIN = path.join(ROOT, 'bin', 'skill-search.js');
const built = existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'));

const cache = tempDir('skill-search-cold-modules-');
afterAll(() => removeDir(cache));

/**
 * Loaded before the CLI: at exit, writes to MODULES_LOG whether `process.stdin` was ever made,
 * the built-in modules loaded, and the CommonJS files required.
 */
const RECORDER = `import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
let stdinMade = false;
const stdin = Object.getOwnPropertyDescriptor(process, 'stdin');
Object.defineProperty(process, 'stdin', {
  configurable: true,
  enumerable: stdin.enumerable,
  get() {
    stdinMade = true;
    return stdin.get.call(process);
  },
});
process.on('exit', () =>
  writeFileSync(process.env.MODULES_LOG, JSON.stringify({ stdinMade, builtins: process.moduleLoadList, required: Object.keys(createRequire(import.meta.url).cache) })),
);
`;

interface Seen {
  readonly stdinMade: boolean;
  readonly builtins: string[];
  readonly required: string[];
}

/**
 * `index` (unless `index: false`), then one hook for `prompt`, through the built bin with the
 * recorder and `home` as its home and cache root: the hook's result and what it loaded.
 */
async function recordedHook(
  name: string,
  flags: readonly string[],
  prompt: string,
  { index = true, home = cache }: { readonly index?: boolean; readonly home?: string } = {},
): Promise<{ result: Awaited<ReturnType<typeof spawnCli>>; seen: Seen }> {
  const recorder = path.join(cache, 'recorder.mjs');
  const log = path.join(cache, `modules-${name}.json`);
  writeFileSync(recorder, RECORDER);
  const env = { MODULES_LOG: log, NODE_OPTIONS: `--import ${pathToFileURL(recorder).href}` };
  if (index) expect((await spawnCli(['index', '--quiet', ...flags], home, { env, entry: BIN })).code).toBe(0);
  const stdin = JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: `s-${name}`, prompt, transcript_path: '/dev/null', cwd: cache });
  const result = await spawnCli(['hook', 'claude-code', ...flags], home, { stdin, env, entry: BIN });
  return { result, seen: JSON.parse(readFileSync(log, 'utf8')) as Seen };
}

// Through the built bin, as a host runs it: tsx, which runs src/, loads worker_threads itself.
describe.skipIf(!built)('what a cold hook loads (built)', () => {
  it('reads its input from fd 0 without process.stdin, opens SQLite with the bundled driver and without bindings, and keeps worker_threads unloaded', async () => {
    const flags = ['--skills-dir', SKILLS, '--model', 'hash', '--index-dir', path.join(cache, 'index')];
    const { result, seen } = await recordedHook('hash', flags, 'fill in a pdf form');
    expect(result.code).toBe(0);
    // The answer proves the input was read and the store opened.
    expect(result.stdout).toContain('pdf-forms');
    expect(seen.stdinMade).toBe(false);
    // better-sqlite3's JavaScript comes with the bundle (scripts/bundle-cli.ts); only its addon is required.
    expect(seen.required.filter((file) => file.includes(`${path.sep}better-sqlite3${path.sep}`))).toEqual([
      path.join(ROOT, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'),
    ]);
    expect(seen.required.filter((file) => file.includes(`${path.sep}bindings${path.sep}`))).toEqual([]);
    expect(seen.builtins).not.toContain('NativeModule worker_threads');
    // The shell watchdog ran: the hook loads child_process for it.
    expect(seen.builtins).toContain('NativeModule child_process');
  }, 60_000);

  it("embeds with onnxruntime's JavaScript from the bundle, requiring only its binding", async () => {
    const flags = ['--skills-dir', SKILLS, '--index-dir', path.join(cache, 'index-use-lite')];
    const { result, seen } = await recordedHook('use-lite', flags, 'fill in a pdf form');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('pdf-forms');
    const binding = path.join(ROOT, 'node_modules', 'onnxruntime-node', 'bin', 'napi-v3', process.platform, process.arch, 'onnxruntime_binding.node');
    expect(seen.required.filter((file) => file.includes(`${path.sep}onnxruntime-`))).toEqual([binding]);
  }, 120_000);

  it("searches a graph with usearch's JavaScript from the bundle, requiring only its addon and manifest", async () => {
    // Past the dense side's exact scan (2,048 vectors): the catalog keeps a graph, which usearch views.
    const tools = path.join(cache, 'tools-2100.jsonl');
    const words = ['pdf', 'form', 'table', 'chart', 'image', 'resize', 'deploy', 'git', 'test', 'slide', 'csv', 'invoice', 'audio'];
    const line = (i: number) =>
      JSON.stringify({ name: `tool-${i}`, description: `Tool ${i}: ${Array.from({ length: 6 }, (_, k) => words[(i * 7 + k) % words.length]).join(' ')}` });
    writeFileSync(tools, `${Array.from({ length: 2100 }, (_, i) => line(i)).join('\n')}\n`);
    const flags = ['--tools', tools, '--no-demo', '--model', 'hash', '--index-dir', path.join(cache, 'index-graph')];
    const { result, seen } = await recordedHook('graph', flags, 'resize an image');
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const usearch = path.join(ROOT, 'node_modules', 'usearch');
    // node-gyp-build reads the package's manifest (its name) before it finds the addon.
    expect(seen.required.filter((file) => file.startsWith(usearch)).map((file) => path.relative(usearch, file))).toEqual([
      'package.json',
      expect.stringMatching(/\.node$/),
    ]);
    for (const name of ['node-gyp-build', 'bindings', 'file-uri-to-path'])
      expect(seen.required.filter((file) => file.includes(`${path.sep}node_modules${path.sep}${name}${path.sep}`))).toEqual([]);
    // A tools-only catalog parses no frontmatter: the bundled js-yaml is never evaluated (it would require esprima).
    expect(seen.required.filter((file) => file.includes(`${path.sep}node_modules${path.sep}esprima${path.sep}`))).toEqual([]);
  }, 120_000);

  it("parses a cold hook's SKILL.md files with gray-matter's and js-yaml's JavaScript from the bundle", async () => {
    // No store yet (a cache root of its own): the hook loads the candidates itself, parsing each SKILL.md's frontmatter.
    const home = path.join(cache, 'cold-home');
    mkdirSync(home);
    const flags = ['--skills-dir', SKILLS, '--model', 'hash', '--index-dir', path.join(home, 'index')];
    const { result, seen } = await recordedHook('cold-skills', flags, 'fill in a pdf form', { index: false, home });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('pdf-forms');
    const inPackage = (name: string) => seen.required.filter((file) => file.includes(`${path.sep}node_modules${path.sep}${name}${path.sep}`));
    for (const name of PURE_PACKAGES) expect(inPackage(name)).toEqual([]);
    // js-yaml was evaluated (from the bundle): its optional require of esprima went to node_modules.
    expect(inPackage('esprima')).not.toEqual([]);
  }, 120_000);
});
