import { describe, expect, it } from 'vitest';
import { TermVocabulary } from '../../src/lexical/term-vocabulary.js';
import { decodeVocabularyTables, encodeVocabularyTables, vocabularyTables } from '../../src/lexical/vocabulary-tables.js';
import { prng } from '../../scripts/prng.js';
import { levenshtein } from './helpers.js';

/** Words over a small alphabet (so near terms abound), with a few accented and CJK units. */
function vocabulary(random: () => number, count: number): string[] {
  const alphabet = 'aeiourstlnpdké数据';
  const terms = new Set<string>();
  while (terms.size < count) {
    const length = 1 + Math.floor(random() * 14);
    terms.add(Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''));
  }
  return [...terms];
}

/** A term of the vocabulary with up to `edits` random substitutions, insertions and deletions. */
function misspelled(random: () => number, term: string, edits: number): string {
  let word = term;
  for (let e = 0; e < edits; e += 1) {
    const at = Math.floor(random() * (word.length + 1));
    const unit = 'aeiourstxyz'[Math.floor(random() * 11)]!;
    const kind = Math.floor(random() * 3);
    if (kind === 0 && at < word.length) word = word.slice(0, at) + unit + word.slice(at + 1);
    else if (kind === 1 || word.length === 0) word = word.slice(0, at) + unit + word.slice(at);
    else word = word.slice(0, Math.max(0, at - 1)) + word.slice(at);
  }
  return word;
}

describe('TermVocabulary.near', () => {
  it.each([
    ['scanning', Number.POSITIVE_INFINITY],
    ['through the pair index', 0],
    ['scanning, then through the pair index', 20],
  ])('lists exactly the terms within the distance, in vocabulary order, %s', (_, pairIndexAfter) => {
    const random = prng(17);
    const terms = vocabulary(random, 1000);
    const lookup = new TermVocabulary(vocabularyTables(terms), pairIndexAfter);
    for (let round = 0; round < 150; round += 1) {
      const word = misspelled(random, terms[Math.floor(random() * terms.length)]!, Math.floor(random() * 4));
      const maxDistance = 1 + Math.floor(random() * 3);
      const expected = terms.flatMap((term, position) => {
        const distance = levenshtein(word, term);
        return distance <= maxDistance ? [{ position, distance }] : [];
      });
      expect(lookup.near(word, maxDistance), `${word} within ${maxDistance}`).toEqual(expected);
    }
  });

  it('finds a term whose only kept piece is the word’s last one, and words too short to cut', () => {
    const terms = ['kubernetes', 'kubectl', 'xxbernetes', 'ab', 'ba', 'abc'];
    const lookup = new TermVocabulary(vocabularyTables(terms), 0);
    for (let round = 0; round < 2; round += 1) {
      // Both halves of "qqbernetes" are cut: "qqber" is held by no term, "netes" by two.
      expect(lookup.near('qqbernetes', 2)).toEqual([
        { position: 0, distance: 2 },
        { position: 2, distance: 2 },
      ]);
      expect(lookup.near('ac', 1)).toEqual([
        { position: 3, distance: 1 },
        { position: 5, distance: 1 },
      ]);
    }
  });
});

describe('encoded vocabulary tables', () => {
  it('decode to exactly the tables encoded, and a short, corrupt or foreign blob to nothing', () => {
    const random = prng(41);
    for (const terms of [[], ['a'], vocabulary(random, 3000)]) {
      const tables = vocabularyTables(terms);
      const bytes = encodeVocabularyTables(tables);
      // Unaligned, as a blob read out of SQLite may be.
      const shifted = new Uint8Array(bytes.length + 1).subarray(1);
      shifted.set(bytes);
      expect(decodeVocabularyTables(shifted)).toEqual(tables);
    }
    const bytes = encodeVocabularyTables(vocabularyTables(vocabulary(random, 500)));
    expect(decodeVocabularyTables(bytes.subarray(0, bytes.length - 4))).toBeUndefined();
    expect(decodeVocabularyTables(bytes.subarray(0, 8))).toBeUndefined();
    const tampered = (at: number, value: number): Uint8Array => {
      const copy = bytes.slice();
      new DataView(copy.buffer).setUint32(at, value, true);
      return copy;
    };
    expect(decodeVocabularyTables(tampered(0, 1))).toBeUndefined();
    // The last word is where the last term ends (the code units' count); the one before, where it starts.
    const last = bytes.length - 4;
    expect(decodeVocabularyTables(tampered(last, new DataView(bytes.buffer).getUint32(last, true) ^ 1))).toBeUndefined();
    expect(decodeVocabularyTables(tampered(last - 4, new DataView(bytes.buffer).getUint32(last, true) + 1))).toBeUndefined();
  });
});
