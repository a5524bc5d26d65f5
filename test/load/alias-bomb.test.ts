import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundedJson } from '../../src/load/bounded-json.js';
import { parseSkillFile } from '../../src/load/frontmatter.js';
import { SkillCatalog } from '../../src/load/index.js';
import { FIXTURES } from './helpers.js';

const BOMB_DIR = join(FIXTURES, 'broken', 'alias-bomb', 'skills');
const BOMB = join(BOMB_DIR, 'laughs', 'SKILL.md');
const context = { path: '/skills/demo/SKILL.md', source: 'skills', rank: 5, defaultName: 'demo' } as const;
const parse = (text: string) => parseSkillFile(text, context);

/** A skill whose `hooks` is `levels` lists of `fanout` aliases to the list before. */
function aliasTree(levels: number, fanout: number): string {
  const lines = [`  l0: &l0 [${Array(fanout).fill('lol').join(', ')}]`];
  for (let level = 1; level < levels; level += 1) {
    lines.push(
      `  l${level}: &l${level} [${Array(fanout)
        .fill(`*l${level - 1}`)
        .join(', ')}]`,
    );
  }
  return `---\ndescription: aliases\nhooks:\n${lines.join('\n')}\n---\nbody\n`;
}

describe('YAML aliases in frontmatter are bounded', () => {
  it('a 561-byte alias bomb under hooks: the skill loads, its hooks are dropped with a warning', () => {
    const text = readFileSync(BOMB, 'utf8');
    expect(text.length).toBeLessThan(600);
    const { skill, diagnostics } = parseSkillFile(text, { ...context, path: BOMB });
    expect(skill).toMatchObject({ name: 'laughs', description: 'A skill whose hooks are a YAML alias bomb' });
    expect(skill).not.toHaveProperty('hooks');
    expect(diagnostics).toEqual([
      {
        code: 'too-large',
        path: BOMB,
        message: '`hooks` is larger than 65536 characters as JSON (YAML aliases count once per use); ignored',
        severity: 'warning',
      },
    ]);
  });

  it('the catalog (which fingerprints every skill) loads the bomb beside a good file', async () => {
    const catalog = new SkillCatalog({ skillsDirs: [BOMB_DIR], bundledDir: null, managedDir: null });
    try {
      const snapshot = await catalog.get();
      expect(snapshot.skills.map((skill) => skill.name)).toEqual(['laughs', 'ok']);
      expect(snapshot.diagnostics.map((d) => [d.code, d.path, d.severity])).toEqual([['too-large', BOMB, 'warning']]);
    } finally {
      await catalog.close();
    }
  });

  it('small aliases are kept, expanded into a plain copy that shares nothing', () => {
    const { skill, diagnostics } = parse('---\ndescription: d\nhooks:\n  pre: &run {type: command, command: lint}\n  post: *run\n---\n');
    expect(diagnostics).toEqual([]);
    const hooks = skill?.hooks as { pre: object; post: object };
    expect(hooks).toEqual({ pre: { type: 'command', command: 'lint' }, post: { type: 'command', command: 'lint' } });
    expect(hooks.pre).not.toBe(hooks.post);
  });

  it('a self-referencing alias (a cycle) and very deep nesting are dropped, not followed', () => {
    const cycle = parse('---\ndescription: d\nhooks: &loop [1, *loop]\n---\n');
    expect(cycle.skill?.description).toBe('d');
    expect(cycle.skill).not.toHaveProperty('hooks');
    expect(cycle.diagnostics.map((d) => d.message)).toEqual(['`hooks` nests deeper than 32 levels; ignored']);
    const deep = parse(`---\ndescription: d\nhooks: ${'['.repeat(40)}${']'.repeat(40)}\n---\n`);
    expect(deep.diagnostics.map((d) => d.message)).toEqual(['`hooks` nests deeper than 32 levels; ignored']);
  });

  it('fuzz: any alias tree loads, and keeps hooks only when their JSON fits the cap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 14 }), fc.integer({ min: 1, max: 12 }), (levels, fanout) => {
        const { skill, diagnostics } = parse(aliasTree(levels, fanout));
        expect(skill?.description).toBe('aliases');
        // The exact JSON length of the expanded tree: level 0 is ["lol",…], level n lists level n-1.
        let list = 2 + fanout * 5 + (fanout - 1);
        let expanded = 2 + (levels - 1);
        for (let level = 0; level < levels; level += 1) {
          if (level > 0) list = 2 + fanout * list + (fanout - 1);
          expanded += `"l${level}":`.length + list;
        }
        if (expanded > 65_536) {
          expect(skill).not.toHaveProperty('hooks');
          expect(diagnostics.map((d) => d.code)).toEqual(['too-large']);
        } else {
          expect(JSON.stringify(skill?.hooks).length).toBe(expanded);
          expect(diagnostics).toEqual([]);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('boundedJson', () => {
  it('writes exactly what JSON.stringify writes for values that fit', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        expect(boundedJson(value, { maxChars: 1e9, maxDepth: 100 })).toEqual({ ok: true, json: JSON.stringify(value) });
      }),
      { numRuns: 300 },
    );
    const date = new Date('2026-01-02T03:04:05Z');
    const odd = { when: date, nan: Number.NaN, skip: undefined, list: [undefined, Infinity] };
    expect(boundedJson(odd, { maxChars: 1000, maxDepth: 5 })).toEqual({ ok: true, json: JSON.stringify(odd) });
  });

  it('stops at the first character over the cap', () => {
    expect(boundedJson(['abc'], { maxChars: 7, maxDepth: 5 })).toEqual({ ok: true, json: '["abc"]' });
    expect(boundedJson(['abc'], { maxChars: 6, maxDepth: 5 })).toEqual({ ok: false, problem: 'too-large' });
  });
});
