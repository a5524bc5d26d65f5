import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionState, sessionsDir } from '../../src/integrations/session-state.js';
import { UsageStore, usageFileFor } from '../../src/usage/usage-store.js';
import { writeFileAtomic, writeFileAtomicAsync } from '../../src/vector-index/atomic-file.js';
import { removeDir, tempDir } from '../cli/helpers.js';

// Counts the flushes to disk while the module under test still writes through the real calls.
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return { ...real, fsyncSync: vi.fn(real.fsyncSync) };
});
const fsync = vi.mocked(fs.fsyncSync);

let root: string;
beforeEach(() => {
  root = tempDir('skill-search-atomic-');
  fsync.mockClear();
});
afterEach(() => removeDir(root));

const leftovers = (dir: string) => fs.readdirSync(dir).filter((name) => name.endsWith('.tmp'));

describe('writeFileAtomic', () => {
  it('flushes the file and (on POSIX) its folder by default', () => {
    const file = path.join(root, 'index.bin');
    writeFileAtomic(file, 'one');
    writeFileAtomic(file, 'two');
    expect(fs.readFileSync(file, 'utf8')).toBe('two');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fsync).toHaveBeenCalledTimes(process.platform === 'win32' ? 2 : 4);
    expect(leftovers(root)).toEqual([]);
  });

  it('without `durable` replaces the file the same way, with no flush', () => {
    const file = path.join(root, 'memory.json');
    writeFileAtomic(file, 'one', { durable: false });
    writeFileAtomic(file, 'two', { durable: false });
    expect(fs.readFileSync(file, 'utf8')).toBe('two');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fsync).not.toHaveBeenCalled();
    expect(leftovers(root)).toEqual([]);
  });
});

describe('writeFileAtomicAsync', () => {
  it('replaces the file as writeFileAtomic does, without blocking the event loop', async () => {
    const file = path.join(root, 'graph.data');
    await writeFileAtomicAsync(file, 'one');
    let turned = false;
    setImmediate(() => (turned = true));
    await writeFileAtomicAsync(file, new Uint8Array(4 * 1024 * 1024).fill(7));
    expect(turned).toBe(true);
    expect(fs.readFileSync(file).equals(Buffer.alloc(4 * 1024 * 1024, 7))).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(leftovers(root)).toEqual([]);
  });

  it('leaves no temp file when the process exits in the middle of a write', () => {
    const module = path.resolve('src/vector-index/atomic-file.ts');
    // Exits as soon as the temp file exists, the write still under way.
    const script = `
      const { readdirSync } = require('node:fs');
      import(${JSON.stringify(module)}).then(({ writeFileAtomicAsync }) => {
        void writeFileAtomicAsync(${JSON.stringify(path.join(root, 'big.data'))}, new Uint8Array(256 * 1024 * 1024));
        const poll = () => (readdirSync(${JSON.stringify(root)}).some((n) => n.endsWith('.tmp')) ? process.exit(0) : setImmediate(poll));
        poll();
      });`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(fs.existsSync(path.join(root, 'big.data'))).toBe(false);
    expect(leftovers(root)).toEqual([]);
  });
});

describe('what a hook writes on every prompt is not flushed (its loss only forgets)', () => {
  it("a session's memory", () => {
    const state = SessionState.open('session-1', { transcript: '/t.jsonl', compactions: 0 }, { dir: sessionsDir(root) });
    state.remember(['pdf-forms']);
    expect(state.save()).toBeUndefined();
    expect(fsync).not.toHaveBeenCalled();
    expect([...SessionState.open('session-1', { transcript: '/t.jsonl', compactions: 0 }, { dir: sessionsDir(root) }).announced]).toEqual(['pdf-forms']);
  });

  it("a project's usage counts", () => {
    const store = UsageStore.open(root, '/work/project');
    store.recordSuggested('s1', ['pdf']);
    expect(store.save()).toBeUndefined();
    expect(fsync).not.toHaveBeenCalled();
    expect(fs.existsSync(usageFileFor(root, '/work/project'))).toBe(true);
    expect(
      UsageStore.open(root, '/work/project')
        .entries()
        .map(([name]) => name),
    ).toEqual(['pdf']);
  });
});
