/**
 * Held out from the loanword matcher's rules: 99 common developer loanwords, none in common-loanwords.test.ts's
 * table, written down (with the matcher's readings of the time) before the rules for short skeletons were written, each
 * read as its English word (singular or plural) over the library catalogue's words. Only words the catalogue uses.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { catalogWords, LoanwordMatcher } from '../../src/lang/loanwords.js';
import { LIBRARY, libraryWordLists } from './library-catalogue.js';

/** Katakana → the English word it must be read as first (pairs, space-separated). */
const HELD_OUT: readonly (readonly [string, string])[] = (
  `
  データ data パラメータ parameter ユーザー user ブラウザ browser ファイル file ディレクトリ directory
  アプリケーション application インターフェース interface モジュール module オブジェクト object クラス class メソッド method
  ネットワーク network プロジェクト project イベント event メモリ memory アカウント account パスワード password
  トークン token セッション session フォーマット format ワークフロー workflow コマンド command オプション option
  プラグイン plugin リポジトリ repository レポジトリ repository ソース source ビルド build デバッグ debug
  モニタリング monitoring アラート alert ダッシュボード dashboard チャート chart グラフ graph テーブル table
  カラム column インデックス index トランザクション transaction バックアップ backup ストレージ storage クラウド cloud
  ドメイン domain プロトコル protocol ヘッダー header レスポンス response ステータス status エンドポイント endpoint
  ルーター router ライセンス license ユニット unit カバレッジ coverage ベンチマーク benchmark プロファイル profile
  レイアウト layout スタイル style アイコン icon イメージ image フォーム form メッセージ message
  ドライバー driver コンパイラ compiler パーサー parser フィルター filter ソート sort マージ merge
  スキャン scan トリガー trigger スケジュール schedule タスク task キュー queue ワーカー worker
  エージェント agent モデル model ベクトル vector チェック check ルール rule ポリシー policy
  ユーティリティ utility コンフィグ config アップデート update ダウンロード download アップロード upload マネージャー manager
  プロバイダー provider サービス service クライアント client ブロック block ノード node ノート note
  ページ page リンク link タグ tag キー key シェル shell パス path
  ユーザ user ドキュメンテーション documentation レポート report
`.match(/\S+ \S+/g) ?? []
).map((pair) => pair.split(' ') as [string, string]);

/**
 * Misread now (23 of 99; 50 before the vowel check for one- and two-consonant skeletons). Each is an `it.fails`,
 * so one that starts reading right turns red until moved.
 */
const MISREAD = new Set(
  `
    ディレクトリ モジュール クラス パスワード セッション プラグイン リポジトリ レポジトリ カラム クラウド
    ステータス ドライバー コンパイラ パーサー トリガー スケジュール ワーカー ポリシー ユーティリティ マネージャー
    プロバイダー クライアント シェル
`
    .trim()
    .split(/\s+/),
);

describe.skipIf(!existsSync(LIBRARY))('held-out loanwords over the library catalogue (needs SKILL_SEARCH_EVAL_DIR/library)', () => {
  const { frequencies, followers } = existsSync(LIBRARY) ? catalogWords(libraryWordLists()) : { frequencies: new Map(), followers: () => new Map() };
  const matcher = new LoanwordMatcher(frequencies, followers);

  const check = (katakana: string, english: string): void => {
    const first = matcher.match(katakana)[0];
    expect(first === english || first === `${english}s`, `${katakana} → ${matcher.match(katakana).join(', ')}`).toBe(true);
  };
  it('lists each katakana word once, each in the catalogue', () => {
    expect(HELD_OUT).toHaveLength(99);
    expect(new Set(HELD_OUT.map(([katakana]) => katakana)).size).toBe(HELD_OUT.length);
    for (const [, english] of HELD_OUT) expect(frequencies.has(english) || frequencies.has(`${english}s`), english).toBe(true);
  });
  it.each(HELD_OUT.filter(([katakana]) => !MISREAD.has(katakana)))('%s reads as %s', check);
  it.fails.each(HELD_OUT.filter(([katakana]) => MISREAD.has(katakana)))('%s is still misread, not %s', check);
});
