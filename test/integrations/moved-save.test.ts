import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { LiveIndex, type LiveIndexOptions } from '../../src/integrations/live-index.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { Diagnostic, SearchHit } from '../../src/types.js';
import { SKILLS, copyFixture, removeDir, tempDir } from '../cli/helpers.js';
import { liveAnswers } from '../support/search-answers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));
afterEach(() => vi.useRealTimers());

const TOPICS = ['rotate the logs of', 'plan a budget for', 'translate subtitles of', 'benchmark the cache of', 'audit the permissions of'];
const QUERIES = ['rotate the logs of service 7', 'audit the permissions of service 4', 'fill in a pdf form', 'nothing like any skill at all'];
const tool = (id: string, description: string): string => JSON.stringify({ id, name: id, description });
/** 40 tools and a line that is no tool (a load problem naming the file). */
const TOOLS = [...Array.from({ length: 40 }, (_, i) => tool(`tool-${i}`, `${TOPICS[i % TOPICS.length]} service ${i}`)), '{"id": "broken"'].join('\n');

function setup(): { root: string; options: (file: string, store?: string) => LiveIndexOptions; library: (dir: string, store?: string) => LiveIndexOptions } {
  const root = tempDir();
  dirs.push(root);
  const home = path.join(root, 'home');
  mkdirSync(home);
  return {
    root,
    options: (file, store = 'store.sqlite') => ({
      catalog: { cwd: root, home, toolsFiles: [path.join(root, file)], demo: 'never', claudePlugins: false },
      model: 'hash',
      indexDir: path.join(root, 'cache', `index-${file}`),
      store: path.join(root, 'cache', store),
    }),
    library: (dir, store = 'store.sqlite') => ({
      catalog: { cwd: root, home, libraryDirs: [dir], codexHome: path.join(home, '.codex'), claudePlugins: false },
      model: 'hash',
      indexDir: path.join(root, 'cache', 'index'),
      store: path.join(root, 'cache', store),
    }),
  };
}

/** Row counts of the store's catalogs, members, lexical entries and the tools files' kept loads. */
function counts(file: string): { catalogs: number; members: number; entries: number; toolsSkills: number; toolsLines: number } {
  const store = SqliteStore.open(file);
  try {
    const count = (table: string): number => store.database.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
    return {
      catalogs: count('catalogs'),
      members: count('catalog_skills'),
      entries: count('lexical_entries'),
      toolsSkills: count('tools_skills'),
      toolsLines: count('tools_lines'),
    };
  } finally {
    store.close();
  }
}

/** The saved catalog's answers and load problems (it must be saved). */
async function savedAnswers(options: LiveIndexOptions): Promise<{ answers: SearchHit[][]; diagnostics: readonly Diagnostic[] }> {
  const saved = await LiveIndex.openSnapshot(options);
  if ('reason' in saved) throw new Error(saved.reason);
  try {
    return { answers: await Promise.all(QUERIES.map(async (query) => [...(await saved.search(query, { k: 5 }))])), diagnostics: saved.diagnostics };
  } finally {
    await saved.close();
  }
}

/** `saveMoved` of `options` saves nothing: no catalog or member written, left to the sync. */
async function expectNothingMoved(options: LiveIndexOptions): Promise<void> {
  const before = counts(options.store!);
  const live = await LiveIndex.open(options);
  try {
    expect(await live.saveMoved()).toBeUndefined();
  } finally {
    await live.close();
  }
  expect(counts(options.store!)).toMatchObject({ catalogs: before.catalogs, members: before.members });
}

/** A clean build's answers and load problems, in a store of its own. */
async function clean(options: LiveIndexOptions): Promise<{ answers: SearchHit[][]; diagnostics: readonly Diagnostic[] }> {
  await liveAnswers(options, QUERIES);
  return savedAnswers(options);
}

describe('the indexer of a catalog at a new path (LiveIndex.saveMoved, what `index` tries after saveDelta)', () => {
  it('a copied tools file: written from the saved catalog, nothing synced, embedded or tokenised; its line table kept, so its next edit is saved from lines', async () => {
    const { options, root } = setup();
    writeFileSync(path.join(root, 'a.jsonl'), TOOLS);
    await liveAnswers(options('a.jsonl'), QUERIES);
    copyFileSync(path.join(root, 'a.jsonl'), path.join(root, 'b.jsonl'));
    const before = counts(options('b.jsonl').store!);

    const live = await LiveIndex.open(options('b.jsonl'));
    try {
      const saved = await live.saveMoved();
      expect(saved).toMatchObject({ skills: 40 });
      expect(saved?.diagnostics.map((d) => d.path)).toEqual([`${path.join(root, 'b.jsonl')}:41`]);
      expect(live.engine.size).toBe(0);
    } finally {
      await live.close();
    }
    expect(counts(options('b.jsonl').store!)).toEqual({
      ...before,
      catalogs: before.catalogs + 1,
      members: before.members + 40,
      toolsLines: before.toolsLines + 1,
    });
    const expected = await clean(options('b.jsonl', 'clean.sqlite'));
    expect(await savedAnswers(options('b.jsonl'))).toEqual(expected);
    expect(expected.answers.flat().every((hit) => hit.skill.path.includes(path.join(root, 'b.jsonl')))).toBe(true);

    // The kept table: an edit of the copy is saved from its changed lines, and answers as a clean build.
    writeFileSync(path.join(root, 'b.jsonl'), readFileSync(path.join(root, 'b.jsonl'), 'utf8').replace('rotate the logs of service 0', 'fill in a pdf form'));
    expect(await LiveIndex.saveDelta(options('b.jsonl'))).toMatchObject({ updated: 1, embedded: 1 });
    expect(await savedAnswers(options('b.jsonl'))).toEqual(await clean(options('b.jsonl', 'clean2.sqlite')));
  });

  it('two copied tools files: written from the saved catalog, nothing synced; both line tables kept', async () => {
    const { options, root } = setup();
    const at = (...files: string[]): LiveIndexOptions => {
      const base = options(files.join('+'));
      return { ...base, catalog: { ...base.catalog, toolsFiles: files.map((file) => path.join(root, file)) } };
    };
    const second = TOOLS.replaceAll('tool-', 'extra-');
    writeFileSync(path.join(root, 'a.jsonl'), TOOLS);
    writeFileSync(path.join(root, 'c.jsonl'), second);
    await liveAnswers(at('a.jsonl', 'c.jsonl'), QUERIES);
    copyFileSync(path.join(root, 'a.jsonl'), path.join(root, 'b.jsonl'));
    copyFileSync(path.join(root, 'c.jsonl'), path.join(root, 'd.jsonl'));
    const copied = at('b.jsonl', 'd.jsonl');
    const before = counts(copied.store!);
    const live = await LiveIndex.open(copied);
    try {
      const saved = await live.saveMoved();
      expect(saved).toMatchObject({ skills: 80 });
      expect(saved?.diagnostics.map((d) => d.path)).toEqual([`${path.join(root, 'b.jsonl')}:41`, `${path.join(root, 'd.jsonl')}:41`]);
      expect(live.engine.size).toBe(0);
    } finally {
      await live.close();
    }
    expect(counts(copied.store!)).toEqual({ ...before, catalogs: before.catalogs + 1, members: before.members + 80, toolsLines: before.toolsLines + 2 });
    expect(await savedAnswers(copied)).toEqual(await clean({ ...copied, store: path.join(root, 'cache', 'clean.sqlite') }));
  });

  it('a copied skill library: found by its keys, written from the saved catalog with its own records, nothing synced', async () => {
    const { library } = setup();
    const first = copyFixture(SKILLS);
    const second = copyFixture(SKILLS);
    dirs.push(first, second);
    await liveAnswers(library(first), QUERIES);
    const before = counts(library(second).store!);
    const live = await LiveIndex.open(library(second));
    try {
      expect(await live.saveMoved()).toBeDefined();
      expect(live.engine.size).toBe(0);
    } finally {
      await live.close();
    }
    const after = counts(library(second).store!);
    expect([after.catalogs, after.entries]).toEqual([before.catalogs + 1, before.entries]);
    const got = await savedAnswers(library(second));
    expect(got).toEqual(await clean(library(second, 'clean.sqlite')));
    expect(got.answers.flat().some((hit) => hit.skill.path.startsWith(second))).toBe(true);
  });

  it('a copy with an edit whose entries the store holds (another catalog has them): nothing written from the saved catalog, left to the sync', async () => {
    const { options, root } = setup();
    const edited = TOOLS.replace('rotate the logs of service 0', 'fill in a pdf form');
    writeFileSync(path.join(root, 'c.jsonl'), edited);
    await liveAnswers(options('c.jsonl'), QUERIES);
    writeFileSync(path.join(root, 'a.jsonl'), TOOLS);
    await liveAnswers(options('a.jsonl'), QUERIES);
    // The same skills as c.jsonl, other bytes: not found as its copy, compared with a.jsonl's catalog (saved last).
    writeFileSync(path.join(root, 'b.jsonl'), edited.replace('{"id":"tool-3",', '{"id": "tool-3",'));
    await expectNothingMoved(options('b.jsonl'));
  });

  it('a catalog no saved one holds at another path: nothing written, left to the sync', async () => {
    const { options, root } = setup();
    writeFileSync(path.join(root, 'a.jsonl'), TOOLS);
    await liveAnswers(options('a.jsonl'), QUERIES);
    writeFileSync(path.join(root, 'b.jsonl'), TOOLS.replace('rotate the logs of service 0', 'fill in a pdf form'));
    await expectNothingMoved(options('b.jsonl'));
  });
});

describe('the quick indexers collect the store as a whole `index` does', () => {
  it('saving from changed lines (saveDelta) collects a catalog unused for 30 days', async () => {
    const { options, root } = setup();
    vi.useFakeTimers({ toFake: ['Date'] });
    const day = (n: number) => vi.setSystemTime(new Date(Date.UTC(2026, 0, 1 + n, 12)));
    const catalogs = (): number => counts(options('a.jsonl').store!).catalogs;
    day(0);
    writeFileSync(path.join(root, 'old.jsonl'), tool('old', 'plan a budget for the garden'));
    await liveAnswers(options('old.jsonl'), QUERIES);
    day(40);
    writeFileSync(path.join(root, 'a.jsonl'), TOOLS);
    await liveAnswers(options('a.jsonl'), QUERIES);
    expect(catalogs()).toBe(2);
    writeFileSync(path.join(root, 'a.jsonl'), TOOLS.replace('rotate the logs of service 0', 'fill in a pdf form'));
    expect(await LiveIndex.saveDelta(options('a.jsonl'))).toMatchObject({ updated: 1 });
    // The old one went; the base and the edit's overlay stay.
    expect(catalogs()).toBe(2);
  });
});
