import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { STORE_DEFAULTS } from '../../src/store/entry-store.js';
import { LiveIndex, type LiveIndexOptions } from '../../src/integrations/live-index.js';
import { SKILLS } from '../cli/helpers.js';
import { useTempDirs } from '../support/temp-dirs.js';

const temp = useTempDirs('async-writer');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const HOLD_MS = 4 * STORE_DEFAULTS.busyTimeoutMs;

/** Another connection holding the write lock, as another process's write does; `release` commits it. */
function holdLock(file: string): { release: () => void } {
  const other = new Database(file);
  other.exec('BEGIN IMMEDIATE');
  return {
    release: () => {
      other.exec('COMMIT');
      other.close();
    },
  };
}

const VECTOR = new Map([['k', new Float32Array([1, 0])]]);

describe("an 'async' writer's write while the store's write lock is held", () => {
  it('waits without holding the thread, and writes once the lock is free', async () => {
    const file = path.join(temp(), 'store.sqlite');
    const store = SqliteStore.open(file, { writer: 'async' });
    const lock = holdLock(file);
    const started = performance.now();
    let ticks = 0;
    const ticking = setInterval(() => (ticks += 1), 20);
    const released = sleep(HOLD_MS).then(() => lock.release());
    try {
      expect(await store.whenFree(() => (store.putVectors('m', VECTOR), 'written'))).toBe('written');
    } finally {
      clearInterval(ticking);
      await released;
    }
    // It waited for the lock (past a reader's busy timeout), and timers ran meanwhile.
    expect(performance.now() - started).toBeGreaterThanOrEqual(HOLD_MS - 5);
    expect(ticks).toBeGreaterThanOrEqual(HOLD_MS / 20 / 2);
    expect([...store.vectors('m', 2, ['k']).keys()]).toEqual(['k']);
    store.close();
  });

  it("stops waiting once its signal aborts: the write then finds the store busy and skips, as a reader's does", async () => {
    const file = path.join(temp(), 'store.sqlite');
    const store = SqliteStore.open(file, { writer: 'async' });
    const lock = holdLock(file);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    try {
      await store.whenFree(() => store.putVectors('m', VECTOR), { signal: controller.signal });
    } finally {
      lock.release();
    }
    expect(store.vectors('m', 2, ['k']).size).toBe(0);
    store.close();
  });

  it('a write that throws rolls its transaction back and frees the lock', async () => {
    const file = path.join(temp(), 'store.sqlite');
    const store = SqliteStore.open(file, { writer: 'async' });
    await expect(
      store.whenFree(() => {
        store.putVectors('m', VECTOR);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(store.vectors('m', 2, ['k']).size).toBe(0);
    const lock = holdLock(file);
    lock.release();
    store.close();
  });
});

describe("a library LiveIndex's save while another connection holds the write lock", () => {
  it('close waits for it without holding the thread, then saves the catalog', async () => {
    const root = temp();
    const file = path.join(root, 'cache', 'store.sqlite');
    const options: LiveIndexOptions = {
      catalog: { cwd: root, home: root, skillsDirs: [SKILLS], demo: 'never', claudePlugins: false },
      model: 'hash',
      indexDir: path.join(root, 'cache', 'index'),
      store: file,
    };
    const live = await LiveIndex.open(options);
    await live.refresh();
    const lock = holdLock(file);
    let ticks = 0;
    const ticking = setInterval(() => (ticks += 1), 20);
    const released = sleep(HOLD_MS).then(() => lock.release());
    try {
      await live.close();
    } finally {
      clearInterval(ticking);
      await released;
    }
    expect(ticks).toBeGreaterThanOrEqual(HOLD_MS / 20 / 2);
    const opened = await LiveIndex.openSnapshot(options);
    expect('reason' in opened ? opened.reason : 'saved').toBe('saved');
    if (!('reason' in opened)) await opened.close();
  });
});

describe("a library LiveIndex's search while its sync waits for another connection's write lock", () => {
  it('answers from the catalog it synced last, then with the change once the lock is free', async () => {
    const root = temp();
    const skills = path.join(root, 'skills');
    cpSync(SKILLS, skills, { recursive: true });
    const file = path.join(root, 'cache', 'store.sqlite');
    const live = await LiveIndex.open({
      catalog: { cwd: root, home: root, skillsDirs: [skills], demo: 'never', claudePlugins: false },
      model: 'hash',
      indexDir: path.join(root, 'cache', 'index'),
      store: file,
    });
    const names = async (query: string) => (await live.search(query)).map((hit) => hit.skill.name);
    try {
      expect(await names('fill in a pdf form')).toContain('pdf-forms');
      mkdirSync(path.join(skills, 'tea-brewing'));
      writeFileSync(path.join(skills, 'tea-brewing', 'SKILL.md'), '---\ndescription: Brew loose-leaf tea\n---\nSteep.\n');
      live.catalog.clear();
      const lock = holdLock(file);
      try {
        // Answered while the lock is held: the new skill's vector cannot be stored yet.
        expect(await names('brew loose-leaf tea')).not.toContain('tea-brewing');
        expect(live.engine.size).toBe(6);
      } finally {
        lock.release();
      }
      await live.engine.idle();
      expect(await names('brew loose-leaf tea')).toContain('tea-brewing');
    } finally {
      await live.close();
    }
  });
});
