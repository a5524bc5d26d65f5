import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, SKILLS, runCli, spawnCli } from '../cli/helpers.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { STORE_DEFAULTS } from '../../src/store/entry-store.js';
import { useTempDirs } from '../support/temp-dirs.js';

const temp = useTempDirs('writer-wait');
const QUERIES = ['review a pull request', 'deploy the service', 'nothing like any skill at all'];

/** Another process holding the store's write lock (a hook's or a second indexer's transaction) until told on stdin. */
const HOLDER = `
const Database = require('better-sqlite3');
const db = new Database(process.env.STORE_FILE);
db.exec('BEGIN IMMEDIATE');
process.stdout.write('held\\n');
process.stdin.once('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });
`;

async function answers(sources: readonly string[], cache: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of QUERIES) {
    const result = await runCli(['query', '--json', '--quiet', ...sources, query], cache);
    expect([result.code, result.stderr]).toEqual([0, '']);
    const { tookMs: _took, ...answer } = JSON.parse(result.stdout) as { tookMs: number };
    out.push(answer);
  }
  return out;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("an index build while another process holds the store's write lock", () => {
  it(`waits past the reader's ${STORE_DEFAULTS.busyTimeoutMs} ms for it, exits 0, and the next search equals a clean build`, async () => {
    const root = temp();
    const clean = await answers(['--skills-dir', SKILLS, '--model', 'hash', '--index-dir', path.join(root, 'clean', 'index')], path.join(root, 'clean'));

    const cache = path.join(root, 'cache');
    const indexDir = path.join(cache, 'index');
    const file = path.join(cache, 'store.sqlite');
    SqliteStore.open(file).close();
    const holder = spawn(process.execPath, ['-e', HOLDER], { cwd: ROOT, env: { ...process.env, STORE_FILE: file }, stdio: ['pipe', 'pipe', 'inherit'] });
    const holderExit = new Promise((resolve) => holder.on('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      holder.on('error', reject);
      holder.stdout.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('held') && resolve());
    });
    let finished = false;
    const build = spawnCli(['index', '--quiet', '--skills-dir', SKILLS, '--model', 'hash', '--index-dir', indexDir], cache).finally(() => (finished = true));
    try {
      // Held on until the indexer builds (its lease is taken) and well past the reader's timeout.
      const lease = `${indexDir}.builder`;
      while (!finished && !(existsSync(lease) && readdirSync(lease).some((name) => /^\d+$/.test(name)))) await sleep(20);
      await sleep(Math.max(2_000, 8 * STORE_DEFAULTS.busyTimeoutMs));
      expect(finished).toBe(false);
    } finally {
      holder.stdin.end('release\n');
      await holderExit;
    }
    const result = await build;
    expect([result.code, result.stderr]).toEqual([0, expect.not.stringContaining('locked')]);
    expect(await answers(['--skills-dir', SKILLS, '--model', 'hash', '--index-dir', indexDir], cache)).toEqual(clean);
  }, 120_000);
});
