import { describe, expect, it } from 'vitest';
import { LexicalIndex } from '../../src/lexical/lexical-index.js';
import { loadLexicalIndex, saveLexicalIndex } from '../../src/lexical/lexical-store.js';
import { makeSkill, SKILLS } from '../search/fixtures.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('lexical-store');

/** Exact words, a prefix (`spreadsh`), a typo (`pdff`), Chinese, and one removed skill's words. */
const QUERIES = ['merge pdf pages', 'spreadsh formulas', 'pdff', 'resize images', '翻译', 'zebra', 'commit message'];

describe('the persisted lexical index', () => {
  it('loads an index that ranks every query exactly as the one saved, after removals and replacements', () => {
    const dir = tempDir();
    const index = new LexicalIndex();
    for (const skill of SKILLS) index.upsert(skill);
    index.remove(SKILLS[3]!.id);
    index.upsert({ ...SKILLS[5]!, description: `${SKILLS[5]!.description} and zebra counts`, contentHash: 'e'.repeat(64) });
    saveLexicalIndex(dir, index);
    const loaded = loadLexicalIndex(dir);
    if (!('index' in loaded)) throw new Error(loaded.reason);
    expect(loaded.index.size).toBe(SKILLS.length - 1);
    for (const query of QUERIES) expect(loaded.index.search(query, 10)).toEqual(index.search(query, 10));
    expect(loaded.index.search('zebra', 10).map((match) => match.id)).toEqual([SKILLS[5]!.id]);
    // Still a working index: a later upsert is found, the unchanged skill is a no-op.
    expect(loaded.index.upsert(SKILLS[0]!)).toBe(false);
    expect(loaded.index.upsert(SKILLS[3]!)).toBe(true);
    expect(loaded.index.search(SKILLS[3]!.name, 1)[0]?.id).toBe(SKILLS[3]!.id);
    // A removal after loading takes every posting of the skill with it, so the skill that
    // reuses its slot inherits none: scores are a fresh build's.
    expect(loaded.index.remove(SKILLS[5]!.id)).toBe(true);
    const newcomer = makeSkill({ name: 'newcomer', description: 'Plan a garden.' });
    loaded.index.upsert(newcomer);
    const fresh = new LexicalIndex();
    for (const skill of [...SKILLS.filter((skill) => skill !== SKILLS[5]), newcomer]) fresh.upsert(skill);
    for (const query of [...QUERIES, SKILLS[5]!.name]) {
      const byId = (matches: readonly { id: string; score: number }[]) => Object.fromEntries(matches.map((match) => [match.id, match.score.toFixed(9)]));
      expect(byId(loaded.index.search(query, 50)), query).toEqual(byId(fresh.search(query, 50)));
    }
    expect(loaded.index.search('zebra', 10)).toEqual([]);
  });
});
