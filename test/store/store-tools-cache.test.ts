import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize } from 'node:v8';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveIndex } from '../../src/integrations/live-index.js';
import { SkillCatalog } from '../../src/load/index.js';
import { toolsFileStat } from '../../src/load/tools-cache.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { StoreToolsCache } from '../../src/store/store-tools-cache.js';
import { removeDir, tempDir } from '../load/helpers.js';

const line = (id: string, description: string) => JSON.stringify({ id, name: `${id}-tool`, description });

/** The snapshot rows kept in the store at `file`: each one's stat size and skill ids. */
function snapshots(file: string): { size: number; ids: string[] }[] {
  const store = SqliteStore.open(file);
  try {
    const rows = store.database.prepare<[], { size: number; skills: Buffer }>('SELECT size, skills FROM tools_skills').all();
    return rows.map((row) => ({ size: row.size, ids: (deserialize(row.skills) as { skills: { id: string }[] }).skills.map((skill) => skill.id) }));
  } finally {
    store.close();
  }
}

describe('StoreToolsCache', () => {
  let dir: string;
  let tools: string;
  let storeFile: string;
  const closers: (() => Promise<void> | void)[] = [];
  beforeEach(async () => {
    dir = await tempDir();
    tools = join(dir, 'tools.jsonl');
    storeFile = join(dir, 'store.sqlite');
    await writeFile(tools, `${line('pdf', 'Extract tables from PDF files')}\n${line('csv', 'Clean CSV files')}\n`);
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    vi.restoreAllMocks();
    await removeDir(dir);
  });

  function catalogOver(cache: StoreToolsCache): SkillCatalog {
    const catalog = new SkillCatalog({ cwd: dir, toolsFiles: [tools], toolsCache: cache, claudePlugins: false, codexHome: null });
    closers.push(() => catalog.close());
    return catalog;
  }

  it('opens the store once for a first load (snapshot read, snapshot and line table written)', async () => {
    const open = vi.spyOn(SqliteStore, 'open');
    const cache = new StoreToolsCache(storeFile);
    closers.push(() => cache.close());
    expect((await catalogOver(cache).get()).skills).toHaveLength(2);
    expect(open).toHaveBeenCalledTimes(1);
    expect(snapshots(storeFile)).toEqual([{ size: toolsFileStat(tools)!.size, ids: ['pdf', 'csv'] }]);
  });

  it("holds a reload's snapshot and writes the latest one once, at close", async () => {
    const cache = new StoreToolsCache(storeFile);
    const catalog = catalogOver(cache);
    await catalog.get();
    const first = snapshots(storeFile);
    // Two edits in a row, each reloaded as a watcher does (the catalog's memo holds the last load).
    await writeFile(tools, `${line('pdf', 'Extract tables from PDF files')}\n${line('csv', 'Clean and dedupe CSV files')}\n`);
    catalog.clear();
    expect((await catalog.get()).skills[1]?.description).toBe('Clean and dedupe CSV files');
    await writeFile(tools, `${line('pdf', 'Extract tables from PDF files')}\n${line('csv', 'Clean CSV files')}\n${line('zip', 'Zip files')}\n`);
    catalog.clear();
    expect((await catalog.get()).skills).toHaveLength(3);
    expect(snapshots(storeFile)).toEqual(first);
    expect(cache.held).toBe(1);
    cache.close();
    expect(cache.held).toBe(0);
    expect(snapshots(storeFile)).toEqual([{ size: toolsFileStat(tools)!.size, ids: ['pdf', 'csv', 'zip'] }]);
    // The next process reads it rather than parsing the file.
    const next = new StoreToolsCache(storeFile);
    closers.push(() => next.close());
    const written = vi.spyOn(next, 'writeSkills');
    expect((await catalogOver(next).get()).skills.map((skill) => skill.id)).toEqual(['pdf', 'csv', 'zip']);
    expect(written).not.toHaveBeenCalled();
  });

  it("holds the first reload's snapshot of a process that started from the snapshot", async () => {
    const first = new StoreToolsCache(storeFile);
    await catalogOver(first).get();
    first.close();
    const cache = new StoreToolsCache(storeFile);
    closers.push(() => cache.close());
    const catalog = catalogOver(cache);
    const written = vi.spyOn(cache, 'writeSkills');
    expect((await catalog.get()).skills).toHaveLength(2);
    expect(written).not.toHaveBeenCalled();
    await writeFile(tools, `${line('zip', 'Zip files')}\n`);
    catalog.clear();
    expect((await catalog.get()).skills.map((skill) => skill.id)).toEqual(['zip']);
    expect(written).not.toHaveBeenCalled();
    expect(cache.held).toBe(1);
    cache.flush();
    expect(snapshots(storeFile)).toEqual([{ size: toolsFileStat(tools)!.size, ids: ['zip'] }]);
  });

  /** A cache whose catalog loaded the file, then reloaded it rewritten to one `zip` line. */
  async function reloadedOnce(): Promise<StoreToolsCache> {
    const cache = new StoreToolsCache(storeFile);
    closers.push(() => cache.close());
    const catalog = catalogOver(cache);
    await catalog.get();
    await writeFile(tools, `${line('zip', 'Zip files')}\n`);
    catalog.clear();
    await catalog.get();
    return cache;
  }

  it('a first load in the same process reads what a reload left held, not the older snapshot', async () => {
    const cache = await reloadedOnce();
    const read = cache.readSkills(keyOf(storeFile), toolsFileStat(tools)!);
    expect(read).not.toBeUndefined();
    expect((deserialize(read!) as { skills: { id: string }[] }).skills.map((skill) => skill.id)).toEqual(['zip']);
    expect(cache.held).toBe(0);
  });

  it("a live index's close writes what its watcher's reloads held", async () => {
    const live = await LiveIndex.open({ catalog: { cwd: dir, toolsFiles: [tools], claudePlugins: false, codexHome: null }, model: 'hash', store: storeFile });
    closers.push(() => live.close());
    await live.refresh();
    await writeFile(tools, `${line('zip', 'Zip files')}\n`);
    live.catalog.clear();
    expect((await live.refresh()).snapshot.skills.map((skill) => skill.id)).toEqual(['zip']);
    expect(snapshots(storeFile)[0]?.ids).toEqual(['pdf', 'csv']);
    await live.close();
    expect(snapshots(storeFile)).toEqual([{ size: toolsFileStat(tools)!.size, ids: ['zip'] }]);
  });

  it("lists the line tables of files of a size, or within a slack of it nearest first (an edited copy's candidates)", () => {
    const cache = new StoreToolsCache(storeFile);
    closers.push(() => cache.close());
    const stat = (size: number) => ({ size, mtimeMs: 1, ctimeMs: 1, ino: size });
    for (const size of [100, 96, 103, 120])
      cache.writeLines(`k${size}`, { stat: stat(size), text: Buffer.alloc(size), starts: Buffer.alloc(8), outcomes: '{}' });
    expect(cache.tablesOfSize(100).map((table) => table.key)).toEqual(['k100']);
    expect(cache.tablesOfSize(101, 5).map((table) => table.key)).toEqual(['k100', 'k103', 'k96']);
    expect(cache.tablesOfSize(101, 5)[1]).toEqual({ key: 'k103', stat: stat(103) });
  });

  it("reads a line table's text only when asked, and only while the row is the one read", () => {
    const cache = new StoreToolsCache(storeFile);
    closers.push(() => cache.close());
    const stat = (size: number) => ({ size, mtimeMs: 1, ctimeMs: 1, ino: 7 });
    cache.writeLines('k', { stat: stat(4), text: Buffer.from('a\nb\n'), starts: Buffer.alloc(12), outcomes: '{}' });
    const first = cache.readLines('k')!;
    const second = cache.readLines('k')!;
    expect(first.stat).toEqual(stat(4));
    expect(typeof first.text === 'function' && first.text()?.toString()).toBe('a\nb\n');
    // Rewritten since it was read (another load of the file): the old row's text is gone, not the new one's given.
    cache.writeLines('k', { stat: stat(6), text: Buffer.from('a\nbcd\n'), starts: Buffer.alloc(12), outcomes: '{}' });
    expect(typeof second.text === 'function' && second.text()).toBeUndefined();
  });
});

/** The one snapshot key in the store at `file`. */
function keyOf(file: string): string {
  const store = SqliteStore.open(file);
  try {
    return store.database.prepare<[], string>('SELECT key FROM tools_skills').pluck().get()!;
  } finally {
    store.close();
  }
}
