import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTinyModel } from '../../scripts/make-tiny-model.js';
import { findPreset } from '../../src/model-store/presets.js';
import { installFromFolder } from '../../src/model-store/pull.js';
import { pullModel } from '../../src/model-store/pull.js';
import { installState, MANIFEST_FILE } from '../../src/model-store/store.js';
import { startLoopbackHub, tinyModelFiles, type LoopbackHub } from '../support/loopback-hub.js';
import { useTempDirs } from '../support/temp-dirs.js';

const preset = findPreset('all-MiniLM-L6-v2')!;
const ONNX = preset.onnxFile;
const tempDir = useTempDirs('pull');
let modelSource: string;
let hub: LoopbackHub;

let sourceRoot: string;
beforeAll(() => {
  sourceRoot = mkdtempSync(join(tmpdir(), 'skill-search-pull-src-'));
  modelSource = makeTinyModel(join(sourceRoot, 'tiny'), { hidden: preset.dimensions });
});
afterAll(() => rmSync(sourceRoot, { recursive: true, force: true }));
afterEach(async () => {
  await hub?.close();
});

async function serve(): Promise<LoopbackHub> {
  hub = await startLoopbackHub({ repo: preset.repo, files: tinyModelFiles(modelSource, ONNX) });
  return hub;
}

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('model pull from a loopback hub', () => {
  it('fetches every file of the preset, verified, into <root>/<id> with a manifest', async () => {
    const server = await serve();
    const root = tempDir();
    const seen: string[] = [];
    const result = await pullModel(preset, { root, endpoint: server.url, onProgress: ({ file }) => seen.push(file) });
    expect(result.fetched).toBe(true);
    expect(result.dir).toBe(join(root, preset.id));
    expect(readFileSync(join(result.dir, ONNX))).toEqual(readFileSync(join(modelSource, 'onnx', 'model.onnx')));
    expect(result.manifest).toMatchObject({ preset: preset.id, repo: preset.repo, commit: 'c0ffee0000000000000000000000000000000000', source: server.url });
    expect(result.manifest.files.map((file) => file.path)).toEqual(preset.files);
    expect(result.manifest.files.find((file) => file.path === ONNX)?.sha256).toBe(sha256(join(modelSource, 'onnx', 'model.onnx')));
    expect(new Set(seen)).toEqual(new Set(preset.files));
    expect(installState(root, preset).state).toBe('installed');
    // The LFS file was fetched from the CDN location the hub redirected to.
    expect(server.requests.some((request) => request.method === 'GET' && request.url.startsWith('/cdn/'))).toBe(true);
    expect(readdirSync(join(root, '.staging')).filter((name) => !name.endsWith('.lock'))).toEqual([]);

    const again = await pullModel(preset, { root, endpoint: server.url });
    expect(again.fetched).toBe(false);
  });

  it('resumes after a cut connection with a Range request (within one pull)', async () => {
    const server = await serve();
    server.cut(ONNX, 100_000);
    const root = tempDir();
    const result = await pullModel(preset, { root, endpoint: server.url });
    const ranges = server.requests.filter((request) => request.url.startsWith('/cdn/') && request.method === 'GET').map((request) => request.range);
    // Bytes received but not yet on disk when the connection dropped are fetched again.
    expect(ranges).toHaveLength(2);
    expect(ranges[0]).toBeUndefined();
    expect(ranges[1]).toMatch(/^bytes=([1-9]\d*)-$/);
    expect(Number(/\d+/.exec(ranges[1]!)![0])).toBeLessThanOrEqual(100_000);
    expect(result.resumedBytes).toBe(0);
    expect(sha256(join(result.dir, ONNX))).toBe(sha256(join(modelSource, 'onnx', 'model.onnx')));
  });

  it('leaves a cut download resumable by the next pull, and installs nothing meanwhile', async () => {
    const server = await serve();
    server.cut(ONNX, 50_000, 2);
    const root = tempDir();
    await expect(pullModel(preset, { root, endpoint: server.url, retries: 1 })).rejects.toThrow(
      /^skill-search: download of onnx\/model_quantized\.onnx failed after 2 attempts \(.*\); run the same command again to resume$/,
    );
    expect(existsSync(join(root, preset.id))).toBe(false);
    expect(installState(root, preset).state).toBe('missing');
    const onDisk = statSync(join(root, '.staging', preset.id, `${ONNX}.partial`)).size;
    expect(onDisk).toBeGreaterThan(0);

    const result = await pullModel(preset, { root, endpoint: server.url });
    // The small files finished in the first pull are reused too (re-verified, not fetched).
    const small = ['config.json', 'tokenizer.json', 'tokenizer_config.json'].reduce((sum, file) => sum + statSync(join(modelSource, file)).size, 0);
    expect(result.resumedBytes).toBe(onDisk + small);
    expect(server.requests.filter((request) => request.url.startsWith('/cdn/') && request.method === 'GET').at(-1)?.range).toBe(`bytes=${onDisk}-`);
    expect(sha256(join(result.dir, ONNX))).toBe(sha256(join(modelSource, 'onnx', 'model.onnx')));
  });

  it('refuses a file whose sha256 differs from the announced one: discarded, nothing installed', async () => {
    const server = await serve();
    server.lie(ONNX, 'ab'.repeat(32));
    const root = tempDir();
    const error = await pullModel(preset, { root, endpoint: server.url }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'CHECKSUM' });
    expect((error as Error).message).toMatch(
      new RegExp(
        `^skill-search: onnx/model_quantized\\.onnx from ${server.url}/Xenova/all-MiniLM-L6-v2/resolve/main/onnx/model_quantized\\.onnx: sha256 [0-9a-f]{64} differs from the announced ${'ab'.repeat(32)}; the download was discarded and nothing was installed$`,
      ),
    );
    expect(existsSync(join(root, preset.id))).toBe(false);
    expect(existsSync(join(root, '.staging', preset.id, `${ONNX}.partial`))).toBe(false);
  });

  it('fails fast with one line when the hub refuses connections (offline)', async () => {
    const server = await serve();
    const closedUrl = server.url;
    await server.close();
    const root = tempDir();
    const started = performance.now();
    const error = await pullModel(preset, { root, endpoint: closedUrl }).catch((caught: unknown) => caught);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(error).toMatchObject({ code: 'NETWORK' });
    expect((error as Error).message).toMatch(
      new RegExp(
        `^skill-search: cannot reach ${closedUrl} \\(cannot connect to 127\\.0\\.0\\.1:\\d+ \\(ECONNREFUSED\\)\\); offline\\? Set SKILL_SEARCH_HF_ENDPOINT to a mirror, or copy the model folder here by hand and run 'skill-search model pull all-MiniLM-L6-v2 --from DIR'$`,
      ),
    );
    expect((error as Error).message).not.toContain('\n');
    expect(existsSync(join(root, preset.id))).toBe(false);
  });

  it('gives up after the connect timeout when the connection never comes up, not after the OS timeout', async () => {
    // A local TCP listener that accepts and then says nothing: an https:// client never finishes
    // its TLS handshake, as with a black-holed address. Nothing leaves this machine.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const root = tempDir();
      const started = performance.now();
      const error = await pullModel(preset, { root, endpoint: `https://127.0.0.1:${port}`, connectTimeoutMs: 300 }).catch((caught: unknown) => caught);
      expect(performance.now() - started).toBeLessThan(2000);
      expect(error).toMatchObject({ code: 'NETWORK' });
      expect((error as Error).message).toMatch(
        new RegExp(`^skill-search: cannot reach https://127\\.0\\.0\\.1:${port} \\(no connection to 127\\.0\\.0\\.1:${port} within 300 ms\\); offline\\?`),
      );
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('refuses files that pass the announced checks but are no model (a portal answering for the hub)', async () => {
    const portal = join(tempDir(), 'portal.html');
    writeFileSync(portal, '<html><body>Sign in to the guest network</body></html>');
    hub = await startLoopbackHub({ repo: preset.repo, files: { ...tinyModelFiles(modelSource, ONNX), 'tokenizer.json': portal } });
    const root = tempDir();
    const error = await pullModel(preset, { root, endpoint: hub.url }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'CHECKSUM' });
    expect((error as Error).message).toMatch(
      new RegExp(
        `^skill-search: the files fetched from ${hub.url} do not form a usable all-MiniLM-L6-v2: tokenizer\\.json is not valid JSON \\(.*\\); nothing was installed$`,
      ),
    );
    expect(existsSync(join(root, preset.id))).toBe(false);
    expect(existsSync(join(root, '.staging', preset.id))).toBe(false);
  });

  it('rejects an endpoint that is not an http(s) URL before any I/O', async () => {
    await expect(pullModel(preset, { root: tempDir(), endpoint: 'huggingface.co' })).rejects.toThrow(
      "skill-search: the hub endpoint must be an http:// or https:// URL, got 'huggingface.co' (SKILL_SEARCH_HF_ENDPOINT)",
    );
  });

  it('names the file and status when the hub lacks a file', async () => {
    hub = await startLoopbackHub({ repo: preset.repo, files: { 'config.json': join(modelSource, 'config.json') } });
    const root = tempDir();
    await expect(pullModel(preset, { root, endpoint: hub.url })).rejects.toThrow(
      `skill-search: ${hub.url}/Xenova/all-MiniLM-L6-v2/resolve/main/tokenizer.json answered 404: no such file (is SKILL_SEARCH_HF_ENDPOINT a Hugging Face mirror?)`,
    );
  });
});

describe('model pull lock', () => {
  it("refuses a second pull of the same model while one runs, and takes over a dead one's lock", async () => {
    const server = await serve();
    const root = tempDir();
    mkdirSync(join(root, '.staging'), { recursive: true });
    const lock = join(root, '.staging', `${preset.id}.lock`);
    writeFileSync(lock, String(process.ppid));
    await expect(pullModel(preset, { root, endpoint: server.url })).rejects.toThrow(
      `skill-search: another 'skill-search model pull all-MiniLM-L6-v2' is running (pid ${process.ppid}); wait for it or stop it`,
    );
    writeFileSync(lock, '2147483646');
    expect((await pullModel(preset, { root, endpoint: server.url })).fetched).toBe(true);
    expect(existsSync(lock)).toBe(false);
  });
});

describe('model pull --from DIR', () => {
  function handCopy(): string {
    const dir = join(tempDir(), 'copied');
    mkdirSync(join(dir, 'onnx'), { recursive: true });
    for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) cpSync(join(modelSource, file), join(dir, file));
    cpSync(join(modelSource, 'onnx', 'model.onnx'), join(dir, ONNX));
    return dir;
  }

  it('installs a folder copied by hand, recording where it came from', async () => {
    const root = tempDir();
    const from = handCopy();
    const result = await installFromFolder(preset, from, { root });
    expect(result.manifest.source).toBe(`folder:${from}`);
    expect(installState(root, preset).state).toBe('installed');
    expect(existsSync(join(from, ONNX))).toBe(true);
  });

  it('names what is missing, and installs nothing', async () => {
    const root = tempDir();
    const from = handCopy();
    writeFileSync(join(from, 'tokenizer.json'), '');
    await expect(installFromFolder(preset, from, { root })).rejects.toThrow(
      `skill-search: --from '${from}': missing or empty: tokenizer.json (a copy of Xenova/all-MiniLM-L6-v2 holds config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx)`,
    );
    expect(existsSync(join(root, preset.id))).toBe(false);
  });

  it('refuses a folder of another model (width) and a file that differs from its manifest', async () => {
    const root = tempDir();
    const from = handCopy();
    writeFileSync(join(from, 'config.json'), JSON.stringify({ hidden_size: 768 }));
    await expect(installFromFolder(preset, from, { root })).rejects.toThrow(
      `config.json says 768 dimensions, all-MiniLM-L6-v2 has 384: is this the right model?`,
    );
    const html = handCopy();
    writeFileSync(join(html, ONNX), '<html>not found</html>');
    await expect(installFromFolder(preset, html, { root })).rejects.toThrow(`skill-search: --from '${html}': onnx/model_quantized.onnx is not an ONNX model`);

    const pulled = handCopy();
    const first = await installFromFolder(preset, pulled, { root });
    const copy = join(tempDir(), 'copy');
    cpSync(first.dir, copy, { recursive: true });
    writeFileSync(join(copy, 'tokenizer_config.json'), '{"tampered":true}');
    const other = tempDir();
    const error = await installFromFolder(preset, copy, { root: other }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'CHECKSUM' });
    expect((error as Error).message).toMatch(
      new RegExp(`tokenizer_config\\.json has sha256 [0-9a-f]{64}, its ${MANIFEST_FILE} says [0-9a-f]{64}; nothing was installed$`),
    );
    expect(existsSync(join(other, preset.id))).toBe(false);
  });
});
