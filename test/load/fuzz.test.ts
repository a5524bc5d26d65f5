import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSkillFile } from '../../src/load/frontmatter.js';
import { scanSkillsDir } from '../../src/load/index.js';
import { removeDir, skillMd, tempDir, writeTree } from './helpers.js';

const context = { path: '/fuzz/SKILL.md', source: 'skills', rank: 5, defaultName: 'fuzz' } as const;

/** Text shaped like a skill file, broken in the ways real files break. */
const malformedText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.tuple(fc.string({ unit: 'grapheme', maxLength: 120 }), fc.string({ maxLength: 60 })).map(([matter, body]) => `---\n${matter}\n---\n${body}`),
  // JSON is YAML: every value type lands in every field.
  fc
    .record(
      {
        name: fc.jsonValue({ maxDepth: 2 }),
        description: fc.jsonValue({ maxDepth: 2 }),
        whenToUse: fc.jsonValue({ maxDepth: 2 }),
        when_to_use: fc.jsonValue({ maxDepth: 1 }),
        effort: fc.jsonValue({ maxDepth: 1 }),
        hooks: fc.jsonValue({ maxDepth: 3 }),
      },
      { requiredKeys: [] },
    )
    .map((fields) => `---\n${JSON.stringify(fields)}\n---\nbody`),
  fc
    .tuple(fc.constantFrom('---', '---js', '---yaml', '---json', '---coffee', '--- '), fc.string({ maxLength: 80 }))
    .map(([fence, rest]) => `${fence}\n${rest}`),
  fc.tuple(fc.string({ maxLength: 40 }), fc.nat(200)).map(([description, cut]) => skillMd(description || 'x', { effort: 'high' }).slice(0, cut)),
  // Alias trees (up to billion-laughs size) and self-references, under any field.
  fc
    .tuple(fc.constantFrom('hooks', 'description', 'name', 'whenToUse'), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 10 }), fc.boolean())
    .map(([field, levels, fanout, cycle]) => {
      const lines = [`  l0: &l0 [${Array(fanout).fill('lol').join(', ')}]`];
      for (let level = 1; level < levels; level += 1)
        lines.push(
          `  l${level}: &l${level} [${Array(fanout)
            .fill(`*l${level - 1}`)
            .join(', ')}]`,
        );
      const value = cycle ? ' &self [1, *self]' : `\n${lines.join('\n')}`;
      return `---\ndescription: aliases\n${field === 'description' ? 'notes' : field}:${value}\n---\nbody`;
    }),
);

describe('fuzzing the parser', () => {
  it('never throws, and a file without a skill always has an error diagnostic', () => {
    fc.assert(
      fc.property(malformedText, (text) => {
        const result = parseSkillFile(text, context);
        const errors = result.diagnostics.filter((d) => d.severity === 'error');
        expect(result.skill === undefined).toBe(errors.length > 0);
        for (const d of result.diagnostics) {
          expect(d.path).toBe(context.path);
          expect(d.message).not.toMatch(/[\n\r]/);
        }
        if (result.skill !== undefined) {
          expect(typeof result.skill.description).toBe('string');
          expect(result.skill.description.trim()).not.toBe('');
          expect(result.skill.name).not.toMatch(/[\u0000-\u001f]/);
          // Kept data is bounded whatever aliases the YAML used.
          if (result.skill.hooks !== undefined) expect(JSON.stringify(result.skill.hooks).length).toBeLessThanOrEqual(65_536);
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('fuzzing the loader', () => {
  it('every bad file is diagnosed and the good files beside it load unchanged', async () => {
    const fileContent = fc.oneof(
      malformedText.map((text) => Buffer.from(text, 'utf8') as Uint8Array),
      fc.uint8Array({ minLength: 1, maxLength: 200 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fileContent, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 4 }), async (badFiles, goodCount) => {
        const root = await tempDir('skill-search-fuzz-');
        try {
          const files: Record<string, string | Uint8Array> = {};
          for (let i = 0; i < goodCount; i++) files[`good-${i}/SKILL.md`] = skillMd(`good skill ${i}`);
          badFiles.forEach((content, i) => {
            files[i % 2 === 0 ? `bad-${i}/SKILL.md` : `bad-${i}.md`] = content;
          });
          await writeTree(root, files);
          const result = await scanSkillsDir(root, { source: 'skills', rank: 5 });

          const good = result.skills.filter((skill) => skill.path.includes('/good-'));
          expect(good.map((skill) => [skill.name, skill.description])).toEqual(Array.from({ length: goodCount }, (_, i) => [`good-${i}`, `good skill ${i}`]));
          for (const relative of Object.keys(files).filter((name) => name.startsWith('bad-'))) {
            const path = join(root, relative);
            const loaded = result.skills.some((skill) => skill.path === path);
            const failed = result.diagnostics.some((d) => d.path === path && d.severity === 'error');
            expect(loaded !== failed, `${relative} must be loaded or diagnosed, not both`).toBe(true);
          }
        } finally {
          await removeDir(root);
        }
      }),
      { numRuns: 40 },
    );
  });
});
