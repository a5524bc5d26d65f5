import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { LiveIndex, type LiveIndexOptions } from '../../src/integrations/live-index.js';
import { SkillCatalog } from '../../src/load/catalog.js';
import { SharedStore } from '../../src/store/shared-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { Diagnostic, SearchHit } from '../../src/types.js';
import { SKILLS, copyFixture, removeDir, tempDir } from '../cli/helpers.js';
import { liveAnswers } from '../support/search-answers.js';

const dirs: string[] = [];
/** `SharedStore.members` itself, for a spy that counts the key reads of what it returns. */
const MEMBERS = SharedStore.prototype.members;
afterAll(() => dirs.forEach(removeDir));

const TOPICS = ['rotate the logs of', 'plan a budget for', 'translate subtitles of', 'benchmark the cache of', 'audit the permissions of'];
const QUERIES = ['rotate the logs of service 7', 'audit the permissions of service 4', 'fill in a pdf form', 'nothing like any skill at all'];
const tool = (id: string, description: string): string => JSON.stringify({ id, name: id, description });
/** 40 tools and a line that is no tool (a load problem naming the file). */
const TOOLS = [...Array.from({ length: 40 }, (_, i) => tool(`tool-${i}`, `${TOPICS[i % TOPICS.length]} service ${i}`)), '{"id": "broken"'].join('\n');

interface Setup {
  /** The catalog of the tools file at `file` (under the test's folder), searched with the store `store`. */
  readonly options: (file: string, store?: string) => LiveIndexOptions;
  readonly root: string;
}

function setup(): Setup {
  const root = tempDir();
  dirs.push(root);
  const home = path.join(root, 'home');
  mkdirSync(home);
  const options = (file: string, store = 'store.sqlite'): LiveIndexOptions => ({
    catalog: { cwd: root, home, toolsFiles: [path.join(root, file)], demo: 'never', claudePlugins: false },
    model: 'hash',
    indexDir: path.join(root, 'cache', `index-${file}`),
    store: path.join(root, 'cache', store),
  });
  return { options, root };
}

/** Row counts of the store's catalogs, their members and the tools files' kept loads. */
function counts(file: string): Record<string, unknown> {
  const store = SqliteStore.open(file);
  try {
    const count = (table: string): unknown => store.database.prepare(`SELECT count(*) FROM ${table}`).pluck().get();
    return { catalogs: count('catalogs'), members: count('catalog_skills'), toolsSkills: count('tools_skills'), toolsLines: count('tools_lines') };
  } finally {
    store.close();
  }
}

/** A cold search of `options` as the hook opens it: answers, load problems, what it cost and the stamps it handed on. */
async function coldAnswers(options: LiveIndexOptions): Promise<{
  answers: SearchHit[][];
  diagnostics: readonly Diagnostic[];
  assembled: unknown;
  due: string[];
  countsOpen: Record<string, unknown>;
}> {
  const due: string[] = [];
  const opened = await LiveIndex.openSnapshot({ ...options, onSnapshotDue: (stamp) => due.push(stamp) }, { assemble: true });
  if ('reason' in opened) throw new Error(opened.reason);
  try {
    const answers = await Promise.all(QUERIES.map(async (query) => [...(await opened.search(query, { k: 5 }))]));
    return { answers, diagnostics: opened.diagnostics, assembled: opened.assembled, due, countsOpen: counts(options.store!) };
  } finally {
    await opened.close();
  }
}

/** {@link coldAnswers}, with how many times the catalog was loaded whole (`SkillCatalog.get`). */
async function coldAnswersLoading(options: LiveIndexOptions): Promise<{ got: Awaited<ReturnType<typeof coldAnswers>>; loaded: number }> {
  const loads = vi.spyOn(SkillCatalog.prototype, 'get');
  try {
    const got = await coldAnswers(options);
    return { got, loaded: loads.mock.calls.length };
  } finally {
    loads.mockRestore();
  }
}

/** The answers and load problems of a clean build of `options` in a store of its own. */
async function cleanBuild(options: LiveIndexOptions): Promise<{ answers: SearchHit[][]; diagnostics: readonly Diagnostic[] }> {
  const answers = await liveAnswers(options, QUERIES);
  const live = await LiveIndex.open(options);
  try {
    const { snapshot } = await live.refresh();
    return { answers, diagnostics: snapshot.diagnostics };
  } finally {
    await live.close();
  }
}

describe('a catalog at a new path over skills a saved catalog holds', () => {
  it('a tools file copied elsewhere is answered from the saved catalog with its own paths, nothing written in the prompt; the indexer is handed the write', async () => {
    const { options, root } = setup();
    writeFileSync(path.join(root, 'a.jsonl'), TOOLS);
    await liveAnswers(options('a.jsonl'), QUERIES);
    copyFileSync(path.join(root, 'a.jsonl'), path.join(root, 'b.jsonl'));
    const before = counts(options('b.jsonl').store!);

    const got = await coldAnswers(options('b.jsonl'));
    const clean = await cleanBuild(options('b.jsonl', 'clean.sqlite'));
    expect(got.answers).toEqual(clean.answers);
    expect(got.answers.flat().length).toBeGreaterThan(0);
    expect(got.answers.flat().every((hit) => hit.skill.path.includes(path.join(root, 'b.jsonl')))).toBe(true);
    expect(got.diagnostics).toEqual(clean.diagnostics);
    expect(got.diagnostics.map((d) => d.path)).toEqual([`${path.join(root, 'b.jsonl')}:41`]);
    // Nothing written in the prompt (no catalog, no member row, no kept load of the new file): the write is handed on.
    expect(got.assembled).toBeUndefined();
    expect(got.countsOpen).toEqual(before);
    expect(counts(options('b.jsonl').store!)).toEqual(before);
    expect(got.due).toHaveLength(1);

    // What the handed-on indexer does (`skill-search index`: the live index, saved): the next cold search opens it.
    await liveAnswers(options('b.jsonl'), QUERIES);
    const saved = await LiveIndex.openSnapshot(options('b.jsonl'));
    if ('reason' in saved) throw new Error(saved.reason);
    try {
      expect(await Promise.all(QUERIES.map(async (query) => [...(await saved.search(query, { k: 5 }))]))).toEqual(clean.answers);
    } finally {
      await saved.close();
    }
  });

  it('a tools file copied elsewhere is found by its bytes, whichever catalog was saved since', async () => {
    const { options, root } = setup();
    writeFileSync(path.join(root, 'a.jsonl'), TOOLS);
    await liveAnswers(options('a.jsonl'), QUERIES);
    // Another catalog saved last: the copy's base is not the latest one.
    writeFileSync(path.join(root, 'other.jsonl'), tool('other', 'plan a budget for the garden'));
    await liveAnswers(options('other.jsonl'), QUERIES);
    copyFileSync(path.join(root, 'a.jsonl'), path.join(root, 'b.jsonl'));
    const before = counts(options('b.jsonl').store!);
    const got = await coldAnswers(options('b.jsonl'));
    const clean = await cleanBuild(options('b.jsonl', 'clean.sqlite'));
    expect(got.answers).toEqual(clean.answers);
    expect(got.diagnostics).toEqual(clean.diagnostics);
    expect(got.countsOpen).toEqual(before);
    expect(got.due).toHaveLength(1);
  });

  it('several tools files copied elsewhere (one of them swapping paths with another) are found by their bytes, whichever catalog was saved since', async () => {
    const { options, root } = setup();
    const at = (...files: string[]): LiveIndexOptions => {
      const base = options(files.join('+'));
      return { ...base, catalog: { ...base.catalog, toolsFiles: files.map((file) => path.join(root, file)) } };
    };
    const second = TOOLS.replaceAll('tool-', 'extra-').replace('service 7', 'service seven');
    writeFileSync(path.join(root, 'a.jsonl'), TOOLS);
    writeFileSync(path.join(root, 'c.jsonl'), second);
    await liveAnswers(at('a.jsonl', 'c.jsonl'), QUERIES);
    writeFileSync(path.join(root, 'other.jsonl'), tool('other', 'plan a budget for the garden'));
    await liveAnswers(options('other.jsonl'), QUERIES);
    // a.jsonl goes to b.jsonl, c.jsonl to a.jsonl.
    writeFileSync(path.join(root, 'b.jsonl'), TOOLS);
    writeFileSync(path.join(root, 'a.jsonl'), second);
    const copied = at('b.jsonl', 'a.jsonl');
    const before = counts(copied.store!);
    const got = await coldAnswers(copied);
    const clean = await cleanBuild({ ...copied, store: path.join(root, 'cache', 'clean.sqlite') });
    expect(got.answers).toEqual(clean.answers);
    expect(got.diagnostics).toEqual(clean.diagnostics);
    expect(got.diagnostics.map((d) => d.path)).toEqual([`${path.join(root, 'b.jsonl')}:41`, `${path.join(root, 'a.jsonl')}:41`]);
    expect(got.answers.flat().some((hit) => hit.skill.path.startsWith(`tools:${path.join(root, 'a.jsonl')}#extra-`))).toBe(true);
    expect(got.assembled).toBeUndefined();
    expect(got.countsOpen).toEqual(before);
    expect(got.due).toHaveLength(1);
  });

  it('without an indexer to hand it to (query, the library), the catalog is written once the search closes', async () => {
    const { options, root } = setup();
    writeFileSync(path.join(root, 'a.jsonl'), TOOLS);
    await liveAnswers(options('a.jsonl'), QUERIES);
    copyFileSync(path.join(root, 'a.jsonl'), path.join(root, 'b.jsonl'));
    const before = counts(options('b.jsonl').store!) as { catalogs: number; members: number; toolsSkills: number; toolsLines: number };

    const opened = await LiveIndex.openSnapshot(options('b.jsonl'), { assemble: true });
    if ('reason' in opened) throw new Error(opened.reason);
    const answers = await Promise.all(QUERIES.map(async (query) => [...(await opened.search(query, { k: 5 }))]));
    expect(counts(options('b.jsonl').store!)).toEqual(before);
    await opened.close();
    expect(counts(options('b.jsonl').store!)).toEqual({
      catalogs: before.catalogs + 1,
      members: before.members + 41 - 1,
      toolsSkills: before.toolsSkills + 1,
      toolsLines: before.toolsLines + 1,
    });
    const clean = await cleanBuild(options('b.jsonl', 'clean.sqlite'));
    expect(answers).toEqual(clean.answers);
    const saved = await LiveIndex.openSnapshot(options('b.jsonl'));
    if ('reason' in saved) throw new Error(saved.reason);
    try {
      expect(saved.diagnostics).toEqual(clean.diagnostics);
      expect(await Promise.all(QUERIES.map(async (query) => [...(await saved.search(query, { k: 5 }))]))).toEqual(clean.answers);
    } finally {
      await saved.close();
    }
  });

  it('a skill library copied elsewhere answers as its clean build, without writing', async () => {
    const { root } = setup();
    const home = path.join(root, 'home');
    const library = (dir: string): LiveIndexOptions => ({
      catalog: { cwd: root, home, libraryDirs: [dir], codexHome: path.join(home, '.codex'), claudePlugins: false },
      model: 'hash',
      indexDir: path.join(root, 'cache', 'index'),
      store: path.join(root, 'cache', 'store.sqlite'),
    });
    const first = copyFixture(SKILLS);
    const second = copyFixture(SKILLS);
    dirs.push(first, second);
    await liveAnswers(library(first), QUERIES);
    const before = counts(library(second).store!);
    const got = await coldAnswers(library(second));
    const clean = await cleanBuild({ ...library(second), store: path.join(root, 'cache', 'clean.sqlite') });
    expect(got.answers).toEqual(clean.answers);
    expect(got.answers.flat().some((hit) => hit.skill.path.startsWith(second))).toBe(true);
    expect(got.countsOpen).toEqual(before);
    expect(got.due).toHaveLength(1);
  });

  it("a skill library copied with one SKILL.md changed: held over the saved catalog, its member keys read once, answers a clean build's", async () => {
    const { root } = setup();
    const home = path.join(root, 'home');
    const library = (dir: string, store = 'store.sqlite'): LiveIndexOptions => ({
      catalog: { cwd: root, home, libraryDirs: [dir], codexHome: path.join(home, '.codex'), claudePlugins: false },
      model: 'hash',
      indexDir: path.join(root, 'cache', 'index'),
      store: path.join(root, 'cache', store),
    });
    const first = copyFixture(SKILLS);
    const second = copyFixture(SKILLS);
    dirs.push(first, second);
    await liveAnswers(library(first), QUERIES);
    const file = path.join(second, 'pdf-forms', 'SKILL.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/description: .*/, 'description: Rotate the logs of service 7 and fill in its pdf form'));
    const before = counts(library(second).store!);
    // Every read of a saved catalog's member keys (24k rows at 24k skills).
    let keyReads = 0;
    const members = vi.spyOn(SharedStore.prototype, 'members').mockImplementation(function (this: SharedStore, ...args) {
      const read = MEMBERS.apply(this, args);
      return {
        ...read,
        keys: () => {
          keyReads += 1;
          return read.keys();
        },
      };
    });
    let got: Awaited<ReturnType<typeof coldAnswers>>;
    try {
      got = await coldAnswers(library(second));
    } finally {
      members.mockRestore();
    }
    expect(keyReads).toBe(1);
    expect(got.assembled).toBeUndefined();
    expect(got.countsOpen).toEqual(before);
    expect(got.due).toHaveLength(1);
    const clean = await cleanBuild(library(second, 'clean.sqlite'));
    expect(got.answers).toEqual(clean.answers);
    expect(got.answers[0]![0]?.skill).toMatchObject({ name: 'pdf-forms' });
    expect(got.answers.flat().every((hit) => hit.skill.path.startsWith(second))).toBe(true);
  });

  it("a copy with three lines edited, one renaming its tool (the id kept): told against the line table it was copied from, not loaded whole; nothing written in the prompt, the write handed on; answers and problems a clean build's", async () => {
    const { options, root } = setup();
    writeFileSync(path.join(root, 'a.jsonl'), TOOLS);
    await liveAnswers(options('a.jsonl'), QUERIES);
    const edited = readFileSync(path.join(root, 'a.jsonl'), 'utf8')
      .replace('rotate the logs of service 0', 'fill in a pdf form')
      .replace('"audit the permissions of service 4"', '"audit the permissions of service 4 and rotate its keys"')
      .replace('"name":"tool-7"', '"name":"tool-seven"');
    expect(edited).toContain('tool-seven');
    writeFileSync(path.join(root, 'b.jsonl'), edited);
    const before = counts(options('b.jsonl').store!);
    const { got, loaded } = await coldAnswersLoading(options('b.jsonl'));
    expect(loaded).toBe(0);
    expect(got.assembled).toBeUndefined();
    expect(got.countsOpen).toEqual(before);
    expect(counts(options('b.jsonl').store!)).toEqual(before);
    expect(got.due).toHaveLength(1);
    const clean = await cleanBuild(options('b.jsonl', 'clean.sqlite'));
    expect(got.answers).toEqual(clean.answers);
    expect(got.diagnostics).toEqual(clean.diagnostics);
    expect(got.diagnostics.map((d) => d.path)).toEqual([`${path.join(root, 'b.jsonl')}:41`]);
    expect(got.answers[2]![0]?.skill).toMatchObject({ id: 'tool-0', path: `tools:${path.join(root, 'b.jsonl')}#tool-0` });
    expect(got.answers.flat().every((hit) => hit.skill.path.startsWith(`tools:${path.join(root, 'b.jsonl')}#`))).toBe(true);
  });

  it('a copy with more than half its lines edited (its size kept) is loaded whole, not told against the table, and answers as a clean build', async () => {
    const { options, root } = setup();
    writeFileSync(path.join(root, 'a.jsonl'), TOOLS);
    await liveAnswers(options('a.jsonl'), QUERIES);
    writeFileSync(path.join(root, 'b.jsonl'), readFileSync(path.join(root, 'a.jsonl'), 'utf8').replace(/service (\d*[0-5])"/g, 'Service $1"'));
    const { got, loaded } = await coldAnswersLoading(options('b.jsonl'));
    expect(loaded).toBeGreaterThan(0);
    expect(got.answers).toEqual((await cleanBuild(options('b.jsonl', 'clean.sqlite'))).answers);
  });

  it('a copy with one description changed, without an indexer to hand it to: written once the search closes, as a clean build', async () => {
    const { options, root } = setup();
    writeFileSync(path.join(root, 'a.jsonl'), TOOLS);
    await liveAnswers(options('a.jsonl'), QUERIES);
    writeFileSync(path.join(root, 'b.jsonl'), readFileSync(path.join(root, 'a.jsonl'), 'utf8').replace('rotate the logs of service 0', 'fill in a pdf form'));
    const before = counts(options('b.jsonl').store!) as { catalogs: number };
    const opened = await LiveIndex.openSnapshot(options('b.jsonl'), { assemble: true });
    if ('reason' in opened) throw new Error(opened.reason);
    expect(opened.assembled).toBeUndefined();
    await opened.close();
    expect(counts(options('b.jsonl').store!)).toMatchObject({ catalogs: before.catalogs + 1 });
    const saved = await LiveIndex.openSnapshot(options('b.jsonl'));
    if ('reason' in saved) throw new Error(saved.reason);
    try {
      const answers = await Promise.all(QUERIES.map(async (query) => [...(await saved.search(query, { k: 5 }))]));
      expect(answers).toEqual((await cleanBuild(options('b.jsonl', 'clean.sqlite'))).answers);
    } finally {
      await saved.close();
    }
  });

  it('a skill folder edited in place is held over the saved catalog (nothing moved), its write handed on; it answers as a clean build', async () => {
    const { root } = setup();
    const skills = copyFixture(SKILLS);
    dirs.push(skills);
    const home = path.join(root, 'home');
    const library: LiveIndexOptions = {
      catalog: { cwd: root, home, skillsDirs: [skills], demo: 'never', claudePlugins: false },
      model: 'hash',
      indexDir: path.join(root, 'cache', 'index'),
      store: path.join(root, 'cache', 'store.sqlite'),
    };
    await liveAnswers(library, QUERIES);
    const file = path.join(skills, 'pdf-forms', 'SKILL.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/description: .*/, 'description: Fill in the fields of a PDF form, then sign it'));
    const got = await coldAnswers(library);
    expect(got.assembled).toBeUndefined();
    expect(got.due).toHaveLength(1);
    const clean = await cleanBuild({ ...library, store: path.join(root, 'cache', 'clean.sqlite') });
    expect(got.answers).toEqual(clean.answers);
    expect(got.diagnostics).toEqual(clean.diagnostics);
  });
});
