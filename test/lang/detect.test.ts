import { describe, expect, it } from 'vitest';
import { detectLanguage, majority } from '../../src/lang/detect.js';

describe('detectLanguage', () => {
  it.each([
    ['write the failing test first', 'en'],
    ['先写测试再写实现', 'zh'],
    ['用 RDKit 计算分子指纹', 'zh'],
    ['這個錯誤很難重現', 'zh'],
    ['テストを先に書いてから実装する', 'ja'],
    ['この SQL クエリが遅い', 'ja'],
    ['데이터베이스를 마이그레이션', 'ko'],
    // One Chinese word quoted in an English sentence leaves the sentence English.
    ['how do I translate 会议 in the docs', 'en'],
    ['créer une présentation', 'en'],
  ])('%j is %s', (text, language) => {
    expect(detectLanguage(text)).toBe(language);
  });
});

describe('majority', () => {
  it('is the language most texts are in, English on a tie or when empty', () => {
    expect(majority(['系统化调试流程', '会议纪要', 'merge pdf files'].map(detectLanguage))).toBe('zh');
    expect(majority(['系统化调试流程', 'merge pdf files'].map(detectLanguage))).toBe('en');
    expect(majority([])).toBe('en');
  });
});
