import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SkillSocketClient } from '../../src/integrations/socket-client.js';
import { STORE_DEFAULTS } from '../../src/store/entry-store.js';
import { ROOT, SKILLS, copyFixture, removeDir, tempDir } from './helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Another process holding the store's write lock (a hook's or an indexer's transaction) until told on stdin. */
const HOLDER = `
const Database = require('better-sqlite3');
const db = new Database(process.env.STORE_FILE);
db.exec('BEGIN IMMEDIATE');
process.stdout.write('held\\n');
process.stdin.once('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });
`;

/** Resolves with the text `child` wrote to `stream` once `test` holds for it. */
function until(child: ChildProcessWithoutNullStreams, stream: 'stdout' | 'stderr', test: (text: string) => boolean, limitMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`not seen within ${limitMs} ms: ${text}`)), limitMs);
    const onData = (chunk: string) => {
      text += chunk;
      if (!test(text)) return;
      clearTimeout(timer);
      child[stream].off('data', onData);
      resolve(text);
    };
    child[stream].setEncoding('utf8').on('data', onData);
  });
}

function storedVectors(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM vectors').pluck().get() as number;
  } finally {
    db.close();
  }
}

describe("a watch server whose save waits for another process's write", () => {
  it('answers searches on its socket meanwhile, and saves once the lock is free', async () => {
    const cache = tempDir();
    const skills = copyFixture(SKILLS);
    dirs.push(cache, skills);
    const env = { ...process.env, HOME: cache, SKILL_SEARCH_CACHE_DIR: cache, EXPERIMENTAL_SKILL_SEARCH: '' };
    const watch = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'watch', '--skills-dir', skills, '--model', 'hash'], {
      cwd: ROOT,
      env,
    });
    const watchExit = new Promise<number | null>((resolve) => watch.on('exit', resolve));
    const reindexed = until(watch, 'stdout', (t) => /reindexed: \+1 ~0 -0/.test(t), 120_000);
    let holder: ChildProcessWithoutNullStreams | undefined;
    try {
      const stderr = await until(watch, 'stderr', (t) => t.includes('watching for skill changes'));
      const where = /^serving searches on (.+)$/m.exec(stderr)![1]!;
      const file = path.join(cache, STORE_DEFAULTS.file);
      expect(storedVectors(file)).toBe(6);

      holder = spawn(process.execPath, ['-e', HOLDER], { cwd: ROOT, env: { ...process.env, STORE_FILE: file } });
      await until(holder, 'stdout', (t) => t.includes('held'));
      mkdirSync(path.join(skills, 'tea-brewing'));
      writeFileSync(path.join(skills, 'tea-brewing', 'SKILL.md'), '---\ndescription: Brew loose-leaf tea\n---\nSteep.\n');
      let done = false;
      void reindexed.then(() => (done = true));

      // Past the watcher's settling, the reindex waits for the lock: every search meanwhile is answered.
      const answered: number[] = [];
      const heldUntil = performance.now() + 5_000;
      while (performance.now() < heldUntil) {
        const client = await SkillSocketClient.connect(where, { connectTimeoutMs: 1_000, requestTimeoutMs: 1_000 });
        try {
          const { hits } = await client.search('fill in the fields of a PDF form');
          answered.push(hits.length);
          expect(hits[0]?.skill.name).toBe('pdf-forms');
        } finally {
          client.close();
        }
        await sleep(100);
      }
      expect(answered.length).toBeGreaterThan(10);
      expect(done).toBe(false);
      expect(storedVectors(file)).toBe(6);

      holder.stdin.end('release\n');
      await reindexed;
      // The new skill's vector is saved, and the server answers with it.
      expect(storedVectors(file)).toBe(7);
      const client = await SkillSocketClient.connect(where, { connectTimeoutMs: 1_000, requestTimeoutMs: 1_000 });
      try {
        expect((await client.search('brew loose-leaf tea')).hits[0]?.skill.name).toBe('tea-brewing');
      } finally {
        client.close();
      }
    } finally {
      holder?.stdin.end('release\n');
      watch.kill('SIGINT');
      await watchExit;
    }
  }, 180_000);
});
