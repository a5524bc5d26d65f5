import { createHash, type Hash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SkillSearchError } from '../errors.js';
import type { ModelPreset } from './presets.js';
import { processAlive } from '../util/process-alive.js';
import { parseJsonQuietly } from '../util/json-file.js';
import { writeFileAtomic } from '../vector-index/atomic-file.js';

/** Written last into an installed model folder: which preset, from where, and every file's size and sha256. */
export const MANIFEST_FILE = 'skill-search-model.json';
const MANIFEST_FORMAT = 1;

export interface ManifestFile {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

export interface ModelManifest {
  readonly format: typeof MANIFEST_FORMAT;
  readonly preset: string;
  readonly repo: string;
  readonly revision: string;
  /** The hub's `x-repo-commit` for the revision fetched, when it sent one. */
  readonly commit?: string;
  /** The endpoint downloaded from, or `folder:<path>` for `pull --from`. */
  readonly source: string;
  readonly installedAt: string;
  readonly files: readonly ManifestFile[];
}

export type InstallState =
  | { readonly state: 'installed'; readonly dir: string; readonly manifest: ModelManifest }
  | { readonly state: 'missing'; readonly dir: string }
  | { readonly state: 'broken'; readonly dir: string; readonly reason: string };

/** Where a pull collects files (and `.partial` downloads) until every one is verified. */
export function stagingDir(root: string, id: string): string {
  return path.join(root, '.staging', id);
}

/** Cheap check (sizes, not hashes): run at every `--model <preset>` load. */
export function installState(root: string, preset: ModelPreset): InstallState {
  const dir = path.join(root, preset.id);
  let raw: string;
  try {
    raw = readFileSync(path.join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    return existsSync(dir) ? { state: 'broken', dir, reason: `no ${MANIFEST_FILE}` } : { state: 'missing', dir };
  }
  const manifest = parseJsonQuietly(raw) as ModelManifest | undefined;
  if (manifest === undefined) return { state: 'broken', dir, reason: `${MANIFEST_FILE} is not JSON` };
  if (manifest.format !== MANIFEST_FORMAT || manifest.preset !== preset.id || !Array.isArray(manifest.files)) {
    return { state: 'broken', dir, reason: `${MANIFEST_FILE} is for another preset or format` };
  }
  for (const file of preset.files) {
    const entry = manifest.files.find((candidate) => candidate.path === file);
    // Installs never record an empty file (folderProblem), so a missing one's 0 never matches.
    if (entry === undefined || sizeOf(path.join(dir, file)) !== entry.size) return { state: 'broken', dir, reason: `${file} is missing or changed size` };
  }
  return { state: 'installed', dir, manifest };
}

async function digestFile(file: string, hash: Hash): Promise<string> {
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function sha256File(file: string): Promise<string> {
  return digestFile(file, createHash('sha256'));
}

/** Git's blob id (`sha1("blob <size>\0" + bytes)`): the hub's ETag for files not stored in LFS. */
export function gitBlobSha1(file: string): Promise<string> {
  return digestFile(file, createHash('sha1').update(`blob ${statSync(file).size}\0`));
}

type InstallOrigin = Pick<ModelManifest, 'revision' | 'commit' | 'source' | 'files'>;

/** Makes a verified staging folder, its manifest written first, the installed `preset` in one rename: readers see the old folder or the new one. */
export function commitInstall(root: string, staging: string, preset: ModelPreset, origin: InstallOrigin): { dir: string; manifest: ModelManifest } {
  const { revision, commit, source, files } = origin;
  const manifest: ModelManifest = {
    format: MANIFEST_FORMAT,
    preset: preset.id,
    repo: preset.repo,
    revision,
    ...(commit === undefined ? {} : { commit }),
    source,
    installedAt: new Date().toISOString(),
    files,
  };
  writeFileAtomic(path.join(staging, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  const target = path.join(root, preset.id);
  const trash = path.join(root, '.staging', `${preset.id}.old-${process.pid}-${Date.now()}`);
  let replaced = false;
  try {
    renameSync(target, trash);
    replaced = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  renameSync(staging, target);
  if (replaced) rmSync(trash, { recursive: true, force: true });
  return { dir: target, manifest };
}

/** Removes an installed model and any unfinished download of it; false when there was neither. */
export function removeModel(root: string, id: string): boolean {
  const found = [path.join(root, id), stagingDir(root, id)].filter((dir) => existsSync(dir));
  for (const dir of found) rmSync(dir, { recursive: true, force: true });
  return found.length > 0;
}

/** One pull per model at a time, across processes; a lock left by a dead process is taken over. */
export async function withInstallLock<T>(root: string, id: string, run: () => Promise<T>): Promise<T> {
  const lock = path.join(root, '.staging', `${id}.lock`);
  mkdirSync(path.dirname(lock), { recursive: true });
  for (let attempt = 0; ; attempt += 1) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const holder = Number.parseInt(readFileSync(lock, 'utf8'), 10);
      if (Number.isInteger(holder) && holder !== process.pid && processAlive(holder)) {
        throw new SkillSearchError('BAD_OPTION', `another 'skill-search model pull ${id}' is running (pid ${holder}); wait for it or stop it`);
      }
      rmSync(lock, { force: true });
    }
  }
  try {
    return await run();
  } finally {
    rmSync(lock, { force: true });
  }
}

export function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** Bytes an interrupted pull left in the staging folder (0 when there is none): the next pull resumes from them. */
export function stagedBytes(root: string, id: string): number {
  const dir = stagingDir(root, id);
  let files: string[];
  try {
    files = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return 0;
  }
  let total = 0;
  for (const file of files) {
    const stats = statSync(path.join(dir, file), { throwIfNoEntry: false });
    if (stats?.isFile()) total += stats.size;
  }
  return total;
}
