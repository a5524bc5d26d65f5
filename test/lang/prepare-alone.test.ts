import { afterEach, describe, expect, it, vi } from 'vitest';
import { CrossLingual } from '../../src/lang/cross-lingual.js';
import * as dictionaryModule from '../../src/lang/dictionary.js';
import { defaultDictionaryDir } from '../../src/lang/dictionary.js';
import { makeSkill } from '../search/fixtures.js';

afterEach(() => vi.restoreAllMocks());

const english = (i: number) => makeSkill({ name: `translate-${i}`, description: `Translate the subtitles of video ${i}` });
const CATALOG = Array.from({ length: 5 }, (_, i) => english(i));
const CHINESE = makeSkill({ name: 'minutes', description: '转录手写的会议记录' });
const JAPANESE = makeSkill({ name: 'ledger', description: '帳簿の残高を確認する' });
/** トランスレート: a katakana word matched against the catalog's English words ("translate"). */
const LOANWORD = makeSkill({ name: 'subtitles', description: '動画の字幕をトランスレートする' });

const language = () => new CrossLingual({ dictionaryDir: defaultDictionaryDir() });

describe('glosses of a few changed skills without the rest of the catalog (prepareAlone)', () => {
  it('glosses Chinese and Japanese skills without a loanword as a prepare of the whole catalog does', async () => {
    const whole = language();
    await whole.prepare([...CATALOG, CHINESE, JAPANESE]);
    const alone = language();
    expect(await alone.prepareAlone([CHINESE, JAPANESE, CATALOG[0]!])).toBe(true);
    for (const skill of [CHINESE, JAPANESE]) {
      expect(alone.glossesOf(skill)).toEqual(whole.glossesOf(skill));
      expect(alone.glossesOf(skill)?.lexical).toMatch(/\w/);
    }
    expect(alone.glossesOf(CATALOG[0]!)).toBeUndefined();
  });

  it('refuses a Japanese skill with a katakana loanword: its glosses depend on the catalog', async () => {
    const whole = language();
    await whole.prepare([...CATALOG, LOANWORD]);
    expect(whole.glossesOf(LOANWORD)?.lexical).toContain('translate');
    const without = language();
    await without.prepare([LOANWORD]);
    expect(without.glossesOf(LOANWORD)?.lexical).not.toContain('translate');
    expect(await language().prepareAlone([CHINESE, LOANWORD])).toBe(false);
  });

  it('English skills alone: true at once, the dictionary not loaded', async () => {
    const load = vi.spyOn(dictionaryModule, 'sharedDictionary');
    expect(await language().prepareAlone(CATALOG)).toBe(true);
    expect(load).not.toHaveBeenCalled();
  });
});
