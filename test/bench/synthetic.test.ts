import { describe, expect, it } from 'vitest';
import { generateSynthetic, SYNTHETIC_CAPACITY } from '../../bench/synthetic.js';

describe('generateSynthetic', () => {
  it('gives the same skills and queries for the same seed', () => {
    expect(generateSynthetic({ skills: 50, queries: 20, seed: 3 })).toEqual(generateSynthetic({ skills: 50, queries: 20, seed: 3 }));
  });

  it('makes smaller catalogs prefixes of larger ones, so 1k is inside 10k', () => {
    const small = generateSynthetic({ skills: 100, queries: 0 }).tools;
    const large = generateSynthetic({ skills: 1000, queries: 0 }).tools;
    expect(large.slice(0, 100)).toEqual(small);
  });

  it('reaches 24,000 distinct names without repeating a combination', () => {
    expect(SYNTHETIC_CAPACITY).toBeGreaterThanOrEqual(24_000);
    const { tools } = generateSynthetic({ skills: 24_000, queries: 0 });
    expect(new Set(tools.map((t) => t.name)).size).toBe(24_000);
    expect(new Set(tools.map((t) => t.description)).size).toBe(24_000);
  });

  it('labels every query with a skill of the catalog, or with nothing for chit-chat', () => {
    const { tools, queries } = generateSynthetic({ skills: 300, queries: 400, seed: 9 });
    const names = new Set(tools.map((t) => t.name));
    const negatives = queries.filter((q) => q.relevant.length === 0);
    expect(negatives.length).toBeGreaterThan(10);
    expect(negatives.length).toBeLessThan(80);
    for (const query of queries) {
      expect(query.query.trim()).not.toBe('');
      for (const name of query.relevant) expect(names.has(name)).toBe(true);
    }
  });

  it('writes a skill as a description and a whenToUse a person would write', () => {
    const [first] = generateSynthetic({ skills: 1, queries: 0, seed: 1 }).tools;
    expect(first).toBeDefined();
    expect(first!.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)+$/);
    expect(first!.description).toMatch(/^[A-Z][a-z]+s? .+ projects .+\. Part of the .+ toolkit\.$/);
    expect(first!.whenToUse).toMatch(/^when the user wants to /);
  });

  it('paraphrases most queries instead of copying the description', () => {
    const { tools, queries } = generateSynthetic({ skills: 500, queries: 300, seed: 4 });
    const byName = new Map(tools.map((t) => [t.name, t]));
    const copied = queries.filter((q) => {
      const skill = q.relevant[0] === undefined ? undefined : byName.get(q.relevant[0]);
      return skill !== undefined && q.query.toLowerCase().includes(skill.description.split(' ').slice(1, 3).join(' ').toLowerCase());
    });
    expect(copied.length).toBeLessThan(queries.length / 2);
  });
});
