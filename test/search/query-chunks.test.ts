import { describe, expect, it } from 'vitest';
import { ENGINE_DEFAULTS } from '../../src/search/options.js';
import { lexicallySettled, queryChunks } from '../../src/search/query-chunks.js';

describe('queryChunks', () => {
  it('gives nothing extra for a one-sentence query', () => {
    expect(queryChunks('merge these two pdf files')).toEqual([]);
    expect(queryChunks('Merge these two PDF files.')).toEqual([]);
    expect(queryChunks('How do I crop a photo?  ')).toEqual([]);
  });

  it('splits sentences, clauses after a colon or semicolon, and lines', () => {
    expect(queryChunks('Get the GC content of AGTC. Then look up aspirin! Why? Done')).toEqual([
      'Get the GC content of AGTC.',
      'Then look up aspirin!',
      'Why?',
      'Done',
    ]);
    expect(queryChunks('You need to:\n- parse the STL\n- find the density; save it')).toEqual([
      'You need to:',
      '- parse the STL',
      '- find the density;',
      'save it',
    ]);
  });

  it('does not split inside numbers, versions or file names', () => {
    expect(queryChunks('Read report.pdf and bump to v1.2.3 with 0.5 margin. Then email it.')).toEqual([
      'Read report.pdf and bump to v1.2.3 with 0.5 margin.',
      'Then email it.',
    ]);
  });

  it('splits Chinese sentences on full-width punctuation', () => {
    expect(queryChunks('把这个PDF转成文字。然后翻译成英文！')).toEqual(['把这个PDF转成文字。', '然后翻译成英文！']);
  });

  it('drops pieces without a letter (code fences, bare numbers)', () => {
    expect(queryChunks('Plot the data.\n```\n{ }\n```\n42\nThen save it.')).toEqual(['Plot the data.', 'Then save it.']);
  });

  it('joins a long message into at most `max` runs of consecutive sentences, keeping every word', () => {
    const sentences = Array.from({ length: 20 }, (_, i) => `Step ${i + 1} does thing ${i + 1}.`);
    const runs = queryChunks(sentences.join(' '));
    expect(runs).toHaveLength(ENGINE_DEFAULTS.queryChunks.max);
    expect(runs.join(' ')).toBe(sentences.join(' '));
    expect(runs[0]).toBe('Step 1 does thing 1. Step 2 does thing 2.');
    expect(queryChunks('One. Two. Three. Four. Five.', 2)).toEqual(['One. Two.', 'Three. Four. Five.']);
  });
});

describe('lexicallySettled', () => {
  const gate = { lexicalMargin: 1.5, lexicalCoverage: 0.2 };
  const hit = (score: number, coverage: number) => ({ score, coverage });

  it('holds when the best BM25 hit leads the second by the margin and covers enough of the message', () => {
    expect(lexicallySettled([hit(3, 0.2), hit(2, 0.5)], gate)).toBe(true);
    expect(lexicallySettled([hit(3, 0.25)], gate)).toBe(true);
  });

  it('fails on a close second, a low coverage, no hit, or a margin of 0', () => {
    expect(lexicallySettled([hit(2.9, 0.5), hit(2, 0.5)], gate)).toBe(false);
    expect(lexicallySettled([hit(3, 0.19), hit(1, 0.5)], gate)).toBe(false);
    expect(lexicallySettled([], gate)).toBe(false);
    expect(lexicallySettled([hit(3, 1)], { lexicalMargin: 0, lexicalCoverage: 0 })).toBe(false);
  });
});
