/**
 * The commonest Japanese programming loanwords, each read as its English word over the real library catalogue's
 * vocabulary (built as CrossLingual builds it: each skill's name and description, split into words in order).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { catalogWords, LoanwordMatcher } from '../../src/lang/loanwords.js';
import { LIBRARY, libraryWordLists } from './library-catalogue.js';

/** Katakana → the English word it must be read as first; `among`: the reading may follow another. */
const TABLE: readonly (readonly [string, string, 'first' | 'among'])[] = [
  ['ライブラリ', 'library', 'first'],
  ['フレームワーク', 'framework', 'first'],
  ['データベース', 'database', 'first'],
  ['サーバー', 'server', 'first'],
  ['クラスタ', 'cluster', 'first'],
  ['デプロイ', 'deploy', 'first'],
  ['テスト', 'test', 'first'],
  ['リファクタリング', 'refactoring', 'first'],
  ['コンポーネント', 'component', 'first'],
  ['パフォーマンス', 'performance', 'first'],
  ['セキュリティ', 'security', 'first'],
  ['ドキュメント', 'document', 'first'],
  ['ブランチ', 'branch', 'first'],
  ['コミット', 'commit', 'first'],
  ['パッケージ', 'package', 'first'],
  ['バージョン', 'version', 'first'],
  ['インストール', 'install', 'first'],
  ['エラー', 'error', 'first'],
  ['ログ', 'log', 'first'],
  ['キャッシュ', 'cache', 'first'],
  ['クエリ', 'query', 'first'],
  ['スキーマ', 'schema', 'first'],
  ['マイグレーション', 'migration', 'first'],
  ['コンテナ', 'container', 'first'],
  ['パイプライン', 'pipeline', 'first'],
  ['テンプレート', 'template', 'first'],
  ['プロンプト', 'prompt', 'first'],
  ['スクリプト', 'script', 'first'],
  ['レビュー', 'review', 'first'],
  ['アップグレード', 'upgrade', 'first'],
  ['リリースノート', 'release note', 'first'],
  ['コード', 'code', 'first'],
];

/**
 * In the table but not in the library catalogue, which has only "caching": checked with the word added to it (one
 * skill), among the readings (キャッシュ is also cash, which more skills use).
 */
const ABSENT = new Set(['キャッシュ']);

describe.skipIf(!existsSync(LIBRARY))('common loanwords over the library catalogue (needs SKILL_SEARCH_EVAL_DIR/library)', () => {
  const { frequencies, followers } = existsSync(LIBRARY) ? catalogWords(libraryWordLists()) : { frequencies: new Map(), followers: () => new Map() };
  const matcher = new LoanwordMatcher(frequencies, followers);

  const check = (katakana: string, english: string, where: 'first' | 'among'): void => {
    const words = matcher.match(katakana);
    // Singular or plural: the catalogue may only have one of them.
    const fits = (word: string | undefined): boolean => word === english || word === `${english}s`;
    if (where === 'first') expect(fits(words[0]), `${katakana} → ${words.join(', ')}`).toBe(true);
    else expect(words.some(fits), `${katakana} → ${words.join(', ')}`).toBe(true);
  };
  it.each(TABLE.filter(([katakana]) => !ABSENT.has(katakana)))('%s reads as %s (%s)', check);
  it.each(TABLE.filter(([katakana]) => ABSENT.has(katakana)))('%s reads as %s (%s) once the catalogue has the word', (katakana, english) => {
    expect(frequencies.has(english)).toBe(false);
    const withWord = new LoanwordMatcher(new Map([...frequencies, [english, 1]]), followers);
    expect(withWord.match(katakana)).toContain(english);
  });
});
