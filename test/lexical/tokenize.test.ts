import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitWords, tokenize } from '../../src/lexical/tokenize.js';

describe('tokenize', () => {
  it('lowercases and drops English stop words from a natural sentence', () => {
    expect(tokenize('Can you help me turn this PDF into text?')).toEqual(['turn', 'pdf', 'text']);
  });

  it('keeps identifiers whole and also splits them into their (stemmed) words', () => {
    expect(tokenize('pdf-extract snake_case getPostmodernTheory')).toEqual([
      'pdf-extract',
      'pdf',
      'extract',
      'snake_case',
      'snak',
      'case',
      'getpostmoderntheory',
      'postmodern',
      'theory',
    ]);
  });

  it('maps inflections to one term', () => {
    expect(tokenize('crashes crash failing failed fails images image queries query')).toEqual([
      'crash',
      'crash',
      'fail',
      'fail',
      'fail',
      'imag',
      'imag',
      'query',
      'query',
    ]);
  });

  it('keeps contractions as one word instead of leaving a stray letter', () => {
    expect(splitWords("I'm stuck")).toEqual(["i'm", 'stuck']);
    expect(tokenize("I'm stuck")).toEqual(['stuck']);
  });

  it('segments Chinese into character bigrams plus dictionary words, and splits embedded Latin words', () => {
    expect(tokenize('提取PDF中的表格')).toEqual(['提取', 'pdf', '中的', '的表', '表格']);
  });

  it('finds a word the ICU dictionary splits (调试) through its bigram', () => {
    expect(tokenize('帮我调试')).toContain('调试');
  });

  it('emits longer Japanese words once besides the bigrams', () => {
    expect(tokenize('テキストを抽出')).toEqual(['テキスト', 'テキ', 'キス', 'スト', 'トを', 'を抽', '抽出']);
  });

  it('gives every word the parts the separator and camel-case splits give it, plain words included', () => {
    // The splits every word used to go through; plain words now skip them.
    const parts = (word: string) => {
      const pieces = word
        .split(/[-_.:/]+/)
        .flatMap((piece) => piece.split(/(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u));
      return [word.toLowerCase(), ...(pieces.length > 1 ? pieces.filter((piece) => piece !== '').map((piece) => piece.toLowerCase()) : [])];
    };
    const unit = fc.constantFrom('a', 'z', 'B', 'Q', 'é', 'É', 'ß', 'ǅ', '9', '-', '_', '.', 'ω', 'Ω', 'ı', 'İ');
    fc.assert(
      fc.property(fc.string({ unit, minLength: 1, maxLength: 8 }), (text) => {
        const words = [...text.matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?(?:[-_.:/][\p{L}\p{N}]+)*/gu)].map((match) => match[0]);
        expect(splitWords(text)).toEqual(words.flatMap(parts));
      }),
      { numRuns: 2000 },
    );
  });

  it('returns nothing for punctuation or stop words only', () => {
    expect(tokenize('?!… the and of')).toEqual([]);
  });
});
