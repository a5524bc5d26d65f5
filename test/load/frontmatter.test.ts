import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseSkillFile, type ParseContext } from '../../src/load/frontmatter.js';

const context: ParseContext = { path: '/skills/demo/SKILL.md', source: 'skills', rank: 5, defaultName: 'demo' };

function parse(text: string, overrides: Partial<ParseContext> = {}) {
  return parseSkillFile(text, { ...context, ...overrides });
}

describe('parseSkillFile', () => {
  it('reads every field and keeps the body out of the indexed text', () => {
    const { skill, diagnostics } = parse(
      '---\nname: systematic-debugging\ndescription: Systematic debugging workflow\nwhenToUse: when a bug shows up\neffort: high\n---\n# Steps\nReproduce first.\n',
    );
    expect(diagnostics).toEqual([]);
    const indexed = 'systematic-debugging\nSystematic debugging workflow\nwhen a bug shows up';
    expect(skill).toEqual({
      name: 'systematic-debugging',
      description: 'Systematic debugging workflow',
      whenToUse: 'when a bug shows up',
      whenToUseKey: 'whenToUse',
      effort: 'high',
      source: 'skills',
      rank: 5,
      path: '/skills/demo/SKILL.md',
      id: 'systematic-debugging',
      body: '# Steps\nReproduce first.\n',
      tokenEstimate: Math.ceil(indexed.length / 4),
      contentHash: createHash('sha256').update(indexed).digest('hex'),
    });
  });

  it('defaults the name and hashes an absent whenToUse as an empty line', () => {
    const { skill } = parse('---\ndescription: Only a description\n---\n');
    expect(skill?.name).toBe('demo');
    expect(skill?.contentHash).toBe(createHash('sha256').update('demo\nOnly a description\n').digest('hex'));
    expect(skill).not.toHaveProperty('whenToUse');
  });

  it('accepts when_to_use and a mixed-case effort', () => {
    const { skill } = parse('---\ndescription: d\nwhen_to_use: when snake case\neffort: Medium\n---\n');
    expect(skill?.whenToUse).toBe('when snake case');
    expect(skill?.effort).toBe('medium');
  });

  it('coerces numbers and lists to text', () => {
    expect(parse('---\nname: 7\ndescription: 3.5\n---\n').skill).toMatchObject({ name: '7', description: '3.5' });
    expect(parse('---\ndescription: [read pdfs, fill forms]\n---\n').skill?.description).toBe('read pdfs, fill forms');
  });

  it.each([
    ['missing', '---\nname: x\n---\n', 'missing-description', '`description` is missing'],
    ['null', '---\ndescription: ~\n---\n', 'missing-description', '`description` is missing'],
    ['empty', "---\ndescription: ''\n---\n", 'missing-description', '`description` is empty'],
    ['a mapping', '---\ndescription: {a: 1}\n---\n', 'bad-field', '`description` must be text, got a mapping'],
  ])('rejects a %s description', (_label, text, code, message) => {
    expect(parse(text)).toEqual({
      skill: undefined,
      diagnostics: [{ code, path: context.path, message, severity: 'error' }],
    });
  });

  it('ignores a bad effort with a warning', () => {
    const { skill, diagnostics } = parse('---\ndescription: d\neffort: 11\n---\n');
    expect(skill).toBeDefined();
    expect(skill).not.toHaveProperty('effort');
    expect(diagnostics).toEqual([
      {
        code: 'bad-effort',
        path: context.path,
        message: '`effort` must be one of low, medium, high, got 11; ignored',
        severity: 'warning',
      },
    ]);
  });

  it('never evaluates ---js frontmatter', () => {
    const flag = '__skillSearchJsRan';
    const text = `---js\n{ description: (globalThis.${flag} = true, 'ran') }\n---\nbody`;
    const result = parse(text);
    expect((globalThis as Record<string, unknown>)[flag]).toBeUndefined();
    expect(result.skill).toBeUndefined();
    expect(result.diagnostics).toEqual([
      {
        code: 'bad-yaml',
        path: context.path,
        message: '`---js` frontmatter is never evaluated; write the frontmatter in YAML',
        severity: 'error',
      },
    ]);
    expect(parse(`---javascript\n{ description: (globalThis.${flag} = true, 'ran') }\n---\n`).skill).toBeUndefined();
    expect((globalThis as Record<string, unknown>)[flag]).toBeUndefined();
  });

  it('reports invalid YAML as one line that ends in the reason, not in the excerpt it dropped', () => {
    const result = parse('---\ndescription: [unclosed\n---\nbody');
    expect(result.skill).toBeUndefined();
    const [problem] = result.diagnostics;
    expect(problem?.code).toBe('bad-yaml');
    expect(problem?.message).toMatch(/^frontmatter is not valid YAML: \S.*[^:\s]$/);
    expect(problem?.message).not.toContain('\n');
  });

  it('does not cache by input (a second parse of the same text sees its own context)', () => {
    const text = '---\ndescription: same text\n---\n';
    expect(parse(text, { defaultName: 'first' }).skill?.name).toBe('first');
    expect(parse(text, { defaultName: 'second' }).skill?.name).toBe('second');
  });

  it('keeps hooks as inert data', () => {
    const { skill } = parse('---\ndescription: d\nhooks:\n  PostToolUse:\n    - matcher: Write\n      command: touch /tmp/pwned\n---\n');
    expect(skill?.hooks).toEqual({ PostToolUse: [{ matcher: 'Write', command: 'touch /tmp/pwned' }] });
  });

  it.each([
    ['a newline', 'name: "two\\nlines"', 'name "two\\nlines" contains a newline or control character'],
    ['an escape character', 'name: "esc\\e[31m"', 'name "esc\\u001b[31m" contains a newline or control character'],
    ['a line separator', 'name: "sep\\Lx"', 'name "sep\\u2028x" contains a newline or control character'],
    ['too many characters', `name: ${'n'.repeat(129)}`, 'name is 129 characters long; the limit is 128'],
  ])('rejects a name with %s', (_label, line, message) => {
    expect(parse(`---\n${line}\ndescription: d\n---\n`).diagnostics).toEqual([{ code: 'bad-field', path: context.path, message, severity: 'error' }]);
  });

  it('caps a 10 MB body at the body limit with a warning', () => {
    const body = 'x'.repeat(10 * 1024 * 1024);
    const { skill, diagnostics } = parse(`---\ndescription: huge\n---\n${body}`);
    expect(skill?.body.length).toBe(1024 * 1024);
    expect(diagnostics).toEqual([
      {
        code: 'too-large',
        path: context.path,
        message: 'body is larger than 1048576 bytes; cut to that size',
        severity: 'warning',
      },
    ]);
  });

  it('cuts a body on a character boundary', () => {
    const limits = { maxNameLength: 128, maxDescriptionChars: 4096, maxBodyBytes: 5, maxHooksJsonChars: 65536 };
    expect(parse('---\ndescription: d\n---\nabcdé', { limits }).skill?.body).toBe('abcd');
  });

  it('strips a byte order mark and handles CRLF', () => {
    const { skill } = parse('\uFEFF---\r\nname: crlf\r\ndescription: windows file\r\n---\r\nbody\r\n');
    expect(skill).toMatchObject({ name: 'crlf', description: 'windows file', body: 'body\r\n' });
  });

  it('reports a frontmatter that is never closed', () => {
    expect(parse('---\ndescription: open\n').diagnostics[0]?.message).toBe('frontmatter starts with `---` but is never closed');
  });

  it('treats a leading horizontal rule as body, not frontmatter', () => {
    expect(parse('----\ntext\n').diagnostics[0]?.code).toBe('missing-description');
  });
});
