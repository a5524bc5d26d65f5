import { describe, expect, it } from 'vitest';
import { englishSkeleton, LoanwordMatcher, romajiSkeleton, romanize } from '../../src/lang/loanwords.js';
import { translate } from '../../src/lang/translate.js';
import { smallDictionary } from './small-dictionary.js';

describe('skeletons', () => {
  it.each([
    ['テスト', 'test'],
    ['パイプライン', 'pipeline'],
    ['リクエスト', 'request'],
    ['シミュレーション', 'simulation'],
    ['アクセシビリティ', 'accessibility'],
    ['パッケージ', 'package'],
    ['プロンプト', 'prompt'],
    ['データベース', 'database'],
  ])('%s and %s reduce to the same consonants', (katakana, english) => {
    expect(romajiSkeleton(romanize(katakana))).toBe(englishSkeleton(english));
  });

  it('romanizes katakana, lengthening marks and small kana included', () => {
    expect(romanize('データベース')).toBe('detabesu');
    expect(romanize('パッケージ')).toBe('pakeji');
  });
});

describe('LoanwordMatcher', () => {
  const matcher = new LoanwordMatcher(
    new Map([
      ['test', 12],
      ['toast', 1],
      ['pipeline', 4],
      ['query', 9],
    ]),
  );

  it('stands a loanword for the most frequent catalog words with its skeleton', () => {
    expect(matcher.match('テスト')).toEqual(['test', 'toast']);
    expect(matcher.match('パイプライン')).toEqual(['pipeline']);
  });

  it('does not guess from a skeleton of fewer than three consonants', () => {
    // クエリ (kueri → k-r) is "query", but k-r would fit any number of short words.
    expect(matcher.match('クエリ')).toEqual([]);
  });

  it('feeds translation next to the dictionary glosses', () => {
    expect(translate('テストを先に書く', smallDictionary(), { loanwords: matcher }).dense).toBe('test beforehand');
    expect(translate('テストを先に書く', smallDictionary()).dense).toBe('beforehand');
  });
});
