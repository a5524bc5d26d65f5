import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillSearchError } from '../../src/errors.js';
import { formatDiagnostic, loadToolsJsonl } from '../../src/load/index.js';
import { removeDir, tempDir, writeTree } from './helpers.js';

describe('loadToolsJsonl', () => {
  let root: string;
  beforeEach(async () => {
    root = await tempDir();
  });
  afterEach(() => removeDir(root));

  it('turns each line into a skill keyed by id, and diagnoses bad lines by file:line', async () => {
    const file = join(root, 'tools.jsonl');
    await writeTree(root, {
      'tools.jsonl': [
        '{"id":"weather.get","name":"weather","description":"Current weather for a city","whenToUse":"when asked about weather"}',
        '',
        '{"id":"weather.forecast","name":"weather","description":"Five-day forecast"}',
        'not json',
        '[1,2]',
        '{"id":"nodesc","name":"nodesc"}',
        '{"name":"only-name","description":"Uses its name as id","extra":{"ignored":true}}',
      ].join('\n'),
    });
    const result = await loadToolsJsonl(file);
    expect(result.skills.map((skill) => [skill.id, skill.name, skill.path, skill.source, skill.body])).toEqual([
      ['weather.get', 'weather', `tools:${file}#weather.get`, 'skills', ''],
      ['weather.forecast', 'weather', `tools:${file}#weather.forecast`, 'skills', ''],
      ['only-name', 'only-name', `tools:${file}#only-name`, 'skills', ''],
    ]);
    expect(result.skills[0]?.whenToUse).toBe('when asked about weather');
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([
      expect.stringMatching(new RegExp(`^skill-search: ${file}:4: not valid JSON: `)),
      `skill-search: ${file}:5: expected a JSON object, got a list`,
      `skill-search: ${file}:6: \`description\` is missing`,
    ]);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['bad-tools-line', 'bad-tools-line', 'missing-description']);
  });

  it('a missing tools file is a user error naming the file', async () => {
    const file = join(root, 'absent.jsonl');
    const error = await loadToolsJsonl(file).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SkillSearchError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', message: `skill-search: tools file not found: ${file}` });
    expect((error as SkillSearchError).isUserError).toBe(true);
  });
});
