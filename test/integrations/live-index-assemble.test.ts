import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LiveIndex, type LiveIndexOptions } from '../../src/integrations/live-index.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { SearchHit } from '../../src/types.js';
import { SKILLS, copyFixture, removeDir, tempDir } from '../cli/helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

const QUERIES = ['resize images for the web', 'fill in a pdf form', 'transcribe handwritten meeting minutes', 'flaky tests', 'nothing like any skill at all'];

/** A project folder over `library` with its store at `store`. */
function project(library: string, store: string): LiveIndexOptions {
  const root = tempDir();
  dirs.push(root);
  const home = path.join(root, 'home');
  mkdirSync(home);
  return {
    catalog: { cwd: root, home, libraryDirs: [library], codexHome: path.join(home, '.codex'), claudePlugins: false },
    model: 'hash',
    indexDir: path.join(root, 'index'),
    store,
  };
}

async function liveAnswers(options: LiveIndexOptions): Promise<SearchHit[][]> {
  const live = await LiveIndex.open(options);
  try {
    return await Promise.all(QUERIES.map(async (query) => [...(await live.search(query, { k: 5 }))]));
  } finally {
    await live.close();
  }
}

function counts(file: string): { entries: unknown; vectors: unknown; catalogs: unknown } {
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
  it('is assembled from the last saved catalog, tokenising and embedding only the changed skill, and answers as a clean build', async () => {
    const library = copyFixture(SKILLS);
    const cache = tempDir();
    dirs.push(library, cache);
    const store = path.join(cache, 'store.sqlite');
    const options = project(library, store);
    await liveAnswers(options);
    changeOneDescription(library);
    const before = counts(store);

    const opened = await LiveIndex.openSnapshot(options, { assemble: true });
    if ('reason' in opened) throw new Error(opened.reason);
    let got: SearchHit[][];
    try {
      expect(opened.assembled).toEqual({ embedded: 1, tokenised: 1 });
      got = await Promise.all(QUERIES.map(async (query) => [...(await opened.search(query, { k: 5 }))]));
    } finally {
      await opened.close();
    }
    const after = counts(store);
    expect(after).toEqual({ entries: Number(before.entries) + 1, vectors: Number(before.vectors) + 1, catalogs: Number(before.catalogs) + 1 });

    // A clean build of the changed library in a store of its own.
    const fresh = tempDir();
    dirs.push(fresh);
    const expected = await liveAnswers(project(library, path.join(fresh, 'store.sqlite')));
    expect(got).toEqual(expected);
    expect(expected[2]![0]!.skill.description).toBe('Transcribe handwritten meeting minutes');

    // The next cold search opens the assembled catalog as saved.
    const again = await LiveIndex.openSnapshot(options, { assemble: true });
    if ('reason' in again) throw new Error(again.reason);
    expect(again.assembled).toBeUndefined();
    await again.close();
  });

  it('is not assembled without being asked, nor with no catalog saved before', async () => {
    const library = copyFixture(SKILLS);
    const cache = tempDir();
    dirs.push(library, cache);
    const options = project(library, path.join(cache, 'store.sqlite'));
    expect(await LiveIndex.openSnapshot(options, { assemble: true })).toEqual({ reason: 'no saved catalog for these skills' });
    await liveAnswers(options);
    changeOneDescription(library);
    expect(await LiveIndex.openSnapshot(options)).toEqual({ reason: 'no saved catalog for these skills' });
  });
});
