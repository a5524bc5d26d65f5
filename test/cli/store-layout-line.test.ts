/**
 * A store left by a skill-search of another layout: the first command that opens it (a hook,
 * `query`, `index`) says so in one line, once, and answers as over a new store.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SKILLS, removeDir, runCli, tempDir } from './helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

/** A cache whose store.sqlite holds one table of another layout, as `layout` records it. */
function cacheWithStore(layout: number): { cache: string; store: string } {
  const cache = tempDir();
  dirs.push(cache);
  const store = path.join(cache, 'store.sqlite');
  const db = new (createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3)(store);
  db.exec('CREATE TABLE catalogs (key TEXT PRIMARY KEY, index_dir TEXT)');
  db.pragma(`user_version = ${layout}`);
  db.close();
  return { cache, store };
}

const FLAGS = ['--skills-dir', SKILLS, '--model', 'hash'];

describe('a store of another layout', () => {
  it('query: one line naming the store and its older layout, then the answer; the next query says nothing', async () => {
    const { cache, store } = cacheWithStore(6);
    // --quiet: a build past a second (a loaded machine) would report progress on stderr too.
    const first = await runCli(['query', ...FLAGS, '--quiet', 'fill in a pdf form'], cache);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe(`skill-search: the store ${store} was of an older layout (6); it starts empty\n`);
    expect(first.stdout).toMatch(/^1\. {2}pdf-forms /);
    const again = await runCli(['query', ...FLAGS, '--quiet', 'fill in a pdf form'], cache);
    expect(again).toEqual({ ...first, stderr: '' });
  });

  it("a newer skill-search's store is neither emptied nor written: each query answers from memory and says so in one line", async () => {
    const { cache, store } = cacheWithStore(8);
    const before = readFileSync(store);
    const why = `${store} (it holds layout 8 of a newer skill-search; this one reads 7 and leaves it as it is)`;
    for (let run = 0; run < 2; run += 1) {
      const query = await runCli(['query', ...FLAGS, '--quiet', 'fill in a pdf form'], cache);
      expect(query.code).toBe(0);
      expect(query.stderr).toBe(`skill-search: could not save the index in ${why}; answered from memory\n`);
      expect(query.stdout).toMatch(/^1\. {2}pdf-forms /);
    }
    // `index` is there to save: it fails, naming why, and still leaves the store alone.
    const index = await runCli(['index', ...FLAGS, '--quiet'], cache);
    expect(index).toMatchObject({ code: 1, stderr: `skill-search: could not save the index in ${why}\n` });
    expect(readFileSync(store).equals(before)).toBe(true);
    const db = new (createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3)(store, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(8);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()).toEqual(['catalogs']);
    db.close();
  });

  it('the hook says it on stderr, still answers, and exits 0', async () => {
    const { cache, store } = cacheWithStore(5);
    const stdin = JSON.stringify({
      session_id: randomUUID(),
      transcript_path: '/dev/null',
      cwd: cache,
      hook_event_name: 'UserPromptSubmit',
      prompt: 'fill in a pdf form',
    });
    const result = await runCli(['hook', 'claude-code', ...FLAGS, '--timeout-ms', '20000'], cache, { stdin });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`skill-search: the store ${store} was of an older layout (5); it starts empty\n`);
    expect(result.stdout).toContain('pdf-forms');
  });
});

describe('a store file that is not a SQLite file', () => {
  it('query answers from memory with one line naming it and the fix, and leaves the file as it is', async () => {
    const cache = tempDir();
    dirs.push(cache);
    const store = path.join(cache, 'store.sqlite');
    writeFileSync(store, 'my notes, not a store\n'.repeat(10));
    const out = await runCli(['query', ...FLAGS, '--quiet', 'fill in a pdf form'], cache);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^1\. {2}pdf-forms /);
    expect(out.stderr).toBe(
      `skill-search: could not save the index in ${store} (${store} is not a skill-search store (not a SQLite file): left as it is; move it away or name another file); answered from memory\n`,
    );
    expect(readFileSync(store, 'utf8')).toBe('my notes, not a store\n'.repeat(10));
    expect(existsSync(`${store}.broken`)).toBe(false);
  });
});
