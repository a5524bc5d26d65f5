import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTinyModel } from '../../scripts/make-tiny-model.js';
import { findPreset } from '../../src/model-store/presets.js';
import { type PullOptions, pullModel } from '../../src/model-store/pull.js';
import { installState } from '../../src/model-store/store.js';
import { tinyModelFiles } from '../support/loopback-hub.js';
import { useTempDirs } from '../support/temp-dirs.js';
import { runCli } from '../cli/helpers.js';

const preset = findPreset('all-MiniLM-L6-v2')!;
const ONNX = preset.onnxFile;
const tempDir = useTempDirs('pull-bounds');
let files: Record<string, Buffer>;
let sourceRoot: string;
let server: http.Server | undefined;

beforeAll(() => {
  sourceRoot = mkdtempSync(join(tmpdir(), 'skill-search-pull-bounds-src-'));
  const model = makeTinyModel(join(sourceRoot, 'tiny'), { hidden: preset.dimensions });
  files = Object.fromEntries(Object.entries(tinyModelFiles(model, ONNX)).map(([name, file]) => [name, readFileSync(file)]));
});
afterAll(() => rmSync(sourceRoot, { recursive: true, force: true }));
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

const gitSha1 = (bytes: Buffer) => createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');

/**
 * A hub whose small files are honest and whose ONNX file is served by `onnx`: HEAD gets
 * `announce` (headers), GET the body `onnx` writes, chunked (no length of its own).
 */
async function hub(announce: Record<string, string>, onnx: (res: http.ServerResponse) => void): Promise<string> {
  server = http.createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.split('/resolve/main/')[1] ?? '');
    if (name === ONNX) {
      if (req.method === 'HEAD') res.writeHead(200, announce).end();
      else onnx(res.writeHead(200));
      return;
    }
    const bytes = files[name];
    if (bytes === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-length': String(bytes.length), etag: `"${gitSha1(bytes)}"` });
    res.end(req.method === 'HEAD' ? undefined : bytes);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

/** Writes `head`, then zeros in 64 KiB chunks until the client goes (or `limit` bytes). */
function flood(res: http.ServerResponse, head: Buffer, limit = 50e6): void {
  let sent = 0;
  const more = () => {
    while (sent < limit && !res.destroyed) {
      const chunk = sent === 0 ? head : Buffer.alloc(65_536);
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    res.end();
  };
  more();
}

async function pull(endpoint: string, options: Partial<PullOptions> = {}) {
  const root = tempDir();
  let most = 0;
  const result = await pullModel(preset, {
    root,
    endpoint,
    retries: 0,
    onProgress: ({ file, received }) => {
      if (file === ONNX) most = Math.max(most, received);
    },
    ...options,
  }).catch((error: unknown) => error as Error);
  return { root, result, most };
}

describe('model pull bounds', () => {
  it('stops reading at the announced size (a longer body is not written)', async () => {
    const onnx = files[ONNX]!;
    const endpoint = await hub({ 'content-length': String(onnx.length) }, (res) => flood(res, onnx));
    const { root, result, most } = await pull(endpoint);
    expect(most).toBe(onnx.length);
    if (result instanceof Error) throw result;
    expect(readFileSync(join(result.dir, ONNX))).toEqual(onnx);
    expect(result.unverified).toEqual([ONNX]);
    expect(installState(root, preset).state).toBe('installed');
  });

  it('a file announced at 4,002 bytes that keeps coming is cut at 4,002 and refused as no model', async () => {
    const endpoint = await hub({ 'content-length': '4002' }, (res) => flood(res, Buffer.alloc(4002, 1)));
    const { root, result, most } = await pull(endpoint);
    expect(most).toBe(4002);
    expect(result).toMatchObject({ code: 'CHECKSUM' });
    expect(existsSync(join(root, preset.id))).toBe(false);
  });

  it('without an announced size, caps the file and installs nothing past the cap', async () => {
    const endpoint = await hub({}, (res) => flood(res, Buffer.alloc(1000, 1)));
    const { root, result, most } = await pull(endpoint, { maxUnannouncedBytes: 300_000 });
    expect(most).toBe(300_000);
    expect(result).toMatchObject({ code: 'CHECKSUM' });
    expect((result as Error).message).toBe(
      `skill-search: ${ONNX} from ${endpoint}/${preset.repo}/resolve/main/${ONNX}: no size was announced and it is larger than 300000 bytes; the download was discarded and nothing was installed`,
    );
    expect(existsSync(join(root, preset.id))).toBe(false);
    expect(existsSync(join(root, '.staging', preset.id, `${ONNX}.partial`))).toBe(false);
  });

  it('without an announced size or hash, installs a small enough file and says it is unverified', async () => {
    const endpoint = await hub({}, (res) => res.end(files[ONNX]));
    const { result } = await pull(endpoint);
    if (result instanceof Error) throw result;
    expect(result.unverified).toEqual([ONNX]);
    const cli = await runCli(['model', 'pull', preset.id], tempDir(), { env: { SKILL_SEARCH_HF_ENDPOINT: endpoint } });
    expect(cli.stdout).toMatch(
      /^installed all-MiniLM-L6-v2 in .* \(\d+\.\d MB downloaded, UNVERIFIED: no checksum was announced for onnx\/model_quantized\.onnx; only checked to load as a model\)\n$/,
    );
  });

  it('a redirect to a file:// URL is a one-line error, not a crash', async () => {
    server = http.createServer((_req, res) => {
      res.writeHead(302, { location: 'file:///etc/passwd', 'x-linked-size': '10' }).end();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    const cli = await runCli(['model', 'pull', preset.id], tempDir(), { env: { SKILL_SEARCH_HF_ENDPOINT: endpoint } });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toBe(
      `skill-search: ${endpoint}/${preset.repo}/resolve/main/config.json redirected to 'file:///etc/passwd', which is not an http(s) URL; nothing was installed\n`,
    );
  });

  it('gives up at the total deadline on a trickle that never goes silent', async () => {
    const endpoint = await hub({ 'content-length': '100000' }, (res) => {
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(Buffer.alloc(1))), 100);
    });
    const started = performance.now();
    const { result } = await pull(endpoint, { deadlineMs: 2000, minBytesPerSecond: 0 });
    expect(performance.now() - started).toBeLessThan(6000);
    expect(result).toMatchObject({ code: 'NETWORK' });
    expect((result as Error).message).toBe(`skill-search: the download of ${preset.id} did not finish within 2 s; run the same command again to resume`);
  });

  it('fails a connection slower than the minimum rate, after its retries', async () => {
    const endpoint = await hub({ 'content-length': '100000' }, (res) => {
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(Buffer.alloc(1))), 50);
    });
    const started = performance.now();
    const { result } = await pull(endpoint, { minBytesPerSecond: 100, rateWindowMs: 500, retries: 1 });
    expect(performance.now() - started).toBeLessThan(6000);
    expect(result).toMatchObject({ code: 'NETWORK' });
    expect((result as Error).message).toMatch(
      /^skill-search: download of onnx\/model_quantized\.onnx failed after 2 attempts \(127\.0\.0\.1:\d+ sent \d+ bytes in 500 ms, slower than 100 bytes\/s\); run the same command again to resume$/,
    );
  });
});
