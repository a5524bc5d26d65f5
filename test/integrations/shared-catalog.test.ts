import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LiveIndex, type LiveIndexOptions } from '../../src/integrations/live-index.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { SearchHit } from '../../src/types.js';
import { SKILLS, copyFixture, removeDir, tempDir } from '../cli/helpers.js';
import { assembledAnswers, liveAnswers as liveAnswersOf } from '../support/search-answers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

const QUERIES = [
  'resize images for the web',
  'fill in a pdf form',
  'convert currencies',
  'flaky tests',
  'nothing like any skill at all',
  'transcribe handwritten meeting minutes',
];

/** A skill library, a home, and one cache root (its store) shared by the project folders made with `project`. */
function setup(): { library: string; project: (name: string, store?: boolean) => LiveIndexOptions } {
  const library = copyFixture(SKILLS);
  const root = tempDir();
  dirs.push(library, root);
  const home = path.join(root, 'home');
  mkdirSync(home);
  const project = (name: string, store = true): LiveIndexOptions => {
    const cwd = path.join(root, name);
    mkdirSync(cwd, { recursive: true });
    return {
      catalog: { cwd, home, libraryDirs: [library], codexHome: path.join(home, '.codex'), claudePlugins: false },
      model: 'hash',
      indexDir: path.join(root, 'cache', `index-${name}`),
      ...(store ? { store: path.join(root, 'cache', 'store.sqlite') } : {}),
    };
  };
  return { library, project };
}

const liveAnswers = (options: LiveIndexOptions): Promise<SearchHit[][]> => liveAnswersOf(options, QUERIES);

/** The answers of the saved catalog `options` opens, or why there is none. */
async function snapshotAnswers(options: LiveIndexOptions): Promise<{ answers: SearchHit[][] } | string> {
  const opened = await LiveIndex.openSnapshot(options);
  if ('reason' in opened) return opened.reason;
  try {
    return { answers: await Promise.all(QUERIES.map(async (query) => [...(await opened.search(query, { k: 5 }))])) };
  } finally {
    await opened.close();
  }
}

describe('a new project folder over a catalog indexed before', () => {
  it('opens the catalog the other folder saved in the shared store and answers as its live index', async () => {
    const { project } = setup();
    const a = project('a');
    const expected = await liveAnswers(a);
    const b = project('b');
    const got = await snapshotAnswers(b);
    expect(got).toEqual({ answers: expected });
    expect(expected.flat().length).toBeGreaterThan(0);
    // One catalog for both folders.
    const store = SqliteStore.open(a.store!);
    expect(store.database.prepare('SELECT count(*) FROM catalogs').pluck().get()).toBe(1);
    store.close();
  });

  it('with a store of its own (in its index folder), the new folder has no saved catalog to open', async () => {
    const { project } = setup();
    await liveAnswers(project('a', false));
    expect(await snapshotAnswers(project('b', false))).toBe('no saved catalog for these skills');
  });

  it('a project with skills of its own does not use the other folder', async () => {
    const { project } = setup();
    await liveAnswers(project('a'));
    const b = project('b');
    const own = path.join(b.catalog.cwd!, '.claude', 'skills', 'tidy-ledger');
    mkdirSync(own, { recursive: true });
    writeFileSync(path.join(own, 'SKILL.md'), '---\nname: tidy-ledger\ndescription: Reconcile the quarterly ledger of this project\n---\nSteps.\n');
    expect(await snapshotAnswers(b)).toBe('no saved catalog for these skills');
    const live = await LiveIndex.open(b);
    try {
      const [hit] = await live.search('reconcile the quarterly ledger', { k: 1 });
      expect(hit?.skill.name).toBe('tidy-ledger');
    } finally {
      await live.close();
    }
  });

  it('a library skill changed since is not answered from the stale snapshot', async () => {
    const { library, project } = setup();
    await liveAnswers(project('a'));
    const skillFile = path.join(library, readdirSync(library)[0]!, 'SKILL.md');
    writeFileSync(skillFile, readFileSync(skillFile, 'utf8').replace(/description: .*/, 'description: Transcribe handwritten meeting minutes'));
    expect(await snapshotAnswers(project('b'))).toBe('no saved catalog for these skills');
  });
});

function storeCounts(file: string): { entries: unknown; vectors: unknown; catalogs: unknown } {
  const store = SqliteStore.open(file);
  try {
    const count = (table: string): unknown => store.database.prepare(`SELECT count(*) FROM ${table}`).pluck().get();
    return { entries: count('lexical_entries'), vectors: count('vectors'), catalogs: count('catalogs') };
  } finally {
    store.close();
  }
}

/** The last catalog saved in `file`: its vector sum and mean, the catalog it overlays, its member rows. */
function lastCatalog(file: string): { sum: number[]; mean: Buffer; base: unknown; rows: unknown } {
  const store = SqliteStore.open(file);
  try {
    const row = store.database.prepare('SELECT id, mean, sum, base FROM catalogs ORDER BY id DESC LIMIT 1').get() as {
      id: number;
      mean: Buffer;
      sum: Buffer;
      base: unknown;
    };
    const rows = store.database.prepare('SELECT count(*) FROM catalog_skills WHERE catalog = ?').pluck().get(row.id);
    return { sum: [...new Float64Array(Uint8Array.from(row.sum).buffer)], mean: row.mean, base: row.base, rows };
  } finally {
    store.close();
  }
}

/** The assembled catalog's vector sum equals the clean build's to float64 rounding, its mean (float32) exactly. */
function expectSameMean(assembled: ReturnType<typeof lastCatalog>, clean: ReturnType<typeof lastCatalog>): void {
  expect(assembled.sum.length).toBe(clean.sum.length);
  assembled.sum.forEach((value, i) => expect(value).toBeCloseTo(clean.sum[i]!, 9));
  expect(assembled.mean.equals(clean.mean)).toBe(true);
}

function changeOneDescription(library: string): void {
  const skillFile = path.join(library, readdirSync(library).sort()[0]!, 'SKILL.md');
  writeFileSync(skillFile, readFileSync(skillFile, 'utf8').replace(/description: .*/, 'description: Transcribe handwritten meeting minutes'));
}

describe('a catalog changed since it was saved', () => {
  it('is assembled in the store, tokenising and embedding only the changed skill, and answers as a clean build', async () => {
    const { library, project } = setup();
    const a = project('a');
    await liveAnswers(a);
    changeOneDescription(library);
    const before = storeCounts(a.store!);

    const { assembled: cost, answers: got } = await assembledAnswers(a, QUERIES);
    expect(cost).toEqual({ embedded: 1, tokenised: 1 });
    const after = storeCounts(a.store!);
    expect(after).toEqual({ entries: Number(before.entries) + 1, vectors: Number(before.vectors) + 1, catalogs: Number(before.catalogs) + 1 });
    // Every skill stayed in place: the new catalog is an overlay holding the changed skill only.
    const assembled = lastCatalog(a.store!);
    expect([assembled.base, assembled.rows]).toEqual([1, 1]);

    // A clean build of the changed library, in a store of its own, at the same working folder.
    const expected = await liveAnswers({ ...a, store: path.join(a.indexDir!, 'clean.sqlite') });
    expect(got).toEqual(expected);
    expectSameMean(assembled, lastCatalog(path.join(a.indexDir!, 'clean.sqlite')));
    expect(expected.at(-1)![0]!.skill.description).toBe('Transcribe handwritten meeting minutes');

    // The next cold search opens the assembled catalog as saved.
    const again = await LiveIndex.openSnapshot(a, { assemble: true });
    if ('reason' in again) throw new Error(again.reason);
    expect(again.assembled).toBeUndefined();
    await again.close();
  });

  it('with a skill removed and one added, copies the kept skills, leaves no member for the removed one, and answers as a clean build', async () => {
    const { library, project } = setup();
    const a = project('a');
    await liveAnswers(a);
    const [removed] = readdirSync(library).sort();
    rmSync(path.join(library, removed!), { recursive: true });
    const added = path.join(library, 'minutes-transcriber');
    mkdirSync(added);
    writeFileSync(path.join(added, 'SKILL.md'), '---\nname: minutes-transcriber\ndescription: Transcribe handwritten meeting minutes\n---\nSteps.\n');

    const { assembled: cost, size, answers: got } = await assembledAnswers(a, QUERIES);
    expect(cost).toEqual({ embedded: 1, tokenised: 1 });
    expect(size).toBe(readdirSync(library).length);
    const assembled = lastCatalog(a.store!);
    expect(assembled.base).toBeNull();
    const store = SqliteStore.open(a.store!);
    const names = store.database.prepare('SELECT name FROM catalog_skills WHERE catalog = (SELECT max(id) FROM catalogs)').pluck().all() as string[];
    store.close();
    expect(names).not.toContain(removed);
    expect(names).toContain('minutes-transcriber');

    const expected = await liveAnswers({ ...a, store: path.join(a.indexDir!, 'clean.sqlite') });
    expect(got).toEqual(expected);
    expect(expected.at(-1)![0]!.skill.name).toBe('minutes-transcriber');
    expectSameMean(assembled, lastCatalog(path.join(a.indexDir!, 'clean.sqlite')));
  });

  it('from a base saved without a sum, is written whole (every vector read, only the changed skill embedded) and answers as a clean build', async () => {
    const { library, project } = setup();
    const a = project('a');
    await liveAnswers(a);
    const store = SqliteStore.open(a.store!);
    store.database.prepare('UPDATE catalogs SET sum = NULL').run();
    store.close();
    changeOneDescription(library);
    const { assembled: cost, answers: got } = await assembledAnswers(a, QUERIES);
    expect(cost).toEqual({ embedded: 1, tokenised: 1 });
    const assembled = lastCatalog(a.store!);
    expect([assembled.base, assembled.rows]).toEqual([null, readdirSync(library).length]);
    const expected = await liveAnswers({ ...a, store: path.join(a.indexDir!, 'clean.sqlite') });
    expect(got).toEqual(expected);
    expectSameMean(assembled, lastCatalog(path.join(a.indexDir!, 'clean.sqlite')));
  });

  it('with a skill written in Chinese edited, writes it with its glosses and answers as a clean build', async () => {
    const { library, project } = setup();
    const skill = (description: string) => `---\nname: minutes-zh\ndescription: ${description}\n---\n会议结束后整理纪要。\n`;
    mkdirSync(path.join(library, 'minutes-zh'));
    writeFileSync(path.join(library, 'minutes-zh', 'SKILL.md'), skill('整理会议纪要'));
    const a = project('a');
    await liveAnswers(a);
    writeFileSync(path.join(library, 'minutes-zh', 'SKILL.md'), skill('整理会议纪要并列出待办事项'));
    const queries = [...QUERIES, 'meeting minutes action items'];
    const { assembled: cost, answers: got } = await assembledAnswers(a, queries);
    expect(cost).toEqual({ embedded: 1, tokenised: 1 });
    const expected = await liveAnswersOf({ ...a, store: path.join(a.indexDir!, 'clean.sqlite') }, queries);
    expect(got).toEqual(expected);
    // Found by its English glosses.
    expect(expected.at(-1)!.map((hit) => hit.skill.name)).toContain('minutes-zh');
  });

  it('is not assembled unless asked, nor with no catalog of the model saved before', async () => {
    const { library, project } = setup();
    const a = project('a');
    expect(await snapshotAnswers(a)).toBe('no saved catalog for these skills');
    expect(await LiveIndex.openSnapshot(a, { assemble: true })).toEqual({ reason: 'no saved catalog for these skills' });
    await liveAnswers(a);
    changeOneDescription(library);
    expect(await snapshotAnswers(a)).toBe('no saved catalog for these skills');
  });
});
