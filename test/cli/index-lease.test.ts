import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, SKILLS, copyFixture, removeDir, tempDir } from './helpers.js';

const cache = tempDir();
afterAll(() => removeDir(cache));

/** Loaded into the `index` process: notes every few ms whether a lease in the builder folder names it. */
const WATCHER = `import { readdirSync, readFileSync, appendFileSync } from 'node:fs';
const dir = process.env.LEASE_DIR;
const timer = setInterval(() => {
  try {
    for (const name of readdirSync(dir)) if (/^\\d+$/.test(name) && readFileSync(dir + '/' + name, 'utf8').split('\\n')[0] === String(process.pid)) appendFileSync(process.env.LEASE_LOG, 'held\\n');
  } catch {}
}, 2);
timer.unref();
`;

describe('skill-search index', () => {
  it('holds the builder lease of its index folder while it builds (a hook then starts no second builder), and gives it up after', async () => {
    const skills = copyFixture(SKILLS);
    const indexDir = path.join(cache, 'index');
    const watcher = path.join(cache, 'watcher.mjs');
    const log = path.join(cache, 'lease.log');
    writeFileSync(watcher, WATCHER);
    try {
      const code = await new Promise<number>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [
            '--import',
            'tsx',
            '--import',
            pathToFileURL(watcher).href,
            path.join(ROOT, 'src/cli/main.ts'),
            'index',
            '--quiet',
            '--skills-dir',
            skills,
            '--model',
            'hash',
            '--index-dir',
            indexDir,
          ],
          { cwd: ROOT, env: { ...process.env, HOME: cache, SKILL_SEARCH_CACHE_DIR: cache, LEASE_DIR: `${indexDir}.builder`, LEASE_LOG: log }, stdio: 'ignore' },
        );
        child.on('error', reject);
        child.on('close', (status) => resolve(status ?? -1));
      });
      expect(code).toBe(0);
      expect(existsSync(log) && readFileSync(log, 'utf8').includes('held')).toBe(true);
      // Given up: the next builder (a hook's) may claim it.
      const { BuilderLease } = await import('../../src/cli/builder-lease.js');
      const next = BuilderLease.claim(`${indexDir}.builder`, { maxAgeMs: 60_000 });
      expect(next).toBeDefined();
      next?.release();
    } finally {
      removeDir(skills);
    }
  }, 120_000);
});
