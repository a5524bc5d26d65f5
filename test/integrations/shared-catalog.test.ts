import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LiveIndex, type LiveIndexOptions } from '../../src/integrations/live-index.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { SearchHit } from '../../src/types.js';
import { SKILLS, copyFixture, removeDir, tempDir } from '../cli/helpers.js';

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

async function liveAnswers(options: LiveIndexOptions): Promise<SearchHit[][]> {
  const live = await LiveIndex.open(options);
  try {
    return await Promise.all(QUERIES.map(async (query) => [...(await live.search(query, { k: 5 }))]));
  } finally {
    await live.close();
  }
}

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

    const opened = await LiveIndex.openSnapshot(a, { assemble: true });
    if ('reason' in opened) throw new Error(opened.reason);
    let got: SearchHit[][];
    try {
      expect(opened.assembled).toEqual({ embedded: 1, tokenised: 1 });
      got = await Promise.all(QUERIES.map(async (query) => [...(await opened.search(query, { k: 5 }))]));
    } finally {
      await opened.close();
    }
    const after = storeCounts(a.store!);
    expect(after).toEqual({ entries: Number(before.entries) + 1, vectors: Number(before.vectors) + 1, catalogs: Number(before.catalogs) + 1 });

    // A clean build of the changed library, in a store of its own, at the same working folder.
    const expected = await liveAnswers({ ...a, store: path.join(a.indexDir!, 'clean.sqlite') });
    expect(got).toEqual(expected);
    expect(expected.at(-1)![0]!.skill.description).toBe('Transcribe handwritten meeting minutes');

    // The next cold search opens the assembled catalog as saved.
    const again = await LiveIndex.openSnapshot(a, { assemble: true });
    if ('reason' in again) throw new Error(again.reason);
    expect(again.assembled).toBeUndefined();
    await again.close();
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
