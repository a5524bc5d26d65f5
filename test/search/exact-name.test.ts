import { describe, expect, it } from 'vitest';
import { findNamedSkills, normalizeName } from '../../src/search/exact-name.js';

const NAMES = new Map<string, string[]>(
  [['pdf'], ['systematic-debugging'], ['now'], ['getWeather'], ['skill-creator'], ['calculator']].map(([name]) => [normalizeName(name!), [`id:${name!}`]]),
);
const find = (query: string): string[] => findNamedSkills(query, (name) => NAMES.get(name));

describe('findNamedSkills', () => {
  it.each([
    ['/pdf', ['id:pdf']],
    ['/pdf extract the tables', ['id:pdf']],
    ['PDF', ['id:pdf']],
    ['Systematic Debugging', ['id:systematic-debugging']],
    ['skill creator', ['id:skill-creator']],
    ['use the pdf skill', ['id:pdf']],
    ['I want the skill pdf.', ['id:pdf']],
    ['the `now` tool please', ['id:now']],
    ['run systematic-debugging on this crash', ['id:systematic-debugging']],
    ['call getWeather for Paris', ['id:getWeather']],
    ['use skill-creator, then the pdf skill', ['id:skill-creator', 'id:pdf']],
  ])('recognises %j', (query, expected) => {
    expect(find(query)).toEqual(expected);
  });

  it.each(['what time is it now', 'make a pdf of this page', 'is there a calculator app', '/unknown-command', ''])(
    'does not treat %j as naming a skill',
    (query) => {
      expect(find(query)).toEqual([]);
    },
  );

  it('normalises case, spaces, hyphens and underscores alike', () => {
    expect(normalizeName('  Skill_Creator ')).toBe('skill-creator');
    expect(normalizeName('skill -- creator')).toBe('skill-creator');
  });
});
