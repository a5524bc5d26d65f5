import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortedByBytes, TextColumn } from '../../src/util/text-column.js';

const NAMES = ['pdf', 'été', 'Pdf', 'pdf', '', '日本語', 'pdf-tools', 'a'];

function column(strings: readonly string[]): TextColumn {
  const { text, ends } = TextColumn.encode(strings);
  return new TextColumn(text, ends);
}

describe('TextColumn', () => {
  it('gives back each string by row, the empty one and non-ASCII ones included', () => {
    const texts = column(NAMES);
    expect(texts.length).toBe(NAMES.length);
    expect(NAMES.map((_, row) => texts.at(row))).toEqual(NAMES);
  });

  it('finds every row holding a string through the byte order, ties in row order', () => {
    const texts = column(NAMES);
    const order = sortedByBytes(NAMES);
    expect(Array.from(order, (row) => NAMES[row])).toEqual(['', 'Pdf', 'a', 'pdf', 'pdf', 'pdf-tools', 'été', '日本語']);
    expect(texts.equalRange('pdf', order)).toEqual([0, 3]);
    expect(texts.equalRange('été', order)).toEqual([1]);
    expect(texts.equalRange('', order)).toEqual([4]);
    for (const missing of ['pd', 'pdf-', 'PDF', 'b', '日本']) expect(texts.equalRange(missing, order), missing).toEqual([]);
  });

  it('orders rows exactly as their UTF-8 bytes compare, where UTF-16 order differs (astral against U+E000 and up)', () => {
    const unit = fc.constantFrom('a', 'B', 'é', '\uE000', '\uFFFD', '日', '𝒳', '😀', '-');
    fc.assert(
      fc.property(fc.array(fc.string({ unit, maxLength: 4 }), { maxLength: 30 }), (strings) => {
        const bytes = strings.map((string) => Buffer.from(string, 'utf8'));
        const want = [...strings.keys()].sort((a, b) => Buffer.compare(bytes[a]!, bytes[b]!) || a - b);
        expect(Array.from(sortedByBytes(strings))).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });

  it('searches rows that are themselves in byte order without an order', () => {
    const sorted = Array.from(sortedByBytes(NAMES), (row) => NAMES[row]!);
    const texts = column(sorted);
    expect(texts.equalRange('pdf')).toEqual([3, 4]);
    expect(texts.equalRange('zzz')).toEqual([]);
  });

  it('refuses ends that do not fill the text', () => {
    const { text, ends } = TextColumn.encode(['ab', 'cd']);
    expect(() => new TextColumn(text.subarray(0, 3), ends)).toThrow('the texts do not fill their section');
    expect(() => new TextColumn(text, new Uint32Array(0))).toThrow('the texts do not fill their section');
    expect(new TextColumn(Buffer.alloc(0), new Uint32Array(0)).length).toBe(0);
  });
});
