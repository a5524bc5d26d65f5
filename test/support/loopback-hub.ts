/**
 * A Hugging Face hub stand-in on 127.0.0.1 for download tests (no test may reach the internet).
 * It serves a model folder in the hub's URL layout, `/<repo>/resolve/<revision>/<file>`:
 *
 * - "LFS" files (`*.onnx`): HEAD/GET answer 302 to `/cdn/<sha256>` with `x-linked-size`,
 *   `x-linked-etag` (the content's sha256) and `x-repo-commit`, as the hub does;
 * - other files: 200 with `etag` = git blob sha1 and `content-length`;
 * - `/cdn/<sha256>` serves the bytes and honours `Range: bytes=N-` with 206.
 *
 * Faults on demand: cut the connection after N bytes, announce a wrong sha256.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface HubRequest {
  readonly method: string;
  readonly url: string;
  readonly range: string | undefined;
}

export interface LoopbackHubOptions {
  readonly repo: string;
  /** Repo path → file on disk. */
  readonly files: Readonly<Record<string, string>>;
  readonly commit?: string;
}

export interface LoopbackHub {
  readonly url: string;
  readonly requests: HubRequest[];
  /** The next `times` body responses of `file` stop after `bytes` bytes and drop the connection. */
  cut(file: string, bytes: number, times?: number): void;
  /** Announce this sha256 for `file` instead of the real one. */
  lie(file: string, sha256: string): void;
  close(): Promise<void>;
}

const gitSha1 = (bytes: Buffer): string => createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

export async function startLoopbackHub(options: LoopbackHubOptions): Promise<LoopbackHub> {
  const commit = options.commit ?? 'c0ffee0000000000000000000000000000000000';
  const contents = new Map(Object.entries(options.files).map(([repoPath, file]) => [repoPath, readFileSync(file)]));
  const bySha = new Map([...contents.values()].map((bytes) => [sha256(bytes), bytes]));
  const shaToPath = new Map([...contents].map(([repoPath, bytes]) => [sha256(bytes), repoPath]));
  const cuts = new Map<string, { bytes: number; times: number }>();
  const lies = new Map<string, string>();
  const requests: HubRequest[] = [];
  const prefix = `/${options.repo}/resolve/main/`;

  function body(res: http.ServerResponse, req: http.IncomingMessage, repoPath: string, bytes: Buffer, headers: Record<string, string>): void {
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    if (start > bytes.length) {
      res.writeHead(416, { 'content-range': `bytes */${bytes.length}` }).end();
      return;
    }
    const slice = bytes.subarray(start);
    res.writeHead(range ? 206 : 200, {
      ...headers,
      'content-length': String(slice.length),
      'accept-ranges': 'bytes',
      ...(range ? { 'content-range': `bytes ${start}-${bytes.length - 1}/${bytes.length}` } : {}),
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const cut = cuts.get(repoPath);
    if (cut !== undefined && cut.times > 0) {
      cut.times -= 1;
      res.write(slice.subarray(0, cut.bytes), () => setTimeout(() => res.socket?.destroy(), 20));
      return;
    }
    res.end(slice);
  }

  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    requests.push({ method: req.method ?? '', url, range: req.headers.range });
    if (url.startsWith('/cdn/')) {
      const sha = url.slice('/cdn/'.length);
      const bytes = bySha.get(sha);
      if (bytes === undefined) res.writeHead(404).end();
      else body(res, req, shaToPath.get(sha)!, bytes, {});
      return;
    }
    if (!url.startsWith(prefix)) {
      res.writeHead(404, { 'x-error-code': 'RepoNotFound' }).end();
      return;
    }
    const repoPath = decodeURIComponent(url.slice(prefix.length));
    const bytes = contents.get(repoPath);
    if (bytes === undefined) {
      res.writeHead(404, { 'x-error-code': 'EntryNotFound', 'x-repo-commit': commit }).end();
      return;
    }
    if (path.extname(repoPath) === '.onnx') {
      const real = sha256(bytes);
      res
        .writeHead(302, {
          location: `/cdn/${real}`,
          'x-linked-size': String(bytes.length),
          'x-linked-etag': `"${lies.get(repoPath) ?? real}"`,
          etag: `"${gitSha1(Buffer.from('pointer'))}"`,
          'x-repo-commit': commit,
          'content-length': '0',
        })
        .end();
      return;
    }
    body(res, req, repoPath, bytes, { etag: `"${gitSha1(bytes)}"`, 'x-repo-commit': commit });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    cut: (file, bytes, times = 1) => cuts.set(file, { bytes, times }),
    lie: (file, sha) => lies.set(file, sha),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The tiny model's files under a preset's repo paths (its `onnx/model.onnx` serves as the preset's ONNX file). */
export function tinyModelFiles(modelDir: string, onnxFile: string): Record<string, string> {
  return {
    'config.json': path.join(modelDir, 'config.json'),
    'tokenizer.json': path.join(modelDir, 'tokenizer.json'),
    'tokenizer_config.json': path.join(modelDir, 'tokenizer_config.json'),
    [onnxFile]: path.join(modelDir, 'onnx', 'model.onnx'),
  };
}
