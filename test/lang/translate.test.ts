import { describe, expect, it } from 'vitest';
import { Dictionary } from '../../src/lang/dictionary.js';
import { tokenize } from '../../src/lexical/tokenize.js';
import { segmentHan, translate } from '../../src/lang/translate.js';
import { CatalogueVocabulary } from '../../src/lang/vocabulary.js';
import { smallDictionary } from './small-dictionary.js';

const dictionary = smallDictionary();

describe('segmentHan', () => {
  it('joins characters the segmenter splits when the dictionary has the word (调|试 → 调试)', () => {
    expect(segmentHan('调试', dictionary)).toEqual(['调试']);
    expect(segmentHan('先写测试', dictionary)).toEqual(['先', '写', '测试']);
  });
});

describe('translate', () => {
  it('renders Chinese in English, first glosses in order for the encoder', () => {
    const result = translate('先写测试再写实现', dictionary);
    expect(result.dense).toBe('beforehand write test write achieve');
    expect(result.lexical).toBe('beforehand first earlier write test beta a test write achieve implement realize');
  });

  it('keeps Latin runs (identifiers, paths) as they are and drops function words', () => {
    const result = translate('把 src/db.ts 的数据库密码调试一下', dictionary);
    expect(result.dense).toBe('src/db.ts database cipher debug');
    // Weights are keyed by lexical terms (lowercased, stemmed, identifiers also split).
    const term = (word: string) => result.terms.weights.get(tokenize(word)[0]!);
    expect(term('src/db.ts')).toBe(1);
    expect(term('database')).toBe(1);
  });

  it('gives the glosses of one word one unit of weight between them, and one coverage group', () => {
    const { terms } = translate('密码 PIN', dictionary, { glossWeights: [1, 0.6, 0.4] });
    const term = (word: string) => terms.weights.get(tokenize(word)[0]!);
    expect(term('cipher')).toBeCloseTo(0.5);
    expect(term('password')).toBeCloseTo(0.3);
    expect(term('secret')).toBeCloseTo(0.2);
    // For coverage the word is one group, like the Latin word beside it.
    expect(terms.groups).toEqual([tokenize('cipher password secret code'), tokenize('PIN')]);
  });

  it('shares that unit by the gloss weights it is given (CrossLingualOptions.glossWeights)', () => {
    const { terms } = translate('密码 PIN', dictionary, { glossWeights: [1, 1] });
    const term = (word: string) => terms.weights.get(tokenize(word)[0]!);
    expect(term('cipher')).toBeCloseTo(0.5);
    expect(term('password')).toBeCloseTo(0.5);
    expect(term('secret')).toBe(0);
  });

  it("shares a word's unit equally between its glosses by default", () => {
    const { terms } = translate('密码', dictionary);
    const term = (word: string) => terms.weights.get(tokenize(word)[0]!);
    expect(term('cipher')).toBeCloseTo(1 / 3);
    expect(term('password')).toBeCloseTo(1 / 3);
  });

  it('reads a Japanese compound written in the reverse of the Chinese order through the Chinese word, only for Japanese', () => {
    expect(translate('脅威を', dictionary, { japanese: true }).dense).toBe('threaten');
    expect(translate('脅威', dictionary).dense).toBe('flank power');
  });

  it('adds the catalogue term two adjacent words spell as one (热力 heat + 图 map → heatmap), keeping the words', () => {
    const vocabulary = new CatalogueVocabulary(['seaborn\nDraw a heatmap of a matrix', 'maps\nRender a map of a region with heat colours']);
    const result = translate('画热力图', dictionary, { vocabulary });
    expect(result.lexical.split(' ')).toContain('heatmap');
    expect(result.terms.weights.get('heatmap')).toBe(1);
    expect(result.dense).toContain('heat');
    expect(translate('画热力图', dictionary).lexical).not.toContain('heatmap');
  });

  it('reads traditional and Japanese characters through the simplified headwords, and drops kana', () => {
    expect(translate('調試', dictionary).dense).toBe('debug');
    expect(translate('検索してください', dictionary).dense).toBe('search');
    expect(translate('実現する', dictionary).dense).toBe('achieve');
  });

  it('round-trips through the compact form unchanged', () => {
    const again = Dictionary.fromCompact(dictionary.toCompact());
    expect(again.size).toBe(dictionary.size);
    expect(translate('先写测试再写实现', again)).toEqual(translate('先写测试再写实现', dictionary));
  });
});
