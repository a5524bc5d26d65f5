/**
 * A `watch` started before an upgrade would answer hooks with the old code: when its package's
 * package.json is replaced (npm writes every file anew) it stops with one line, and its socket goes.
 * Run from a copy of the built package, so the test can replace that copy's package.json.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../scripts/ensure-built.js';
import { ROOT, SKILLS, removeDir, tempDir } from './helpers.js';

const home = tempDir('skill-search-watch-reinstall-');
afterAll(() => removeDir(home));

describe('watch when its package is replaced under it', () => {
  it.each([
    ['package.json', 'an upgrade from a tarball (npm writes every file anew)'],
    ['dist/cli/bundle.cjs', 'a linked clone rebuilt (`npm install -g .` runs the build)'],
  ])(
    'stops with one line naming %s, and takes its socket away: %s',
    async (replaced) => {
      ensureBuilt();
      const pkg = path.join(home, `pkg-${path.basename(replaced)}`);
      for (const part of ['bin', 'dist', 'package.json']) cpSync(path.join(ROOT, part), path.join(pkg, part), { recursive: true });
      symlinkSync(path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'));
      const project = path.join(home, `project-${path.basename(replaced)}`);
      mkdirSync(project);
      const child = spawn(process.execPath, [path.join(pkg, 'bin', 'skill-search.js'), 'watch', '--model', 'hash', '--skills-dir', SKILLS], {
        cwd: project,
        env: { PATH: process.env.PATH, HOME: project, SKILL_SEARCH_CACHE_DIR: path.join(project, 'cache') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.stdout.resume();
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      try {
        const deadline = Date.now() + 30_000;
        while (!stderr.includes('watching for skill changes') && child.exitCode === null && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 100));
        const socket = /^serving searches on (.+)$/m.exec(stderr)?.[1];
        expect(socket, stderr).toBeDefined();
        expect(existsSync(socket!)).toBe(true);
        // As npm and the build leave it: the old file removed, a new one written in its place.
        const file = path.join(pkg, replaced);
        const text = readFileSync(file, 'utf8');
        rmSync(file);
        writeFileSync(file, text);
        const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 15_000))]);
        expect(code, stderr).toBe(0);
        expect(stderr).toContain(
          `skill-search: ${file} changed (skill-search was upgraded, rebuilt or reinstalled); stopped: start \`skill-search watch\` again`,
        );
        expect(existsSync(socket!)).toBe(false);
      } finally {
        child.kill('SIGKILL');
      }
    },
    60_000,
  );
});
