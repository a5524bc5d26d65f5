import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { SkillCatalog } from '../../src/load/catalog.js';
import { LiveIndex, type LiveIndexOptions } from '../../src/integrations/live-index.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { SearchHit, SearchMode } from '../../src/types.js';
import { runCli } from '../cli/helpers.js';
import { liveAnswers } from '../support/search-answers.js';
import { useTempDirs } from '../support/temp-dirs.js';

const temp = useTempDirs('held-delta');
const TOPICS = ['rotate the logs of', 'plan a budget for', 'translate subtitles of', 'benchmark the cache of', 'audit the permissions of'];
/** Words the edits bring (exact, a prefix, a typo), the renamed tool's name, and words only the edited lines had before. */
const QUERIES = [
  'transcribe handwritten meeting minutes',
  'transcr minut',
  'handwriten meetng',
  'ledger wizard',
  'plan a budget for service 12',
  'translate subtitles of service 7',
  'rotate the logs of service 3',
  'quasar telescop',
  'nothing like any skill at all',
];
const MODES: readonly SearchMode[] = ['hybrid', 'lexical', 'dense'];
/** For the cases that make several clean builds of 2,200 skills: 10–15 s alone, 40–45 s seen on a loaded 2-core machine. */
const BUILDS_TIMEOUT_MS = 120_000;
const tool = (id: string, description: string, name = id): string => JSON.stringify({ id, name, description });

function setup(count: number): { tools: string; options: (store: string) => LiveIndexOptions } {
  const root = temp();
  const home = path.join(root, 'home');
  mkdirSync(home);
  const tools = path.join(root, 'tools.jsonl');
  writeFileSync(tools, Array.from({ length: count }, (_, i) => tool(`tool-${i}`, `${TOPICS[i % TOPICS.length]} service ${i}`)).join('\n'));
  const options = (store: string): LiveIndexOptions => ({
    catalog: { cwd: root, home, toolsFiles: [tools], demo: 'never', claudePlugins: false },
    model: 'hash',
    indexDir: path.join(root, 'cache', 'index'),
    store: path.join(root, 'cache', store),
  });
  return { tools, options };
}

/** Line 7's description and line 12's name and description edited (ids kept: an overlay of the base). */
function editLines(tools: string): void {
  const lines = readFileSync(tools, 'utf8').split('\n');
  lines[7] = tool('tool-7', 'Transcribe handwritten meeting minutes');
  lines[12] = tool('tool-12', 'Keeps the books balanced', 'ledger-wizard');
  writeFileSync(tools, lines.join('\n'));
}

/**
 * Line 7 in Chinese and line 12 in Japanese with no katakana loanword: glosses that depend on no
 * other skill (`CrossLingual.prepareAlone`).
 */
function editInChinese(tools: string): void {
  const lines = readFileSync(tools, 'utf8').split('\n');
  lines[7] = tool('tool-7', '转录手写的会议记录');
  lines[12] = tool('tool-12', '帳簿の残高を確認する', 'ledger-wizard');
  writeFileSync(tools, lines.join('\n'));
}

/** Line 20 in Japanese with a katakana loanword (トランスレート, "translate" in the catalog's words): matched against every skill's English words. */
function editWithLoanword(tools: string): void {
  const lines = readFileSync(tools, 'utf8').split('\n');
  lines[20] = tool('tool-20', '動画の字幕をトランスレートする');
  writeFileSync(tools, lines.join('\n'));
}

/** Queries finding the Chinese and Japanese edits, in English and in their languages. */
const CJK_QUERIES = [
  'transcription of a meeting record',
  '会议记录',
  '帳簿の残高',
  'confirm the account book',
  'ledger wizard',
  'トランスレート',
  'translate subtitles of a video',
  'plan a budget for service 12',
];

/** Line 20's description edited: a word no line had. */
function editAgain(tools: string): void {
  const lines = readFileSync(tools, 'utf8').split('\n');
  lines[20] = tool('tool-20', 'Point the quasar telescope at service 20');
  writeFileSync(tools, lines.join('\n'));
}

/**
 * Every answer of the catalog on disk held in memory by a caller handing its write on (which
 * writes nothing and hands the write on once), checked equal to the catalog's written by a caller
 * that does not (an overlay of the same base); `changed`: the skills embedded and tokenised.
 */
async function heldAndWritten(saved: LiveIndexOptions, changed: number, queries = QUERIES): Promise<unknown[]> {
  const before = storeCounts(saved.store!);
  const due: string[] = [];
  const opened = await LiveIndex.openSnapshot({ ...saved, onSnapshotDue: (stamp) => due.push(stamp) }, { assemble: true });
  if ('reason' in opened) throw new Error(opened.reason);
  let got: unknown[];
  try {
    expect(opened.held).toEqual({ embedded: changed });
    expect(opened.assembled).toBeUndefined();
    expect(opened.diagnostics).toEqual([]);
    got = await allAnswers((query, mode) => opened.search(query, { k: 5, mode }), queries);
  } finally {
    await opened.close();
  }
  // Nothing written: not the catalog, not a vector, not a lexical entry.
  expect(storeCounts(saved.store!)).toEqual(before);
  expect(due).toHaveLength(1);
  const written = await LiveIndex.openSnapshot(saved, { assemble: true });
  if ('reason' in written) throw new Error(written.reason);
  try {
    expect(written.assembled).toEqual({ embedded: changed, tokenised: changed });
    expect(await allAnswers((query, mode) => written.search(query, { k: 5, mode }), queries)).toEqual(got);
  } finally {
    await written.close();
  }
  expect(storeCounts(saved.store!)[0]).toBe(before[0]! + 1);
  return got;
}

/** The first row `sql` reads from the store at `file`. */
function storeRead(file: string, sql: string): unknown {
  const store = SqliteStore.open(file);
  try {
    return store.database.prepare(sql).get();
  } finally {
    store.close();
  }
}

/** Row counts of the store's catalogs, members, vectors and lexical entries. */
function storeCounts(file: string): number[] {
  const store = SqliteStore.open(file);
  try {
    return ['catalogs', 'catalog_skills', 'vectors', 'lexical_entries', 'lexical_catalogs'].map(
      (table) => store.database.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number,
    );
  } finally {
    store.close();
  }
}

/** Every query's top 5 in every mode, with their scores. */
async function allAnswers(search: (query: string, mode: SearchMode) => Promise<readonly SearchHit[]>, queries = QUERIES): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const mode of MODES) for (const query of queries) out.push([mode, query, await search(query, mode)]);
  return out;
}

/** A clean build of the catalog on disk, saved, then searched as a cold process reads it. */
async function cleanAnswers(options: LiveIndexOptions, queries = QUERIES): Promise<unknown[]> {
  await liveAnswers(options, QUERIES.slice(0, 1));
  const opened = await LiveIndex.openSnapshot(options);
  if ('reason' in opened) throw new Error(opened.reason);
  try {
    return await allAnswers((query, mode) => opened.search(query, { k: 5, mode }), queries);
  } finally {
    await opened.close();
  }
}

describe('a tools file edited since its catalog was saved, searched by a caller that hands the write on', () => {
  it.each([
    ['searched exactly', 40],
    ['above the exact-search size, through the base graph', 2_200],
  ])(
    'is held in memory over the saved catalog (%s): nothing written, the write handed on, answers as written and as a clean build',
    async (_what, count) => {
      const { tools, options } = setup(count);
      const saved = options('store.sqlite');
      await liveAnswers(saved, QUERIES.slice(0, 1));
      // An edit, then one more: told against the same line table and base, the first edit's lines read again.
      for (const [round, edit] of [editLines, editAgain].entries()) {
        edit(tools);
        const got = await heldAndWritten(saved, round === 0 ? 2 : 1);
        // A clean build: the same answers, but for a graph's dense candidates (approximate: the clean one is another graph).
        const clean = await cleanAnswers(options(`clean-${round}.sqlite`));
        const exact = (answers: unknown[]) => (count > 2_048 ? answers.filter((answer) => (answer as [SearchMode])[0] === 'lexical') : answers);
        expect(exact(got)).toEqual(exact(clean));
        expect(JSON.stringify(clean[0])).toContain('tool-7');
        expect(JSON.stringify(clean[3])).toContain('tool-12');
      }
    },
    BUILDS_TIMEOUT_MS,
  );

  it.each([
    ['searched exactly', 40],
    ['above the exact-search size, through the base graph', 2_200],
  ])(
    'an edit in Chinese or Japanese is held too when its glosses depend on no other skill (%s); one with a loanword is written whole',
    async (_what, count) => {
      const { tools, options } = setup(count);
      const saved = options('store.sqlite');
      await liveAnswers(saved, QUERIES.slice(0, 1));
      const exact = (answers: unknown[]) => (count > 2_048 ? answers.filter((answer) => (answer as [SearchMode])[0] === 'lexical') : answers);
      editInChinese(tools);
      const got = await heldAndWritten(saved, 2, CJK_QUERIES);
      const clean = await cleanAnswers(options('clean-cjk.sqlite'), CJK_QUERIES);
      expect(exact(got)).toEqual(exact(clean));
      // Found through their glosses by English requests, and in their own languages.
      expect(JSON.stringify(clean[0])).toContain('tool-7');
      expect(JSON.stringify(clean[1])).toContain('tool-7');
      expect(JSON.stringify(clean[2])).toContain('tool-12');
      expect(JSON.stringify(clean[3])).toContain('tool-12');

      editWithLoanword(tools);
      const opened = await LiveIndex.openSnapshot({ ...saved, onSnapshotDue: () => undefined }, { assemble: true });
      if ('reason' in opened) throw new Error(opened.reason);
      try {
        expect(opened.held).toBeUndefined();
        expect(opened.assembled).toBeDefined();
        expect(exact(await allAnswers((query, mode) => opened.search(query, { k: 5, mode }), CJK_QUERIES))).toEqual(
          exact(await cleanAnswers(options('clean-loanword.sqlite'), CJK_QUERIES)),
        );
      } finally {
        await opened.close();
      }
    },
    BUILDS_TIMEOUT_MS,
  );

  it('the hook answers an edit from memory and starts the indexer, which saves it from the changed lines; the next prompt reads that', async () => {
    const { tools } = setup(40);
    const root = path.dirname(tools);
    const cache = path.join(root, 'hook-cache');
    const flags = ['--tools', tools, '--model', 'hash', '--no-demo', '--cwd', root];
    const spawned: (readonly string[])[] = [];
    const hook = (prompt: string) =>
      runCli(['hook', 'claude-code', ...flags], cache, {
        stdin: JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt, transcript_path: '/dev/null' }),
        spawnDetached: (argv) => void spawned.push(argv),
      });
    expect((await runCli(['index', '--quiet', ...flags], cache)).code).toBe(0);
    editLines(tools);
    const store = path.join(cache, 'store.sqlite');
    const before = storeCounts(store);

    const edited = await hook('transcribe handwritten meeting minutes');
    expect([edited.code, edited.stderr]).toEqual([0, '']);
    expect(edited.stdout).toContain('tool-7');
    expect(storeCounts(store)).toEqual(before);
    expect(spawned).toHaveLength(1);
    expect(spawned[0]!.slice(0, 1)).toEqual(['index']);

    // The indexer saves it from the changed lines, as an overlay of the saved catalog: the file is not loaded whole.
    const table = (file = store) => storeRead(file, 'SELECT key, size, mtime_ms, text, starts, outcomes FROM tools_lines');
    const index = await runCli(spawned[0]!, cache);
    expect([index.code, index.stdout]).toEqual([
      0,
      expect.stringMatching(/^indexed 40 skills: 0 added, 2 updated, 0 removed, 38 unchanged; 2 embedded \(\d+ ms\)\n$/),
    ]);
    expect(storeCounts(store)[0]).toBe(before[0]! + 1);
    expect(storeRead(store, 'SELECT base FROM catalogs ORDER BY id DESC LIMIT 1')).toEqual({ base: expect.any(Number) });
    // Then the line table moves to the edited text: what a load of the whole file keeps.
    const cleanCache = path.join(root, 'clean-cache');
    expect((await runCli(['index', '--quiet', ...flags], cleanCache)).code).toBe(0);
    expect(table()).toEqual(table(path.join(cleanCache, 'store.sqlite')));
    const after = await hook('transcribe handwritten meeting minutes');
    expect(after).toEqual(edited);
    expect(spawned).toHaveLength(1);

    // The next edit is told against that table: its indexer parses and updates its own line only.
    editAgain(tools);
    const again = await hook('point the quasar telescope');
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(again.stdout).toContain('tool-20');
    expect(spawned).toHaveLength(2);
    const second = await runCli(spawned[1]!, cache);
    expect([second.code, second.stdout]).toEqual([
      0,
      expect.stringMatching(/^indexed 40 skills: 0 added, 1 updated, 0 removed, 39 unchanged; 1 embedded \(\d+ ms\)\n$/),
    ]);
    expect(await hook('point the quasar telescope')).toEqual(again);
    expect(spawned).toHaveLength(2);
  });
});

/** `count` SKILL.md folders in the user's skills folder, set a minute back (a file modified within `RACY_MS` of a scan is not memoized). */
function setupFolders(count: number): { skill: (i: number) => string; options: (store: string) => LiveIndexOptions } {
  const root = temp();
  const home = path.join(root, 'home');
  const skill = (i: number) => path.join(home, '.claude', 'skills', `tool-${i}`, 'SKILL.md');
  const earlier = new Date(Date.now() - 60_000);
  for (let i = 0; i < count; i += 1) {
    mkdirSync(path.dirname(skill(i)), { recursive: true });
    writeFileSync(skill(i), skillMd(`${TOPICS[i % TOPICS.length]} service ${i}`));
    utimesSync(skill(i), earlier, earlier);
  }
  const options = (store: string): LiveIndexOptions => ({
    catalog: { cwd: root, home, demo: 'never', claudePlugins: false },
    model: 'hash',
    indexDir: path.join(root, 'cache', 'index'),
    store: path.join(root, 'cache', store),
  });
  return { skill, options };
}

function skillMd(description: string): string {
  return `---\ndescription: ${JSON.stringify(description)}\n---\nBody.\n`;
}

describe('SKILL.md folders edited since their catalog was saved, searched by a caller that hands the write on', () => {
  it.each([
    ['searched exactly', 40],
    ['above the exact-search size, through the base graph', 2_200],
  ])(
    'are held in memory over the saved catalog, told from the kept scan memo (%s): answers as written and as a clean build',
    async (_what, count) => {
      const { skill, options } = setupFolders(count);
      const saved = options('store.sqlite');
      const exact = (answers: unknown[]) => (count > 2_048 ? answers.filter((answer) => (answer as [SearchMode])[0] === 'lexical') : answers);
      await liveAnswers(saved, QUERIES.slice(0, 1));
      writeFileSync(skill(7), skillMd('Transcribe handwritten meeting minutes'));
      writeFileSync(skill(12), skillMd('转录手写的会议记录'));
      // Told from the moved pieces of the kept memo and the base's members, without scanning the folder.
      const scans = vi.spyOn(SkillCatalog.prototype, 'folderDelta');
      const got = await heldAndWritten(saved, 2, [...QUERIES, ...CJK_QUERIES]);
      expect(scans).not.toHaveBeenCalled();
      scans.mockRestore();
      expect(exact(got)).toEqual(exact(await cleanAnswers(options('clean.sqlite'), [...QUERIES, ...CJK_QUERIES])));
      expect(JSON.stringify(got[0])).toContain('tool-7');

      // A loanword's glosses depend on the other skills: not held, written whole, as a clean build.
      writeFileSync(skill(20), skillMd('動画の字幕をトランスレートする'));
      const opened = await LiveIndex.openSnapshot({ ...saved, onSnapshotDue: () => undefined }, { assemble: true });
      if ('reason' in opened) throw new Error(opened.reason);
      try {
        expect(opened.held).toBeUndefined();
        expect(exact(await allAnswers((query, mode) => opened.search(query, { k: 5, mode }), CJK_QUERIES))).toEqual(
          exact(await cleanAnswers(options('clean-loanword.sqlite'), CJK_QUERIES)),
        );
      } finally {
        await opened.close();
      }

      // Saved while the edited files were new (their memo entries never read for a parse), then one of them edited again: still held.
      await liveAnswers(saved, QUERIES.slice(0, 1));
      writeFileSync(skill(20), skillMd('Point the quasar telescope at service 20'));
      const again = await heldAndWritten(saved, 1);
      expect(exact(again)).toEqual(exact(await cleanAnswers(options('clean-again.sqlite'))));
      expect(JSON.stringify(again[7])).toContain('tool-20');
    },
    BUILDS_TIMEOUT_MS,
  );
});

describe('SKILL.md folders edited in seeded steps, searched by a caller that hands the write on', () => {
  it('answer as a clean build after every step, whether held or not: edits, renames, broken files, policy files, shadowed skills', async () => {
    const root = temp();
    const home = path.join(root, 'home');
    const folders = [path.join(home, '.claude', 'skills'), path.join(root, '.claude', 'skills')];
    const names = Array.from({ length: 24 }, (_, i) => `tool-${i}`);
    const fileOf = (folder: string, name: string) => path.join(folder, name, 'SKILL.md');
    const written = new Set<string>();
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
      written.add(file);
    };
    // Set a minute back before a save: a file modified within `RACY_MS` of a scan is not memoized.
    const settle = () => {
      const earlier = new Date(Date.now() - 60_000);
      for (const file of written) utimesSync(file, earlier, earlier);
    };
    names.forEach((name, i) => write(fileOf(folders[0]!, name), skillMd(`${TOPICS[i % TOPICS.length]} service ${i}`)));
    // Shadowed by the project's folder of the same name.
    for (const i of [3, 9]) write(fileOf(folders[1]!, names[i]!), skillMd(`project copy of ${names[i]!}: plan a budget for service ${i}`));
    const options = (store: string): LiveIndexOptions => ({
      catalog: { cwd: root, home, demo: 'never', claudePlugins: false },
      model: 'hash',
      indexDir: path.join(root, 'cache', 'index'),
      store: path.join(root, 'cache', store),
    });
    const saved = options('store.sqlite');
    settle();
    await liveAnswers(saved, QUERIES.slice(0, 1));
    let seed = 28;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const words = ['transcribe handwritten meeting minutes', 'quasar telescope', '会议记录', 'ledger wizard', 'rotate the logs'];
    const steps = [
      () => write(fileOf(folders[0]!, pick(names)), skillMd(pick(words))),
      () => write(fileOf(folders[1]!, pick([names[3]!, names[9]!])), skillMd(`project ${pick(words)}`)),
      () => write(fileOf(folders[0]!, names[3]!), skillMd(`shadowed ${pick(words)}`)),
      () => write(fileOf(folders[0]!, pick(names)), `---\nname: renamed-${Math.floor(next() * 3)}\ndescription: ${pick(words)}\n---\nBody.\n`),
      () => write(fileOf(folders[0]!, pick(names)), '---\ndescription: [broken\n---\n'),
      () => write(path.join(folders[0]!, pick(names), 'agents', 'openai.yaml'), pick(['policy:\n  allow_implicit_invocation: false\n', 'policy: [broken\n'])),
    ];
    let held = 0;
    // Steps held without a scan of the folders (told from the memos' moved pieces), and steps that scanned for the delta.
    let heldUnscanned = 0;
    const scans = vi.spyOn(SkillCatalog.prototype, 'folderDelta');
    for (let step = 0; step < 14; step += 1) {
      pick(steps)();
      if (next() < 0.5) pick(steps)();
      scans.mockClear();
      const opened = await LiveIndex.openSnapshot({ ...saved, onSnapshotDue: () => undefined }, { assemble: true });
      if ('reason' in opened) throw new Error(opened.reason);
      let got: unknown[];
      try {
        if (opened.held !== undefined) held += 1;
        if (opened.held !== undefined && scans.mock.calls.length === 0) heldUnscanned += 1;
        got = [opened.diagnostics, await allAnswers((query, mode) => opened.search(query, { k: 5, mode }), words)];
      } finally {
        await opened.close();
      }
      const cleanStore = options(`clean-${step}.sqlite`);
      await liveAnswers(cleanStore, QUERIES.slice(0, 1));
      const clean = await LiveIndex.openSnapshot(cleanStore);
      if ('reason' in clean) throw new Error(clean.reason);
      let want: unknown[];
      try {
        want = [clean.diagnostics, await allAnswers((query, mode) => clean.search(query, { k: 5, mode }), words)];
      } finally {
        await clean.close();
      }
      expect(got, `step ${step}`).toEqual(want);
      // Now and then the indexer saves the catalog and its memo: the next steps are told against it.
      // Some files it saves modified just before (not memoized): taken as the base has them.
      if (next() < 0.3) {
        if (next() < 0.7) settle();
        await liveAnswers(saved, QUERIES.slice(0, 1));
      }
    }
    scans.mockRestore();
    expect(held).toBeGreaterThan(2);
    expect(heldUnscanned).toBeGreaterThan(0);
  });
});
