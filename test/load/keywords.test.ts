import { describe, expect, it } from 'vitest';
import { validateFields } from '../../src/load/fields.js';
import { buildSkill, DEFAULT_SKILL_LIMITS } from '../../src/load/skill.js';
import { LexicalIndex } from '../../src/lexical/lexical-index.js';

const context = { path: '/skills/sanitize/SKILL.md', defaultName: 'sanitize', limits: DEFAULT_SKILL_LIMITS };

describe('keywords from frontmatter', () => {
  it('collects tags, keywords, aliases and triggers from lists and comma-separated text', () => {
    const { fields, diagnostics } = validateFields(
      { name: 'sanitize', description: 'Find memory bugs.', tags: ['c', 'memory safety'], keywords: 'ASan, UBSan', aliases: 'asan-build', triggers: [42] },
      context,
    );
    expect(diagnostics).toEqual([]);
    expect(fields?.keywords).toEqual(['c', 'memory safety', 'ASan', 'UBSan', 'asan-build', '42']);
  });

  it('ignores a malformed field with a warning and loads the skill', () => {
    const { fields, diagnostics } = validateFields({ name: 'sanitize', description: 'Find memory bugs.', tags: { nested: true } }, context);
    expect(fields?.keywords).toBeUndefined();
    expect(diagnostics).toEqual([
      { code: 'bad-field', path: context.path, message: '`tags` must be text or a list of text, got a mapping; ignored', severity: 'warning' },
    ]);
  });

  it('makes a skill findable by a keyword its description lacks', () => {
    const { fields } = validateFields({ name: 'sanitize', description: 'Find memory bugs in C programs.', keywords: ['ASan'] }, context);
    const skill = buildSkill({ ...fields!, body: '' }, { path: context.path, source: 'skills', rank: 4 });
    const index = new LexicalIndex();
    index.upsert(skill);
    expect(index.search('asan build', 5).map((match) => match.id)).toEqual(['sanitize']);
    // Same frontmatter text, new keywords: reindexed although the content hash did not move.
    const renamed = buildSkill({ ...fields!, keywords: ['valgrind'], body: '' }, { path: context.path, source: 'skills', rank: 4 });
    expect(renamed.contentHash).toBe(skill.contentHash);
    expect(index.upsert(renamed)).toBe(true);
    expect(index.search('asan', 5)).toEqual([]);
  });
});
