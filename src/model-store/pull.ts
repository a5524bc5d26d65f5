import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { SkillSearchError, abortError, isAbortError, throwIfAborted } from '../errors.js';
import { linkAbortSignal } from '../util/link-signal.js';
import { makeDirs } from '../util/make-dirs.js';
import { header, HttpFailure, request } from './http.js';
import { DEFAULT_HF_ENDPOINT } from './paths.js';
import { MAX_REDIRECTS, probeFile, redirectLocation, redirectTarget, refused, type RemoteFile } from './hub.js';
import { folderProblem, readJsonObject } from './check-folder.js';
import type { ModelPreset } from './presets.js';
import { commitInstall, gitBlobSha1, installState, MANIFEST_FILE, sha256File, sizeOf, stagingDir, withInstallLock } from './store.js';
import type { ManifestFile, ModelManifest } from './store.js';

export interface PullOptions {
  /** Folder holding installed models (`modelsRoot(env)`). */
  readonly root: string;
  /** Hub or mirror base URL. @default 'https://huggingface.co' */
  readonly endpoint?: string;
  /** Fail when the hub cannot be connected to within this long (offline, unroutable). @default 5000 */
  readonly connectTimeoutMs?: number;
  /** Fail (and retry, resuming) when a connection goes silent this long. @default 30000 */
  readonly idleTimeoutMs?: number;
  /** Resumed attempts per file after a connection is cut mid-download. @default 3 */
  readonly retries?: number;
  /** Download again even when the preset is installed. @default false */
  readonly force?: boolean;
  /** Give up on the whole pull (every file, every retry) after this long. @default 1800000 (30 min) */
  readonly deadlineMs?: number;
  /** Fail (and retry, resuming) a connection slower than this over `rateWindowMs` (a trickle never goes idle). @default 1024 */
  readonly minBytesPerSecond?: number;
  /** The window `minBytesPerSecond` is measured over. @default 30000 */
  readonly rateWindowMs?: number;
  /** Largest file accepted when the hub announces no size for it. @default twice the preset's download size */
  readonly maxUnannouncedBytes?: number;
  readonly onProgress?: (progress: PullProgress) => void;
  readonly signal?: AbortSignal;
}

export interface PullProgress {
  /** Path inside the repo (`onnx/model_quantized.onnx`). */
  readonly file: string;
  /** Bytes of this file on disk so far, resumed bytes included. */
  readonly received: number;
  /** The file's size as announced by the hub, when it announced one. */
  readonly total: number | undefined;
}

export interface PullResult {
  readonly dir: string;
  readonly manifest: ModelManifest;
  /** False when the preset was already installed and nothing was fetched. */
  readonly fetched: boolean;
  /** Bytes received over the network in this call. */
  readonly downloadedBytes: number;
  /** Bytes reused from an earlier, interrupted pull. */
  readonly resumedBytes: number;
  /** Files the hub announced no checksum for: installed, but only checked for being a usable model. */
  readonly unverified: readonly string[];
}

const DEFAULTS = {
  endpoint: DEFAULT_HF_ENDPOINT,
  connectTimeoutMs: 5000,
  idleTimeoutMs: 30_000,
  retries: 3,
  deadlineMs: 30 * 60_000,
  minBytesPerSecond: 1024,
  rateWindowMs: 30_000,
  /** `maxUnannouncedBytes` is this many times the preset's download size. */
  unannouncedFactor: 2,
} as const;

class Puller {
  readonly #preset: ModelPreset;
  readonly #options: PullOptions;
  readonly #endpoint: string;
  readonly #staging: string;
  readonly #maxUnannouncedBytes: number;
  downloadedBytes = 0;
  resumedBytes = 0;

  constructor(preset: ModelPreset, options: PullOptions, endpoint: string) {
    this.#preset = preset;
    this.#options = options;
    this.#endpoint = endpoint;
    this.#staging = stagingDir(options.root, preset.id);
    this.#maxUnannouncedBytes = options.maxUnannouncedBytes ?? preset.downloadMb * 1e6 * DEFAULTS.unannouncedFactor;
  }

  #http(url: URL, method: 'GET' | 'HEAD', headers: Record<string, string> = {}): Promise<IncomingMessage> {
    return request(url, {
      method,
      headers: { 'accept-encoding': 'identity', ...headers },
      connectTimeoutMs: this.#options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
      idleTimeoutMs: this.#options.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs,
      ...(this.#options.signal === undefined ? {} : { signal: this.#options.signal }),
    });
  }

  /** What the hub says about `file` (a HEAD request); an unreachable hub is the offline error. */
  probe(file: string): Promise<RemoteFile> {
    return probeFile((url) => this.#http(url, 'HEAD'), this.#endpoint, this.#preset, file);
  }

  /** Fetches one file into the staging folder, resuming a `.partial`, and verifies it. */
  async fetch(remote: RemoteFile): Promise<ManifestFile> {
    const target = path.join(this.#staging, remote.file);
    const partial = `${target}.partial`;
    const partialInfo = `${partial}.json`;
    mkdirSync(path.dirname(target), { recursive: true });

    if (existsSync(target)) {
      const reused = await this.#verified(target, remote);
      if (typeof reused !== 'string') {
        this.resumedBytes += reused.size;
        this.#report(remote, reused.size);
        return reused;
      }
      rmSync(target, { force: true });
    }
    // A partial from another version of the file (the revision moved) cannot be resumed.
    if (readInfo(partialInfo) !== (remote.etag ?? '')) rmSync(partial, { force: true });
    writeFileSync(partialInfo, remote.etag ?? '');

    const retries = this.#options.retries ?? DEFAULTS.retries;
    const initial = sizeOf(partial);
    if (initial > 0) this.resumedBytes += Math.min(initial, remote.size ?? initial);
    for (let attempt = 0; ; attempt += 1) {
      throwIfAborted(this.#options.signal);
      try {
        await this.#download(remote, partial);
        break;
      } catch (error) {
        if (!isAbortError(error) && !(error instanceof SkillSearchError) && attempt < retries) continue;
        if (!(error instanceof HttpFailure) && !isStreamCut(error)) throw error;
        throw new SkillSearchError(
          'NETWORK',
          `download of ${remote.file} failed after ${attempt + 1} attempt${attempt === 0 ? '' : 's'} (${(error as Error).message}); run the same command again to resume`,
          { cause: error },
        );
      }
    }
    const verified = await this.#verified(partial, remote);
    if (typeof verified === 'string') {
      rmSync(partial, { force: true });
      rmSync(partialInfo, { force: true });
      throw new SkillSearchError('CHECKSUM', `${remote.file} from ${remote.url.href}: ${verified}; the download was discarded and nothing was installed`);
    }
    // `target` was removed above unless it was reused.
    renameSync(partial, target);
    rmSync(partialInfo, { force: true });
    return { ...verified, path: remote.file };
  }

  /** One GET from where the partial file ends; returns when the body is on disk. */
  async #download(remote: RemoteFile, partial: string): Promise<void> {
    let offset = sizeOf(partial);
    if (remote.size !== undefined && offset > remote.size) {
      rmSync(partial, { force: true });
      offset = 0;
    }
    if (remote.size !== undefined && offset === remote.size) return;
    const range: Record<string, string> = offset > 0 ? { range: `bytes=${offset}-` } : {};
    let url = remote.downloadUrl;
    let response = await this.#http(url, 'GET', range);
    for (let hop = 0; ; hop += 1) {
      const location = redirectLocation(response);
      if (location === undefined) break;
      response.resume();
      url = redirectTarget(url, location);
      if (hop === MAX_REDIRECTS) throw new SkillSearchError('NETWORK', `${remote.url.href}: more than ${MAX_REDIRECTS} redirects`);
      response = await this.#http(url, 'GET', range);
    }
    const status = response.statusCode ?? 0;
    if (status === 206) {
      const start = /^bytes (\d+)-/.exec(header(response, 'content-range') ?? '')?.[1];
      if (start === undefined || Number(start) !== offset) {
        // A range we did not ask for: start over from byte 0 on the next attempt.
        response.destroy();
        rmSync(partial, { force: true });
        throw new HttpFailure(`${url.host} answered a different byte range`);
      }
    } else if (status === 416) {
      response.resume();
      rmSync(partial, { force: true });
      throw new HttpFailure(`${url.host} refused to resume at byte ${offset}`);
    } else if (status !== 200) {
      response.resume();
      throw refused(url, response);
    }
    await this.#receive(remote, response, url, partial, status === 206 ? offset : 0);
  }

  /** Writes the body to the partial file up to the announced size (else `maxUnannouncedBytes`), failing a too slow connection. */
  async #receive(remote: RemoteFile, response: IncomingMessage, url: URL, partial: string, start: number): Promise<void> {
    const limit = remote.size ?? this.#maxUnannouncedBytes;
    const minRate = this.#options.minBytesPerSecond ?? DEFAULTS.minBytesPerSecond;
    const windowMs = this.#options.rateWindowMs ?? DEFAULTS.rateWindowMs;
    let received = start;
    let windowBytes = 0;
    const rateTimer = setInterval(() => {
      if (windowBytes < (minRate * windowMs) / 1000) {
        response.destroy(new HttpFailure(`${url.host} sent ${windowBytes} bytes in ${windowMs} ms, slower than ${minRate} bytes/s`));
      }
      windowBytes = 0;
    }, windowMs);
    const signal = this.#options.signal;
    const onAbort = () => response.destroy(abortError(signal));
    signal?.addEventListener('abort', onAbort, { once: true });
    const handle = await open(partial, start > 0 ? 'a' : 'w');
    let full = false;
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        const part = received + chunk.length > limit ? chunk.subarray(0, limit - received) : chunk;
        await handle.write(part);
        received += part.length;
        windowBytes += part.length;
        this.downloadedBytes += part.length;
        this.#report(remote, received);
        if (part.length < chunk.length) {
          full = true;
          break;
        }
      }
      await handle.sync();
    } finally {
      clearInterval(rateTimer);
      signal?.removeEventListener('abort', onAbort);
      await handle.close();
    }
    if (full && remote.size === undefined) {
      rmSync(partial, { force: true });
      throw new SkillSearchError(
        'CHECKSUM',
        `${remote.file} from ${remote.url.href}: no size was announced and it is larger than ${limit} bytes; the download was discarded and nothing was installed`,
      );
    }
    if (!full && !response.complete) throw new HttpFailure(`connection to ${url.host} closed early`);
  }

  /** Size and announced hash checked: the file's entry for the manifest (with its sha256), or what differs. */
  async #verified(file: string, remote: RemoteFile): Promise<ManifestFile | string> {
    const size = sizeOf(file);
    if (remote.size !== undefined && size !== remote.size) return `got ${size} bytes, the hub announced ${remote.size}`;
    const sha256 = await sha256File(file);
    const { digest } = remote;
    if (digest?.algorithm === 'sha256' && sha256 !== digest.value) return `sha256 ${sha256} differs from the announced ${digest.value}`;
    const blob = digest?.algorithm === 'git-sha1' ? await gitBlobSha1(file) : undefined;
    if (blob !== undefined && blob !== digest?.value) return `git blob id ${blob} differs from the announced ${digest?.value}`;
    return { path: remote.file, size, sha256 };
  }

  #report(remote: RemoteFile, received: number): void {
    this.#options.onProgress?.({ file: remote.file, received, total: remote.size });
  }
}

function isStreamCut(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || (error as Error | undefined)?.message === 'aborted';
}

function readInfo(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Downloads a preset from the hub (or a mirror) into `<root>/<id>/`: every file probed first (so
 * offline fails fast), fetched into staging as resumable `.partial` files, checked against the
 * announced size and hash, then moved into place in one rename.
 */
export async function pullModel(preset: ModelPreset, options: PullOptions): Promise<PullResult> {
  const endpoint = (options.endpoint ?? DEFAULTS.endpoint).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(endpoint) || !URL.canParse(endpoint)) {
    throw new SkillSearchError('BAD_OPTION', `the hub endpoint must be an http:// or https:// URL, got '${endpoint}' (SKILL_SEARCH_HF_ENDPOINT)`);
  }
  const current = installState(options.root, preset);
  if (current.state === 'installed' && options.force !== true) {
    return { dir: current.dir, manifest: current.manifest, fetched: false, downloadedBytes: 0, resumedBytes: 0, unverified: [] };
  }
  makeDirs(options.root, { subject: `the models folder ${options.root}` });
  const deadlineMs = options.deadlineMs ?? DEFAULTS.deadlineMs;
  const deadline = new SkillSearchError(
    'NETWORK',
    `the download of ${preset.id} did not finish within ${Math.round(deadlineMs / 1000)} s; run the same command again to resume`,
  );
  const controller = new AbortController();
  const unlink = linkAbortSignal(options.signal, controller);
  const timer = setTimeout(() => controller.abort(deadline), deadlineMs);
  try {
    return await pullLocked(preset, { ...options, signal: controller.signal }, endpoint);
  } catch (error) {
    throw controller.signal.reason === deadline ? deadline : error;
  } finally {
    clearTimeout(timer);
    unlink();
  }
}

function pullLocked(preset: ModelPreset, options: PullOptions, endpoint: string): Promise<PullResult> {
  return withInstallLock(options.root, preset.id, async () => {
    const puller = new Puller(preset, options, endpoint);
    const remotes: RemoteFile[] = [];
    for (const file of preset.files) remotes.push(await puller.probe(file));
    const files: ManifestFile[] = [];
    for (const remote of remotes) files.push(await puller.fetch(remote));
    throwIfAborted(options.signal);
    const staging = stagingDir(options.root, preset.id);
    const problem = folderProblem(staging, preset);
    if (problem !== undefined) {
      rmSync(staging, { recursive: true, force: true });
      throw new SkillSearchError('CHECKSUM', `the files fetched from ${endpoint} do not form a usable ${preset.id}: ${problem}; nothing was installed`);
    }
    const commit = remotes.find((remote) => remote.commit !== undefined)?.commit;
    const { dir, manifest } = commitInstall(options.root, staging, preset, { revision: preset.revision, commit, source: endpoint, files });
    const unverified = remotes.filter((remote) => remote.digest === undefined).map((remote) => remote.file);
    return { dir, manifest, fetched: true, downloadedBytes: puller.downloadedBytes, resumedBytes: puller.resumedBytes, unverified };
  });
}

export type InstallFromFolderOptions = Pick<PullOptions, 'root' | 'signal'>;

function folderError(from: string, problem: string): SkillSearchError {
  return new SkillSearchError('BAD_FILE', `--from '${from}': ${problem}`);
}

/** `model pull <id> --from DIR`: installs a hand-copied folder, checked (`folderProblem`), each file's sha256 against its `skill-search-model.json` if any. */
export async function installFromFolder(preset: ModelPreset, from: string, options: InstallFromFolderOptions): Promise<PullResult> {
  const source = path.resolve(from);
  if (!existsSync(source) || !statSync(source).isDirectory()) throw folderError(from, 'no such folder');
  const problem = folderProblem(source, preset);
  if (problem !== undefined) throw folderError(from, problem);
  let announced: ModelManifest | undefined;
  if (existsSync(path.join(source, MANIFEST_FILE))) {
    const parsed = readJsonObject(source, MANIFEST_FILE);
    if (typeof parsed === 'string') throw folderError(from, parsed);
    announced = parsed as unknown as ModelManifest;
    if (announced.preset !== preset.id) throw folderError(from, `${MANIFEST_FILE} is for '${String(announced.preset)}', not ${preset.id}`);
  }
  makeDirs(options.root, { subject: `the models folder ${options.root}` });
  return withInstallLock(options.root, preset.id, async () => {
    const staging = stagingDir(options.root, preset.id);
    rmSync(staging, { recursive: true, force: true });
    const files: ManifestFile[] = [];
    const unverified: string[] = [];
    for (const file of preset.files) {
      throwIfAborted(options.signal);
      const target = path.join(staging, file);
      mkdirSync(path.dirname(target), { recursive: true });
      copyFileSync(path.join(source, file), target);
      const sha256 = await sha256File(target);
      const expected = announced?.files?.find((entry) => entry.path === file)?.sha256;
      if (expected !== undefined && expected !== sha256) {
        rmSync(staging, { recursive: true, force: true });
        throw new SkillSearchError('CHECKSUM', `--from '${from}': ${file} has sha256 ${sha256}, its ${MANIFEST_FILE} says ${expected}; nothing was installed`);
      }
      if (expected === undefined) unverified.push(file);
      files.push({ path: file, size: sizeOf(target), sha256 });
    }
    const origin = { revision: announced?.revision ?? preset.revision, commit: announced?.commit, source: `folder:${source}`, files };
    const { dir, manifest } = commitInstall(options.root, staging, preset, origin);
    return { dir, manifest, fetched: true, downloadedBytes: 0, resumedBytes: 0, unverified };
  });
}
