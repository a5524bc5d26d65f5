import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SkillSearchEngine } from '../../src/search/engine.js';
import { STORE_DEFAULTS } from '../../src/store/entry-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { copyFixture, runCli, SKILLS as SKILL_TREE, tempDir, removeDir } from '../cli/helpers.js';
import { counting, makeSkill, SKILLS } from './fixtures.js';
import { useTempDirs } from '../support/temp-dirs.js';

const temp = useTempDirs('save-failure');
afterEach(() => vi.restoreAllMocks());

/** Every write into the store fails as on a full disk. */
function diskFull(): void {
  const full = (): never => {
    throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
  };
  vi.spyOn(SqliteStore.prototype, 'putVectors').mockImplementation(full);
  vi.spyOn(SqliteStore.prototype, 'putCatalog').mockImplementation(full);
}

const extra = makeSkill({ name: 'kiln-schedule', description: 'Plan a pottery kiln firing schedule with cone temperatures' });

describe.each(['hnsw', 'exact'] as const)('a store that cannot be written (%s)', (ann) => {
  it('costs no answer: the sync answers from memory and says why; a later engine stores what was missed', async () => {
    const store = path.join(temp(), 'store.sqlite');
    const engine = await SkillSearchEngine.open({ embedder: counting(), store, ann });
    await engine.sync(SKILLS);
    diskFull();
    expect(await engine.sync([...SKILLS, extra])).toMatchObject({ added: 1 });
    expect((await engine.search('pottery kiln firing schedule', { abstain: false }))[0]?.skill.name).toBe('kiln-schedule');
    expect(engine.saveProblem).toBe('database or disk is full');
    expect(engine.saveCatalog({ sourceStamp: 's', portableStamp: 's', diagnostics: [] })).toBe(false);
    await engine.close();
    vi.restoreAllMocks();

    const embedder = counting();
    const reopened = await SkillSearchEngine.open({ embedder, store, ann });
    expect(await reopened.sync([...SKILLS, extra])).toMatchObject({ embedded: 1 });
    expect(reopened.saveCatalog({ sourceStamp: 's', portableStamp: 's', diagnostics: [] })).toBe(true);
    expect((await reopened.search('pottery kiln firing schedule', { abstain: false }))[0]?.skill.name).toBe('kiln-schedule');
    await reopened.close();
  });
});

describe('a store that fails while a catalog is written', () => {
  it("writes no graph file into the working folder (the graph folder is the store's only)", async () => {
    const store = path.join(temp(), 'store.sqlite');
    const engine = await SkillSearchEngine.open({ embedder: counting(), store, ann: 'hnsw' });
    // Above the exact-search size, so the catalog's write saves a graph file.
    const many = Array.from({ length: 2100 }, (_, i) => makeSkill({ name: `tool-${i}`, description: `Handle request kind ${i} for the ledger ${i % 97}` }));
    await engine.sync(many);
    const cwd = temp();
    const before = process.cwd();
    process.chdir(cwd);
    try {
      // The store fails (as a locked one does) on a call before the catalog's write: here the collector's.
      vi.spyOn(SqliteStore.prototype, 'collect').mockImplementation(() => {
        throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      });
      expect(engine.collectStore()).toBe(0);
      expect(engine.saveCatalog({ sourceStamp: 's', portableStamp: 's', diagnostics: [] })).toBe(false);
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      process.chdir(before);
      await engine.close();
    }
  });
});

describe('query with a full disk', () => {
  it('answers, with one line saying the index was not saved', async () => {
    const cache = tempDir();
    const skills = copyFixture(SKILL_TREE);
    try {
      const base = ['--skills-dir', skills, '--model', 'hash', '--index-dir', path.join(cache, 'idx')];
      expect((await runCli(['index', ...base], cache)).code).toBe(0);
      mkdirSync(path.join(skills, 'kiln-schedule'));
      writeFileSync(path.join(skills, 'kiln-schedule', 'SKILL.md'), '---\nname: kiln-schedule\ndescription: Plan a pottery kiln firing schedule\n---\n');
      diskFull();
      const result = await runCli(['query', ...base, 'pottery kiln firing schedule'], cache);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^1\. {2}kiln-schedule /);
      expect(result.stderr).toBe(
        `skill-search: could not save the index in ${path.join(cache, STORE_DEFAULTS.file)} (database or disk is full); answered from memory\n`,
      );
      const hook = await runCli(['hook', 'claude-code', ...base], cache, {
        stdin: JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'plan the pottery kiln firing schedule', cwd: skills }),
      });
      expect(hook.code).toBe(0);
      expect(hook.stdout).toContain('kiln-schedule');
      expect(hook.stderr).toBe(
        `skill-search hook: could not save the index in ${path.join(cache, STORE_DEFAULTS.file)} (database or disk is full); answered from memory\n`,
      );
      // Quiet: the skill the full store could not keep is embedded again, with progress.
      const index = await runCli(['index', '--quiet', ...base], cache);
      expect(index).toMatchObject({ code: 1, stdout: '' });
      expect(index.stderr).toBe(`skill-search: could not save the index in ${path.join(cache, STORE_DEFAULTS.file)} (database or disk is full)\n`);
    } finally {
      removeDir(cache);
      removeDir(skills);
    }
  });
});

describe('a `store` option naming a file that is not a store', () => {
  it('leaves the file as it is, answers from memory and says why in saveProblem', async () => {
    const file = path.join(temp(), 'skills.json');
    const text = JSON.stringify({ mine: 'not a store' }).repeat(20);
    writeFileSync(file, text);
    const engine = await SkillSearchEngine.open({ embedder: counting(), store: file });
    expect(await engine.sync(SKILLS)).toMatchObject({ embedded: SKILLS.length });
    expect(engine.saveProblem).toBe(`${file} is not a skill-search store (not a SQLite file): left as it is; move it away or name another file`);
    await engine.close();
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(readdirSync(path.dirname(file))).toEqual(['skills.json']);
  });
});
