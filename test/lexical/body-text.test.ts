import { describe, expect, it } from 'vitest';
import { bodyText } from '../../src/lexical/body-text.js';
import { LexicalIndex } from '../../src/lexical/lexical-index.js';
import { ENGINE_DEFAULTS } from '../../src/search/options.js';
import { makeSkill } from '../search/fixtures.js';

const BODY = [
  '# Memory errors',
  '',
  'Build with **ASan** to catch use-after-free. See [the docs](https://example.com/asan).',
  'A second line of the first paragraph.',
  '',
  'A later paragraph that is left out.',
  '',
  '```bash',
  'clang -fsanitize=address main.c',
  '```',
  '',
  '## When to use',
  '- a crash that only shows up in CI',
  '1. bisect the failing commit',
  '| col | col |',
  '<!-- a comment',
  'still the comment -->',
  '![diagram](img.png)',
].join('\n');

describe('bodyText', () => {
  it('keeps headings, list items and first paragraphs; drops code, tables, comments, images and link targets', () => {
    expect(bodyText(BODY)).toBe(
      [
        'Memory errors',
        'Build with ASan to catch use-after-free. See the docs.',
        'A second line of the first paragraph.',
        'When to use',
        'a crash that only shows up in CI',
        'bisect the failing commit',
      ].join('\n'),
    );
  });

  it('stops at the cap', () => {
    expect(bodyText(`# Title\n\n${'word '.repeat(1000)}`, 100).length).toBeLessThanOrEqual(100);
    expect(bodyText('')).toBe('');
  });
});

describe('LexicalIndex body field', () => {
  const skill = { ...makeSkill({ name: 'sanitizers', description: 'Find memory bugs in C programs.' }), body: BODY };

  it('finds a skill by a word only its body carries, below a frontmatter match', () => {
    const index = new LexicalIndex();
    index.upsert(skill);
    index.upsert(makeSkill({ name: 'asan-notes', description: 'Notes.' }));
    expect(index.search('asan', 5).map((match) => match.id)).toEqual(['asan-notes', 'sanitizers']);
    expect(index.search('asan', 5, { boost: { ...ENGINE_DEFAULTS.fieldBoosts, body: 0 } }).map((match) => match.id)).toEqual(['asan-notes']);
  });

  it('reindexes a skill whose body changed though its frontmatter did not', () => {
    const index = new LexicalIndex();
    index.upsert(skill);
    expect(index.upsert(skill)).toBe(false);
    expect(index.upsert({ ...skill, body: '# Fuzzing harnesses' })).toBe(true);
    expect(index.search('asan', 5)).toEqual([]);
    expect(index.search('harness', 5).map((match) => match.id)).toEqual(['sanitizers']);
  });
});
