import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTinyModel } from '../../scripts/make-tiny-model.js';
import { findPreset } from '../../src/model-store/presets.js';
import { startLoopbackHub, tinyModelFiles, type LoopbackHub } from '../support/loopback-hub.js';
import { useTempDirs } from '../support/temp-dirs.js';
import { ROOT, runCli, SKILLS, spawnCli } from './helpers.js';

const preset = findPreset('all-MiniLM-L6-v2')!;
const tempDir = useTempDirs('cli-model');
let sourceRoot: string;
let modelSource: string;
let hub: LoopbackHub;

beforeAll(async () => {
  sourceRoot = mkdtempSync(join(tmpdir(), 'skill-search-cli-model-src-'));
  modelSource = makeTinyModel(join(sourceRoot, 'tiny'), { hidden: preset.dimensions });
  hub = await startLoopbackHub({ repo: preset.repo, files: tinyModelFiles(modelSource, preset.onnxFile) });
});
afterAll(async () => {
  await hub.close();
  rmSync(sourceRoot, { recursive: true, force: true });
});

const BIN = join(ROOT, 'bin', 'skill-search.js');

describe.skipIf(!existsSync(join(ROOT, 'dist', 'cli', 'main.js')))('skill-search model: the bundled model (built)', () => {
  it('rm, pull and info say use-lite is bundled, in one line, instead of calling it unknown', async () => {
    const cache = tempDir();
    expect(await spawnCli(['model', 'rm', 'use-lite'], cache, { entry: BIN })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'skill-search: model use-lite is bundled with skill-search and cannot be removed\n',
    });
    const presets = 'bge-small-en-v1.5, all-MiniLM-L6-v2, gte-small, multilingual-e5-small, paraphrase-multilingual-MiniLM-L12-v2';
    expect((await spawnCli(['model', 'pull', 'use-lite'], cache, { entry: BIN })).stderr).toBe(
      `skill-search: model use-lite is bundled with skill-search; there is nothing to pull (presets: ${presets})\n`,
    );
    expect((await spawnCli(['model', 'info', 'use-lite'], cache, { entry: BIN })).stderr).toBe(
      `skill-search: model use-lite is bundled with skill-search (512 dimensions, English, always available); 'model info' describes the presets: ${presets}\n`,
    );
  });
});

describe('skill-search model', () => {
  it('lists the presets with their install state, and shows one preset in full', async () => {
    const cache = tempDir();
    const listed = await runCli(['model', 'list'], cache);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^MODEL +DIMS +MULTILINGUAL +DOWNLOAD +STATE$/);
    expect(lines[1]).toMatch(/^use-lite +512 +no +bundled +default, always available$/);
    expect(lines.slice(2).map((text) => text.split(/ +/)[0])).toEqual([
      'bge-small-en-v1.5',
      'all-MiniLM-L6-v2',
      'gte-small',
      'multilingual-e5-small',
      'paraphrase-multilingual-MiniLM-L12-v2',
    ]);
    expect(lines[5]).toMatch(/^multilingual-e5-small +384 +yes +≈ 136 MB +not installed$/);

    const info = await runCli(['model', 'info', 'multilingual-e5-small'], cache);
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(/^query prefix: +"query: "$/m);
    expect(info.stdout).toMatch(/^passage prefix: +"passage: "$/m);
    expect(info.stdout).toMatch(/^install with: +skill-search model pull multilingual-e5-small$/m);
  });

  it('rejects an unknown preset and a missing action with one line', async () => {
    const cache = tempDir();
    const unknown = await runCli(['model', 'pull', 'bert-huge'], cache);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toBe(
      "skill-search: unknown model 'bert-huge' (presets: bge-small-en-v1.5, all-MiniLM-L6-v2, gte-small, multilingual-e5-small, paraphrase-multilingual-MiniLM-L12-v2)\n",
    );
    const bad = await runCli(['model', 'fetch'], cache);
    expect(bad.stderr).toBe("skill-search: unknown command 'fetch' for 'model'; expected list, pull, rm or info (see skill-search model --help)\n");
    const rm = await runCli(['model', 'rm', 'gte-small'], cache);
    expect(rm).toMatchObject({ code: 1 });
    expect(rm.stderr).toBe(`skill-search: model gte-small is not installed (nothing in ${join(cache, 'models')})\n`);
  });

  it('pulls from $SKILL_SEARCH_HF_ENDPOINT, shows it installed, and removes it', async () => {
    const cache = tempDir();
    const env = { SKILL_SEARCH_HF_ENDPOINT: `${hub.url}/` };
    const pulled = await runCli(['model', 'pull', preset.id], cache, { env });
    expect(pulled.stderr).not.toContain('\r');
    expect(pulled.stderr.split('\n').filter((text) => text.startsWith(`${preset.id}: `))).toEqual(
      preset.files.map((file) => expect.stringMatching(new RegExp(`^all-MiniLM-L6-v2: ${file.replace('.', '\\.')} \\(\\d+\\.\\d MB\\)$`))),
    );
    expect(pulled.code).toBe(0);
    const dir = join(cache, 'models', preset.id);
    expect(pulled.stdout).toMatch(new RegExp(`^installed all-MiniLM-L6-v2 in ${dir} \\(\\d+\\.\\d MB downloaded, sizes and checksums verified\\)\\n$`));

    const again = await runCli(['model', 'pull', preset.id], cache, { env });
    expect(again.stdout).toBe(`all-MiniLM-L6-v2 is already installed in ${dir} (--force fetches it again)\n`);
    const listed = await runCli(['model', 'list'], cache);
    expect(listed.stdout).toMatch(new RegExp(`^all-MiniLM-L6-v2 +384 +no +≈ 24 MB +installed \\(${dir}\\)$`, 'm'));
    const info = await runCli(['model', 'info', preset.id, '--json'], cache);
    expect(JSON.parse(info.stdout)).toMatchObject({
      id: preset.id,
      state: 'installed',
      manifest: { source: hub.url, commit: 'c0ffee0000000000000000000000000000000000' },
    });

    const removed = await runCli(['model', 'rm', preset.id], cache);
    expect(removed).toMatchObject({ code: 0, stdout: 'removed all-MiniLM-L6-v2\n' });
    expect((await runCli(['model', 'list', '--json'], cache)).stdout).toContain(
      '"id":"all-MiniLM-L6-v2","repo":"Xenova/all-MiniLM-L6-v2","dimensions":384,"multilingual":false,"downloadMb":24,"state":"missing"',
    );
    const listedJson = JSON.parse((await runCli(['model', 'list', '--json'], cache)).stdout) as { models: { id: string; state: string }[] };
    expect(listedJson.models[0]).toEqual({ id: 'use-lite', dimensions: 512, multilingual: false, state: 'bundled', default: true });
  });

  it('shows an interrupted download as resumable', async () => {
    const cache = tempDir();
    const staging = join(cache, 'models', '.staging', preset.id, 'onnx');
    mkdirSync(staging, { recursive: true });
    writeFileSync(join(staging, 'model_quantized.onnx.partial'), Buffer.alloc(2_500_000));
    const listed = await runCli(['model', 'list'], cache);
    expect(listed.stdout).toMatch(/^all-MiniLM-L6-v2 +384 +no +≈ 24 MB +not installed \(interrupted download, 2\.5 MB kept: 'model pull' resumes it\)$/m);
    expect((await runCli(['model', 'rm', preset.id], cache)).code).toBe(0);
    expect((await runCli(['model', 'list'], cache)).stdout).toMatch(/^all-MiniLM-L6-v2 +384 +no +≈ 24 MB +not installed$/m);
  });

  it('says offline in one line, fast, when the endpoint refuses connections', async () => {
    const cache = tempDir();
    const closed = await startLoopbackHub({ repo: preset.repo, files: {} });
    await closed.close();
    const started = performance.now();
    const result = await runCli(['model', 'pull', preset.id], cache, { env: { SKILL_SEARCH_HF_ENDPOINT: closed.url } });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')).toHaveLength(2);
    expect(result.stderr).toMatch(new RegExp(`^skill-search: cannot reach ${closed.url} \\(cannot connect to .*\\(ECONNREFUSED\\)\\); offline\\?`));
  });

  it('a cache folder that is a file is one line naming the models folder (exit 1), from the hub as with --from; it was an internal error', async () => {
    const cache = tempDir();
    const notFolder = join(cache, 'cache-file');
    writeFileSync(notFolder, 'not a folder');
    const line = `skill-search: the models folder ${join(notFolder, 'models')}: cannot create it (${notFolder} is a file)\n`;
    const env = { SKILL_SEARCH_CACHE_DIR: notFolder, SKILL_SEARCH_HF_ENDPOINT: hub.url };
    expect(await runCli(['model', 'pull', preset.id], cache, { env })).toEqual({ code: 1, stdout: '', stderr: line });
    const first = tempDir();
    await runCli(['model', 'pull', preset.id], first, { env: { SKILL_SEARCH_HF_ENDPOINT: hub.url } });
    const from = join(first, 'models', preset.id);
    expect(await runCli(['model', 'pull', preset.id, '--from', from], cache, { env })).toEqual({ code: 1, stdout: '', stderr: line });
  });

  it('installs from a folder with --from', async () => {
    const cache = tempDir();
    const first = tempDir();
    await runCli(['model', 'pull', preset.id], first, { env: { SKILL_SEARCH_HF_ENDPOINT: hub.url } });
    const from = join(first, 'models', preset.id);
    const result = await runCli(['model', 'pull', preset.id, '--from', from], cache);
    expect(result.stdout).toBe(`installed all-MiniLM-L6-v2 in ${join(cache, 'models', preset.id)} (copied from ${from}, sizes and checksums verified)\n`);
    expect((await runCli(['model', 'rm', preset.id, '--from', from], cache)).stderr).toBe("skill-search: --from and --force only apply to 'model pull'\n");
  });

  it('--model <preset> after a pull: index and query run end to end, the index keyed on the model', async () => {
    const cache = tempDir();
    await runCli(['model', 'pull', preset.id], cache, { env: { SKILL_SEARCH_HF_ENDPOINT: hub.url } });
    const indexed = await runCli(['index', '--skills-dir', SKILLS, '--model', preset.id, '--json'], cache);
    expect(indexed.code).toBe(0);
    const summary = JSON.parse(indexed.stdout) as { skills: number; embedded: number; model: string; indexDir: string };
    expect(summary).toMatchObject({ skills: 6, embedded: 6 });
    expect(summary.model).toMatch(/^onnx:all-MiniLM-L6-v2@[0-9a-f]{12}$/);
    const useLiteDir = JSON.parse((await runCli(['index', '--skills-dir', SKILLS, '--model', 'hash', '--json'], cache)).stdout).indexDir;
    expect(useLiteDir).not.toBe(summary.indexDir);

    const found = await runCli(
      ['query', '--skills-dir', SKILLS, '--model', preset.id, '--mode', 'dense', '--k', '1', '--json', 'Resize, crop and convert images in bulk'],
      cache,
    );
    expect(found.code).toBe(0);
    expect((JSON.parse(found.stdout) as { hits: { name: string }[] }).hits.map((hit) => hit.name)).toEqual(['image-resize']);
  });

  it('tells the user to pull a preset that is not downloaded, in one line', async () => {
    const cache = tempDir();
    for (const command of [['query', 'resize images'], ['index']]) {
      const result = await runCli([...command, '--skills-dir', SKILLS, '--model', 'bge-small-en-v1.5'], cache);
      expect(result).toMatchObject({ code: 1, stdout: '' });
      expect(result.stderr).toBe(`skill-search: model "bge-small-en-v1.5" is not downloaded yet: run 'skill-search model pull bge-small-en-v1.5'\n`);
    }
  });
});
