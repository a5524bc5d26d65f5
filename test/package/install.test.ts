/**
 * The package as a user gets it: `npm pack`, then `npm install --omit=dev <tarball>` in an empty
 * folder (the npm registry is the only network it needs), then the bin it installed. Slow (the
 * install unpacks the model runtime and compiles what has no prebuilt binary), so it runs as `npm run test:package`, not in `npm test`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../scripts/ensure-built.js';
import { ROOT, removeDir, tempDir } from '../cli/helpers.js';

/**
 * What the production install may weigh; docs/dependencies.md says what the bytes are. Measured
 * 230.6 MB here, where better-sqlite3 compiles from source and keeps 17 MB of build objects that a
 * prebuilt binary does not have.
 */
const MAX_INSTALLED_MB = 235;

function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

describe('npm pack → npm install --omit=dev <tarball> in an empty folder', () => {
  let work: string;
  let consumer: string;
  beforeAll(() => {
    ensureBuilt();
    work = tempDir('skill-search-package-');
    consumer = path.join(work, 'consumer');
    const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const tarball = path.join(work, (JSON.parse(out) as { filename: string }[])[0]!.filename);
    execFileSync('mkdir', [consumer]);
    writeFileSync(path.join(consumer, 'package.json'), '{ "name": "consumer", "private": true }\n');
    const started = performance.now();
    execFileSync('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', tarball], { cwd: consumer, stdio: 'ignore' });
    console.log(
      `production install: ${Math.round((performance.now() - started) / 1000)} s, ${(bytesUnder(path.join(consumer, 'node_modules')) / 1e6).toFixed(1)} MB`,
    );
  }, 600_000);
  afterAll(() => removeDir(work));

  it('installs no development dependency, no image stack and no second runtime, within the size budget', () => {
    const modules = path.join(consumer, 'node_modules');
    for (const gone of ['@xenova/transformers', 'onnxruntime-web', 'sharp', '@img', 'protobufjs', '@energetic-ai/embeddings', 'vitest', 'typescript']) {
      expect(existsSync(path.join(modules, gone)), gone).toBe(false);
    }
    expect(bytesUnder(modules) / 1e6).toBeLessThan(MAX_INSTALLED_MB);
  });

  it('answers a query from the bin it installed, in a fresh HOME', () => {
    const home = path.join(work, 'home');
    execFileSync('mkdir', [home]);
    const bin = path.join(consumer, 'node_modules', '.bin', 'skill-search');
    const env = { PATH: process.env.PATH ?? '', HOME: home, SKILL_SEARCH_CACHE_DIR: path.join(home, '.cache') };
    const query = spawnSync(bin, ['query', 'extract the tables from a pdf file', '--json', '--quiet'], { cwd: home, env, encoding: 'utf8', timeout: 120_000 });
    expect(query.stderr).toBe('');
    expect(query.status).toBe(0);
    const { hits } = JSON.parse(query.stdout) as { hits: { name: string; source: string }[] };
    expect(hits[0]).toMatchObject({ name: 'pdf', source: 'demo' });
  }, 180_000);

  it("runs a hook from the bin it installed (the hook's bundle, onnxruntime's and usearch's JavaScript in it)", () => {
    const home = path.join(work, 'home-hook');
    execFileSync('mkdir', [home]);
    const bin = path.join(consumer, 'node_modules', '.bin', 'skill-search');
    const env = { PATH: process.env.PATH ?? '', HOME: home, SKILL_SEARCH_CACHE_DIR: path.join(home, '.cache') };
    const hook = (flags: readonly string[], prompt: string) => {
      const stdin = JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 's', prompt, transcript_path: '/dev/null', cwd: home });
      return spawnSync(bin, ['hook', 'claude-code', '--timeout-ms', '60000', ...flags], { cwd: home, env, input: stdin, encoding: 'utf8', timeout: 120_000 });
    };
    // The bundled model over the demo skills: onnxruntime from the bundle, its binding from the install.
    const demo = hook(['--demo'], 'extract the tables from a pdf file');
    expect(demo.stderr).toBe('');
    expect(demo.stdout).toContain('additionalContext');
    // Past the exact scan's 2,048 vectors: a graph, which usearch (from the bundle) views.
    const tools = path.join(home, 'tools.jsonl');
    writeFileSync(
      tools,
      Array.from({ length: 2100 }, (_, i) => `${JSON.stringify({ name: `tool-${i}`, description: `resize image number ${i}` })}\n`).join(''),
    );
    const flags = ['--tools', tools, '--no-demo', '--model', 'hash'];
    expect(spawnSync(bin, ['index', '--quiet', ...flags], { cwd: home, env, encoding: 'utf8', timeout: 120_000 }).status).toBe(0);
    const graph = hook(flags, 'resize an image');
    expect(graph.stderr).toBe('');
    expect(graph.status).toBe(0);
    expect(existsSync(path.join(consumer, 'node_modules', 'skill-search', 'dist', 'cli', 'hook-bundle.cjs'))).toBe(true);
    // Its code cache is written only for a bundle: npm unpacks the modules after the bundles, and the bin must not take them for newer.
    expect(readdirSync(path.join(home, '.cache', 'code-cache')).filter((name) => name.endsWith('-hook.v8'))).toHaveLength(1);
  }, 240_000);
});
