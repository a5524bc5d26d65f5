import { describe, expect, it } from 'vitest';
import { cleanGloss, selectGlosses, variantTarget } from '../../src/lang/glosses.js';

describe('cleanGloss', () => {
  it.each([
    ['to debug', 'debug'],
    ['to test (machinery etc)', 'test'],
    ['(computing) to save (a file etc)', 'save'],
    ['to refer (a problem) to sb', 'refer to'],
    ['log (computing)', 'log'],
  ])('%j → %j', (sense, clean) => {
    expect(cleanGloss(sense)).toBe(clean);
  });

  it.each([
    '(grammatical particle marking a possessive)',
    'variant of 合併|合并[he2 bing4]',
    'surname Zhang',
    'classifier for flat objects',
    '-ization',
    'used in 寫意|写意[xie4 yi4]',
  ])('drops the note %j', (sense) => {
    expect(cleanGloss(sense)).toBeUndefined();
  });
});

describe('selectGlosses', () => {
  it('keeps the first sense first, moves computing senses up, and stops at three', () => {
    const entry = { pinyin: 'ce4 shi4', senses: ['to test (machinery etc)', 'a test', '(computing) beta (version of software)'] };
    expect(selectGlosses([entry])).toEqual(['test', 'beta', 'a test']);
  });

  it('takes the first synonym of each sense before the second of any', () => {
    expect(selectGlosses([{ pinyin: 'mi4 ma3', senses: ['cipher; secret code', 'password; PIN'] }])).toEqual(['cipher', 'password', 'secret code']);
  });

  it('puts proper-noun readings (capitalised pinyin) last', () => {
    const entries = [
      { pinyin: 'Zhang1', senses: ['Zhang (a place)'] },
      { pinyin: 'zhang1', senses: ['to open up; to spread'] },
    ];
    expect(selectGlosses(entries)).toEqual(['open up', 'spread', 'Zhang']);
  });
});

describe('variantTarget', () => {
  it('reads the simplified target of a variant pointer', () => {
    expect(variantTarget('Japanese variant of 實|实')).toBe('实');
    expect(variantTarget('variant of 合併|合并[he2 bing4]')).toBe('合并');
    expect(variantTarget('old variant of 幫|帮[bang1]')).toBe('帮');
    expect(variantTarget('to debug')).toBeUndefined();
  });
});
