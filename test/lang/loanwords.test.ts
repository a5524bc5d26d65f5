import { describe, expect, it } from 'vitest';
import { catalogWords, LoanwordMatcher, romanize } from '../../src/lang/loanwords.js';
import { translate } from '../../src/lang/translate.js';
import { smallDictionary } from './small-dictionary.js';

/** A matcher of the catalog whose skills' texts are `skills` (each `[text, how many skills have it]`). */
function catalogOf(...skills: [string, number][]): LoanwordMatcher {
  const { frequencies, followers } = catalogWords(skills.flatMap(([text, count]) => Array.from({ length: count }, () => text.split(' '))));
  return new LoanwordMatcher(frequencies, followers);
}

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
    expect(new LoanwordMatcher(new Map([[english, 1]])).match(katakana)).toEqual([english]);
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

  it('reads a skeleton of fewer than three consonants only as words whose vowels Japanese borrows as its own', () => {
    // Each katakana word shares its consonants with every word of its row; only the first has its vowels.
    const catalog = new LoanwordMatcher(
      new Map([
        ['query', 2],
        ['call', 9],
        ['car', 9],
        ['error', 2],
        ['arrow', 9],
        ['log', 2],
        ['rag', 9],
        ['server', 2],
        ['save', 9],
        ['review', 2],
        ['rib', 9],
        ['code', 2],
        ['card', 9],
        ['cache', 2],
        ['case', 9],
        ['chart', 2],
        ['chat', 9],
      ]),
    );
    expect(catalog.match('クエリ')).toEqual(['query']); // クエ is que; call's a is no e + i
    expect(catalog.match('エラー')).toEqual(['error']); // a final -or is a long a; arrow ends in o
    expect(catalog.match('ログ')).toEqual(['log']); // the u of グ is added
    expect(catalog.match('サーバー')).toEqual(['server']); // er is a long a
    expect(catalog.match('レビュー')).toEqual(['review']); // ビュー is view
    expect(catalog.match('コード')).toEqual(['code']); // a silent e lengthens the o; ar is a
    expect(catalog.match('キャッシュ')).toEqual(['cache']); // che is sh; case's a before a silent e is ei
    expect(catalog.match('チャート')).toEqual(['chart']); // ー is no short vowel (chat)
    expect(matcher.match('テ')).toEqual([]);
  });

  it('reads a non-prevocalic r as Japanese borrows it, a long vowel (テラフォーム = terraform)', () => {
    const catalog = new LoanwordMatcher(
      new Map([
        ['terraform', 1],
        ['pipeline', 9],
        ['server', 3],
      ]),
    );
    expect(catalog.match('テラフォーム')).toEqual(['terraform']);
    expect(catalog.match('パイプライン')).toEqual(['pipeline']);
  });

  it("prefers the word spelled at the loanword's length over a more frequent skeleton twin", () => {
    // パイプライン and "plan" share p-r-n; the dropped u of "pu" makes paiprain pipeline's length.
    const catalog = new LoanwordMatcher(
      new Map([
        ['plan', 30],
        ['pipeline', 4],
      ]),
    );
    expect(catalog.match('パイプライン')).toEqual(['pipeline', 'plan']);
  });

  it('reads a katakana compound as the catalog word pair it splits into, plural or not', () => {
    // リリースノート (r-s-n-t) is also the skeleton of "recent"; リリース|ノート split into release|note(s).
    const catalog = catalogOf(['recent', 20], ['release notes', 1], ['apply when', 5], ['pipeline', 2]);
    expect(catalog.match('リリースノート')).toEqual(['release notes']);
    // A pair whose halves need a one-consonant part (パイプラ|イン = apply|when) is no compound.
    expect(catalog.match('パイプライン')).toEqual(['pipeline']);
  });

  it("takes a single word spelled at the loanword's length, or starting as it does, over a word pair", () => {
    const catalog = catalogOf(['work that', 9], ['request', 2], ['trees using', 9], ['tracing', 1]);
    // リクエ|スト splits into work|that, but "request" is spelled at its length.
    expect(catalog.match('リクエスト')).toEqual(['request']);
    // トレー|シング: "trees" is a plural only as the last word, and シング does not start as "using" does.
    expect(catalog.match('トレーシング')).toEqual(['tracing']);
  });

  it("takes the word more skills use among those within a letter of the loanword's length (ライブラリ = library)", () => {
    const catalog = new LoanwordMatcher(
      new Map([
        ['library', 16],
        ['reviewer', 2],
        ['reliable', 1],
        ['contain', 1],
        ['container', 1],
        ['containers', 1],
      ]),
    );
    expect(catalog.match('ライブラリ')[0]).toBe('library');
    // container is within a letter once its final r is borrowed as a vowel, and counted with its plural.
    expect(catalog.match('コンテナ')[0]).toBe('container');
  });

  it('reads ch as チ and a voiced -sion as ジョン (ブランチ = branch, バージョン = version)', () => {
    const catalog = new LoanwordMatcher(
      new Map([
        ['branch', 5],
        ['version', 5],
        ['schema', 3],
      ]),
    );
    expect(catalog.match('ブランチ')).toEqual(['branch']);
    expect(catalog.match('バージョン')).toEqual(['version']);
    expect(catalog.match('スキーマ')).toEqual(['schema']);
  });

  it('romanizes a small kana as replacing the vowel before it', () => {
    expect(romanize('セキュリティ')).toBe('sekyuriti');
    expect(romanize('フォーム')).toBe('fomu');
    expect(romanize('バージョン')).toBe('bajon');
  });

  it('drops h in both skeletons (ハンドリング = handling)', () => {
    expect(new LoanwordMatcher(new Map([['handling', 1]])).match('ハンドリング')).toEqual(['handling']);
  });

  it('feeds translation next to the dictionary glosses', () => {
    expect(translate('テストを先に書く', smallDictionary(), { loanwords: matcher }).dense).toBe('test beforehand');
    expect(translate('テストを先に書く', smallDictionary()).dense).toBe('beforehand');
  });
});
