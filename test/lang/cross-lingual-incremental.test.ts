import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { CrossLingual } from '../../src/lang/cross-lingual.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import * as detectModule from '../../src/lang/detect.js';
import * as dictionaryModule from '../../src/lang/dictionary.js';
import { defaultDictionaryDir } from '../../src/lang/dictionary.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import { makeSkill, SKILLS } from '../search/fixtures.js';
import { useTempDirs } from '../support/temp-dirs.js';

/** How many loanword vocabularies (one pass over every skill's words) were built. */
const vocabularies = vi.hoisted(() => ({ built: 0 }));

vi.mock('../../src/lang/loanwords.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/lang/loanwords.js')>();
  class CountedMatcher extends actual.LoanwordMatcher {
    constructor(...args: ConstructorParameters<typeof actual.LoanwordMatcher>) {
      super(...args);
      vocabularies.built += 1;
    }
  }
  return { ...actual, LoanwordMatcher: CountedMatcher };
});

const tempDir = useTempDirs('lang-cache');
const ENGLISH = SKILLS.filter((skill) => !/\p{Script=Han}/u.test(skill.description));

afterEach(() => {
  vi.restoreAllMocks();
  vocabularies.built = 0;
});

describe('an English catalogue', () => {
  it('syncs and answers English queries without the dictionary or the loanword vocabulary', async () => {
    const load = vi.spyOn(dictionaryModule, 'sharedDictionary');
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann: 'exact', crossLingual: { dictionaryDir: defaultDictionaryDir() } });
    await engine.sync(ENGLISH);
    await engine.search('merge these pdf files');
    await engine.sync([...ENGLISH.slice(1), makeSkill({ name: 'csv-cleanup', description: 'Clean up messy CSV exports' })]);
    await engine.search('clean a csv export');
    expect(load).not.toHaveBeenCalled();
    expect(vocabularies.built).toBe(0);

    // The same catalogue builds both once a Japanese query (kanji and katakana) needs them.
    await engine.search('ファイルを結合する');
    expect(load).toHaveBeenCalled();
    expect(vocabularies.built).toBe(1);
    await engine.close();
  });
});

describe('incremental detection', () => {
  it('examines only new or changed skills with CJK text, and re-detects a changed skill', async () => {
    const detect = vi.spyOn(detectModule, 'detectLanguage');
    const language = new CrossLingual({ dictionaryDir: defaultDictionaryDir() });
    const notes = makeSkill({ id: 'notes', name: 'notes', description: 'Write meeting notes' });
    await language.prepare([...ENGLISH, notes]);
    expect(detect).not.toHaveBeenCalled();
    expect(language.glossesOf(notes)).toBeUndefined();

    const chinese = makeSkill({ id: 'notes', name: 'notes', description: '会议纪要' });
    const logs = makeSkill({ id: 'logs', name: 'logs', description: '日志分析' });
    await language.prepare([chinese, logs, ...ENGLISH.slice(0, 1)]);
    expect(detect).toHaveBeenCalledTimes(2);
    expect(language.catalogLanguage).toBe('zh');
    expect(language.glossesOf(chinese)?.lexical).toMatch(/summary|minutes/);

    detect.mockClear();
    await language.prepare([chinese, logs, ...ENGLISH.slice(0, 1)]);
    expect(detect).not.toHaveBeenCalled();
    expect(language.catalogLanguage).toBe('zh');

    await language.prepare([notes, logs, ...ENGLISH.slice(0, 1)]);
    expect(detect).not.toHaveBeenCalled();
    expect(language.catalogLanguage).toBe('en');
    expect(language.glossesOf(notes)).toBeUndefined();
    expect(language.glossesOf(logs)?.lexical).toMatch(/log/);
  });
});

describe('kept with the index', () => {
  it('lets a new process reuse the glosses without the dictionary, and detects only what changed', async () => {
    const indexDir = tempDir();
    const crossLingual = { dictionaryDir: defaultDictionaryDir() };
    const logs = makeSkill({ id: 'logs', name: 'logs', description: '分析服务器日志' });
    const first = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann: 'exact', indexDir, crossLingual });
    await first.sync([...ENGLISH, logs]);
    const before = await first.search('analyse the server logs');
    await first.close();

    const load = vi.spyOn(dictionaryModule, 'sharedDictionary');
    const detect = vi.spyOn(detectModule, 'detectLanguage');
    const second = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann: 'exact', indexDir, crossLingual });
    await second.sync([...ENGLISH, logs]);
    expect(await second.search('analyse the server logs')).toEqual(before);
    expect(before.map((hit) => hit.skill.id)).toContain('logs');
    expect(load).not.toHaveBeenCalled();
    expect(detect).not.toHaveBeenCalled();

    const notes = makeSkill({ id: 'logs', name: 'logs', description: '会议纪要' });
    await second.sync([...ENGLISH, notes]);
    expect(detect).toHaveBeenCalledTimes(1);
    expect(load).toHaveBeenCalled();
    expect((await second.search('meeting minutes')).map((hit) => hit.skill.id)).toContain('logs');
    await second.close();
  });

  it('ignores a damaged cache file and answers as a fresh index would', async () => {
    const crossLingual = { dictionaryDir: defaultDictionaryDir() };
    const logs = makeSkill({ id: 'logs', name: 'logs', description: '分析服务器日志' });
    const fresh = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann: 'exact', crossLingual });
    await fresh.sync([...ENGLISH, logs]);
    const expected = await fresh.search('analyse the server logs');
    await fresh.close();

    const indexDir = tempDir();
    const first = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann: 'exact', indexDir, crossLingual });
    await first.sync([...ENGLISH, logs]);
    await first.close();
    // Each kind of damage to the stored entries, written behind the store's back.
    const store = SqliteStore.open(join(indexDir, 'store.sqlite'));
    for (const damaged of ['{"version":', 'null', '["xx", "", ""]', '{"skills": null}']) {
      store.database.prepare('UPDATE glosses SET value = ?').run(damaged);
      const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann: 'exact', indexDir, crossLingual });
      await engine.sync([...ENGLISH, logs]);
      expect(await engine.search('analyse the server logs')).toEqual(expected);
      await engine.close();
      store.database.prepare('UPDATE glosses SET value = ?').run(damaged);
    }
    store.close();
  });
});
