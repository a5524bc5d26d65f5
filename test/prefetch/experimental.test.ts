import { describe, expect, it } from 'vitest';
import { isExperimentalSkillSearch, listingSkills } from '../../src/prefetch/experimental.js';
import { makeSkill } from '../attachments/make-skill.js';

describe('isExperimentalSkillSearch', () => {
  it('reads EXPERIMENTAL_SKILL_SEARCH from the environment', () => {
    expect(isExperimentalSkillSearch({ EXPERIMENTAL_SKILL_SEARCH: '1' })).toBe(true);
    expect(isExperimentalSkillSearch({ EXPERIMENTAL_SKILL_SEARCH: 'true' })).toBe(true);
    expect(isExperimentalSkillSearch({ EXPERIMENTAL_SKILL_SEARCH: '0' })).toBe(false);
    expect(isExperimentalSkillSearch({ EXPERIMENTAL_SKILL_SEARCH: '' })).toBe(false);
    expect(isExperimentalSkillSearch({})).toBe(false);
  });

  it('lets an explicit option win over the environment', () => {
    expect(isExperimentalSkillSearch({}, true)).toBe(true);
    expect(isExperimentalSkillSearch({ EXPERIMENTAL_SKILL_SEARCH: '1' }, false)).toBe(false);
  });
});

describe('listingSkills', () => {
  const skills = [
    makeSkill('a', { source: 'bundled' }),
    makeSkill('b', { source: 'plugin' }),
    makeSkill('c', { source: 'managed' }),
    makeSkill('d', { source: 'skills' }),
    makeSkill('e', { source: 'commands_DEPRECATED' }),
    makeSkill('f', { source: 'mcp' }),
  ];

  it('narrows the listing to bundled and MCP skills when on', () => {
    expect(listingSkills(skills, true).map((s) => s.name)).toEqual(['a', 'f']);
  });

  it('lists everything when off', () => {
    expect(listingSkills(skills, false).map((s) => s.name)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });
});
