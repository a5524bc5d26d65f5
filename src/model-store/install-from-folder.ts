import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { SkillSearchError, throwIfAborted } from '../errors.js';
import type { ModelPreset } from './presets.js';
import { folderProblem, readJsonObject } from './check-folder.js';
import type { PullResult } from './pull.js';
import { commitInstall, MANIFEST_FILE, sha256File, sizeOf, stagingDir, withInstallLock, type ManifestFile, type ModelManifest } from './store.js';

export interface InstallFromFolderOptions {
  readonly root: string;
  readonly signal?: AbortSignal;
}

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
  mkdirSync(options.root, { recursive: true });
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
