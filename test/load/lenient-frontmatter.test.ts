import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseSkillFile, type ParseContext } from '../../src/load/frontmatter.js';
import { SkillCatalog } from '../../src/load/index.js';
import { removeDir, runCli, tempDir } from '../cli/helpers.js';
import { writeTree } from './helpers.js';

const context: ParseContext = { path: '/skills/pdf/SKILL.md', source: 'skills', rank: 5, defaultName: 'pdf' };
const parse = (text: string, extra: Partial<ParseContext> = {}) => parseSkillFile(text, { ...context, ...extra });
const EXAMPLE_SKILLS = fileURLToPath(new URL('../../examples/project/.claude/skills', import.meta.url));

describe('frontmatter that is not valid YAML is read line by line', () => {
  it('an unquoted ": " in the description: the skill loads, with a warning naming the line', () => {
    const { skill, diagnostics } = parse(
      '---\nname: pdf-forms\ndescription: Fill PDF forms: text, checkboxes\nwhen_to_use: when a form: arrives\neffort: High\n---\n# Body\n',
    );
    expect(skill).toMatchObject({
      name: 'pdf-forms',
      description: 'Fill PDF forms: text, checkboxes',
      whenToUse: 'when a form: arrives',
      effort: 'high',
      body: '# Body\n',
    });
    expect(diagnostics).toEqual([
      {
        code: 'bad-yaml',
        path: context.path,
        message: 'frontmatter is not valid YAML: line 3 has an unquoted ": " in a value; read as plain `key: value` lines instead (quote such values)',
        severity: 'warning',
      },
    ]);
  });

  it('says what the hosts do with YAML broken otherwise (an unterminated quote): neither reads it as we do', () => {
    const { skill, diagnostics } = parse('---\nname: quoted\ndescription: "unterminated\n---\n# Quoted\n');
    expect(skill).toMatchObject({ name: 'quoted' });
    expect(diagnostics.map((entry) => entry.message)).toEqual([
      expect.stringMatching(
        /^frontmatter is not valid YAML: .+; read as plain `key: value` lines instead \(Codex skips this file and Claude Code reads none of its frontmatter: fix the YAML\)$/,
      ),
    ]);
  });

  it('reads quoted values, folded and literal blocks, continuation lines and CRLF', () => {
    const { skill } = parse(
      "---\r\nname: 'it''s: fine'\r\ndescription: >\r\n  Folded: one\r\n  two\r\nwhenToUse: first: line\r\n  second line\r\nhooks: ignored: here\r\n---\r\nbody",
    );
    expect(skill).toMatchObject({ name: "it's: fine", description: 'Folded: one two', whenToUse: 'first: line second line', body: 'body' });
    expect(skill).not.toHaveProperty('hooks');
    const literal = parse('---\ndescription: |\n  line one: a\n  line two\nname: lit: x\n---\n');
    expect(literal.skill?.description).toBe('line one: a\nline two');
  });

  it('a value that starts like YAML syntax is not guessed at: without a description the YAML error stands', () => {
    const { skill, diagnostics } = parse('---\ndescription: [never closed\nname: x: y\n---\n');
    expect(skill).toBeUndefined();
    expect(diagnostics.map((d) => [d.code, d.severity])).toEqual([['bad-yaml', 'error']]);
    expect(diagnostics[0]?.message).toMatch(/^frontmatter is not valid YAML: .* \(line \d+\)$/);
  });

  it("the repository's own examples/project loads every skill", async () => {
    const catalog = new SkillCatalog({ skillsDirs: [EXAMPLE_SKILLS], bundledDir: null, managedDir: null });
    try {
      const snapshot = await catalog.get();
      expect(snapshot.skills.map((skill) => skill.name).sort()).toEqual([
        'accessibility-audit',
        'api-design',
        'changelog',
        'docker-deploy',
        'i18n',
        'sql-migration',
      ]);
      expect(snapshot.skills.find((skill) => skill.name === 'api-design')?.description).toBe(
        'Design REST and JSON HTTP APIs: resource naming, pagination, error format, versioning and idempotency',
      );
      expect(snapshot.diagnostics.map((d) => [d.code, d.severity])).toEqual([
        ['bad-yaml', 'warning'],
        ['bad-yaml', 'warning'],
      ]);
    } finally {
      await catalog.close();
    }
  });
});

describe('frontmatter larger than what is read', () => {
  it('says it is too large, with the limit, instead of "never closed"', () => {
    const limits = { maxNameLength: 128, maxDescriptionChars: 4096, maxBodyBytes: 1000, maxHooksJsonChars: 65536 };
    const text = `---\ndescription: d\nnotes: ${'x'.repeat(2000)}`;
    expect(parse(text, { truncated: true, limits }).diagnostics).toEqual([
      {
        code: 'too-large',
        path: context.path,
        message: 'frontmatter is too large: no closing `---` in the first 66536 bytes (the body limit plus 65536 for frontmatter)',
        severity: 'error',
      },
    ]);
    expect(parse(text, { limits }).diagnostics[0]?.message).toBe('frontmatter starts with `---` but is never closed');
  });
});

describe('query, list and index say when skill files were skipped', () => {
  it.each([['list'], ['query'], ['index']])('%s', async (command) => {
    const cache = tempDir();
    const skills = tempDir();
    try {
      await writeTree(skills, {
        'good/SKILL.md': '---\ndescription: Fill in PDF forms\n---\n',
        'bad/SKILL.md': '---\ndescription: [never closed\n---\n',
        'worse/SKILL.md': '---\nname: worse\n---\n',
      });
      const argv = [command!, '--skills-dir', skills, ...(command === 'list' ? [] : ['--model', 'hash']), ...(command === 'query' ? ['pdf form'] : [])];
      const result = await runCli(argv, cache);
      expect(result.code).toBe(0);
      expect(result.stderr.split('\n')).toContain('skill-search: 2 skill files could not be loaded; run `skill-search validate`');
    } finally {
      removeDir(cache);
      removeDir(skills);
    }
  });
});
