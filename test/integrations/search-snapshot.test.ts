import { copyFileSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LiveIndex, type LiveIndexOptions } from '../../src/integrations/live-index.js';
import { OpenedSearch } from '../../src/service/open-search.js';
import { ENGINE_DEFAULTS } from '../../src/search/options.js';
import { IndexFolder } from '../../src/index-folder/index-folder.js';
import type { SkillSearchEngine } from '../../src/search/engine.js';
import type { SearchHit } from '../../src/types.js';
import { SKILLS, TOOLS, copyFixture, removeDir, tempDir } from '../cli/helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

const QUERIES = ['resize images for the web', 'fill in a pdf form', 'convert currencies', 'flaky tests', 'release-notes', 'nothing like any skill at all'];

/** A skills folder and a tools file copied, with an index folder of their own. */
function setup(): { options: LiveIndexOptions; skills: string; tools: string; indexDir: string } {
  const skills = copyFixture(SKILLS);
  const scratch = tempDir();
  const tools = path.join(scratch, 'tools.jsonl');
  copyFileSync(TOOLS, tools);
  const indexDir = path.join(scratch, 'index');
  dirs.push(skills, scratch);
  return { options: { catalog: { skillsDirs: [skills], toolsFiles: [tools] }, model: 'hash', indexDir }, skills, tools, indexDir };
}

/** Syncs a LiveIndex (which saves the snapshot on close) and returns its answers to `QUERIES`. */
async function liveAnswers(options: LiveIndexOptions, request = {}): Promise<SearchHit[][]> {
  const live = await LiveIndex.open(options);
  try {
    return await Promise.all(QUERIES.map(async (query) => [...(await live.search(query, request))]));
  } finally {
    await live.close();
  }
}

async function openedSnapshot(options: LiveIndexOptions): Promise<SkillSearchEngine> {
  const opened = await LiveIndex.openSnapshot(options);
  if ('reason' in opened) throw new Error(opened.reason);
  return opened.engine;
}

async function missReason(options: LiveIndexOptions): Promise<string | undefined> {
  const opened = await LiveIndex.openSnapshot(options);
  if ('reason' in opened) return opened.reason;
  await opened.close();
  return undefined;
}

describe('search snapshot', () => {
  it('answers every mode exactly as the live index it was saved from', async () => {
    const { options } = setup();
    for (const mode of ['hybrid', 'lexical', 'dense'] as const) {
      const expected = await liveAnswers(options, { mode, k: 5 });
      const engine = await openedSnapshot(options);
      try {
        const got = await Promise.all(QUERIES.map(async (query) => [...(await engine.search(query, { mode, k: 5 }))]));
        expect(got).toEqual(expected);
        expect(got.flat().length).toBeGreaterThan(0);
      } finally {
        await engine.close();
      }
    }
  });

  it('is not used once a skill file or the tools file changed, and is saved again by the next live index', async () => {
    const { options, skills, tools } = setup();
    await liveAnswers(options);
    expect(await missReason(options)).toBeUndefined();

    const skillFile = path.join(skills, readdirSync(skills)[0]!, 'SKILL.md');
    writeFileSync(skillFile, readFileSync(skillFile, 'utf8').replace(/description: .*/, 'description: Transcribe handwritten meeting minutes'));
    expect(await missReason(options)).toBe('no search snapshot of this catalog');
    await liveAnswers(options);
    expect(await missReason(options)).toBeUndefined();

    // Same bytes, new mtime: the stamp moves though the catalog does not.
    const later = new Date(Date.now() + 5_000);
    utimesSync(tools, later, later);
    expect(await missReason(options)).toBe('no search snapshot of this catalog');
    await liveAnswers(options);
    expect(await missReason(options)).toBeUndefined();
  });

  it('is refused when its vectors changed since, its file is damaged, or the engine differs', async () => {
    const { options, indexDir } = setup();
    await liveAnswers(options);
    expect(await missReason({ ...options, knobs: { ann: 'exact' } })).toBe('no search snapshot of this catalog');

    // Another catalog synced into the same folder moves the vectors the snapshot pairs with.
    const other = await LiveIndex.open({ ...options, catalog: { skillsDirs: [SKILLS] } });
    await other.refresh();
    await other.engine.close();
    expect(await missReason(options)).toBe('no search snapshot of this catalog');

    await liveAnswers(options);
    const manifest = JSON.parse(readFileSync(path.join(indexDir, 'index.json'), 'utf8')) as { artefacts: { search: { file: string } } };
    const file = path.join(indexDir, manifest.artefacts.search.file);
    const bytes = readFileSync(file);
    bytes.fill(0x20, 64, 96);
    writeFileSync(file, bytes);
    expect(await missReason(options)).toMatch(/search file .* fails its checksum/);
  });

  it('one that cannot be decoded although its checksum holds is dropped, and the next live index writes it anew', async () => {
    const { options, indexDir } = setup();
    await liveAnswers(options);
    const folder = IndexFolder.open(indexDir);
    const entry = folder.entry('search')!;
    folder.commit([folder.write('search', Buffer.from('SKSN\u0004\u0000\u0000\u0000{}  '), { format: entry.format, meta: entry.meta! })]);
    expect(await missReason(options)).toMatch(/^search snapshot is unreadable/);
    expect(IndexFolder.open(indexDir).entry('search')).toBeUndefined();
    await liveAnswers(options);
    expect(await missReason(options)).toBeUndefined();
  });

  it('opens read-only', async () => {
    const { options } = setup();
    await liveAnswers(options);
    const engine = await openedSnapshot(options);
    try {
      await expect(engine.sync([])).rejects.toThrow(/cannot sync/);
    } finally {
      await engine.close();
    }
  });
});

describe('OpenedSearch without a server', () => {
  it('hands a search the snapshot fails on to the live index, and does not use the snapshot again', async () => {
    const { options } = setup();
    const [expected] = await liveAnswers(options);
    const misses: string[] = [];
    let snapshotSearches = 0;
    const searcher = new OpenedSearch({
      k: ENGINE_DEFAULTS.k,
      mode: ENGINE_DEFAULTS.mode,
      openSnapshot: async () => ({
        search: async () => {
          snapshotSearches += 1;
          throw new Error('record 3 is not skill x');
        },
        close: async () => undefined,
        diagnostics: [],
        engine: { size: 1, saveProblem: undefined, explain: () => Promise.reject(new Error('not reached')) },
      }),
      openLive: () => LiveIndex.open(options),
      onFallback: ({ reason }) => misses.push(reason),
    });
    try {
      expect(await searcher.search(QUERIES[0]!)).toEqual(expected);
      expect(searcher.via).toBe('live');
      await searcher.search(QUERIES[1]!);
      expect([snapshotSearches, misses]).toEqual([1, ['search snapshot failed: record 3 is not skill x']]);
    } finally {
      await searcher.close();
    }
  });

  it('answers from the snapshot, and from the live index on a miss or a Chinese query', async () => {
    const { options } = setup();
    const [expected] = await liveAnswers(options);
    const misses: string[] = [];
    let liveOpened = 0;
    const searcher = new OpenedSearch({
      k: ENGINE_DEFAULTS.k,
      mode: ENGINE_DEFAULTS.mode,
      openSnapshot: () => LiveIndex.openSnapshot(options),
      openLive: () => {
        liveOpened += 1;
        return LiveIndex.open(options);
      },
      onFallback: ({ reason }) => misses.push(reason),
    });
    try {
      expect(await searcher.search(QUERIES[0]!)).toEqual(expected);
      expect(searcher.via).toBe('snapshot');
      await searcher.search('把图片缩小');
      expect(searcher.via).toBe('live');
      expect([liveOpened, misses]).toEqual([1, []]);
    } finally {
      await searcher.close();
    }

    const cold = new OpenedSearch({
      k: ENGINE_DEFAULTS.k,
      mode: ENGINE_DEFAULTS.mode,
      openSnapshot: () => LiveIndex.openSnapshot({ ...options, indexDir: path.join(tempDir(), 'empty') }),
      openLive: () => LiveIndex.open(options),
      onFallback: ({ reason }) => misses.push(reason),
    });
    try {
      expect(await cold.search(QUERIES[0]!)).toEqual(expected);
      expect(cold.via).toBe('live');
      expect(misses).toHaveLength(1);
    } finally {
      await cold.close();
    }
  });
});
