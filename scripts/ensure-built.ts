import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleCli, CLI_BUNDLE } from './bundle-cli.js';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Newest mtime under `dir` (ms). */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

const OUTPUTS = ['dist/index.js', 'dist/cli/main.js', 'dist/api/prefetch.js', CLI_BUNDLE];

function isStale(): boolean {
  const built = OUTPUTS.map((file) => path.join(ROOT, file));
  if (!built.every(existsSync)) return true;
  return Math.min(...built.map((file) => statSync(file).mtimeMs)) < newest(path.join(ROOT, 'src'));
}

/** Builds dist/ as `npm run build` does: tsc, then the CLI's one-file bundle (scripts/bundle-cli.ts). */
export function buildDist(stdio: 'ignore' | 'inherit'): void {
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio });
  bundleCli(ROOT);
}

/**
 * Bring dist/ up to date when a source is newer than the build. Test files run in parallel, so
 * one build at a time: a lock folder beside dist/ (mkdir is atomic), the others wait and re-check.
 */
export function ensureBuilt(): void {
  const lock = path.join(ROOT, '.dist-build.lock');
  for (;;) {
    if (!isStale()) return;
    try {
      mkdirSync(lock);
    } catch {
      // A lock left by a killed run: builds take well under five minutes.
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > 300_000) rmdirSync(lock);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
      continue;
    }
    try {
      if (isStale()) buildDist('ignore');
      return;
    } finally {
      rmdirSync(lock);
    }
  }
}
