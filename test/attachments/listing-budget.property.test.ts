import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatSkillLine, formatSkillListing } from '../../src/attachments/listing.js';
import { makeSkill } from './make-skill.js';

const skillArb = fc.record({
  name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
  description: fc.string({ maxLength: 300 }),
  whenToUse: fc.option(fc.string({ maxLength: 200 }), { nil: undefined }),
  uses: fc.nat(5),
});

describe('formatSkillListing budget (property)', () => {
  it('stays within any budget that fits the notes, lists a prefix of the skills, and reports what it dropped', () => {
    fc.assert(
      fc.property(fc.array(skillArb, { maxLength: 40 }), fc.integer({ min: 140, max: 6_000 }), (specs, budgetChars) => {
        const skills = specs.map((s) => makeSkill(s.name, { description: s.description, whenToUse: s.whenToUse }));
        const usage = new Map(specs.map((s) => [s.name, s.uses]));
        const listing = formatSkillListing(skills, { budgetChars, usage });

        expect(listing.content.length).toBeLessThanOrEqual(budgetChars);
        const lines = listing.content === '' ? [] : listing.content.split('\n').filter((line) => line.startsWith('- '));
        const names = listing.skillNames;
        expect(lines.length + listing.omitted.length).toBe(names.length);
        lines.forEach((line, i) => {
          const skill = skills.find((s) => s.name === names[i])!;
          expect([formatSkillLine(skill), `- ${skill.name}`]).toContain(line);
          expect(line === `- ${skill.name}` && line !== formatSkillLine(skill)).toBe(listing.shortened.includes(skill.name));
        });
        expect(listing.content.includes('omitted to fit')).toBe(listing.shortened.length > 0);
        expect(listing.content.includes('not listed')).toBe(listing.omitted.length > 0);
      }),
      { numRuns: 300 },
    );
  });
});
