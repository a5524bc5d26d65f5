import { afterAll, describe, expect, it, vi } from 'vitest';
import { SKILLS, removeDir, runCli, tempDir } from './helpers.js';

// Importing either module from this file's graph fails the command (exit 2), so these tests
// prove that `validate`, `list` and every `--help` stay clear of the model and the engine.
vi.mock('../../src/embed/index.js', () => {
  throw new Error('the embedder was imported');
});
vi.mock('../../src/search/index.js', () => {
  throw new Error('the search engine was imported');
});

const cache = tempDir();
afterAll(() => removeDir(cache));

describe('commands that need no model do not load one', () => {
  it.each([
    [['validate', '--skills-dir', SKILLS]],
    [['list', '--skills-dir', SKILLS]],
    [['query', '--help']],
    [['mcp', '--help']],
  ])('%j', async (argv) => {
    const result = await runCli(argv, cache);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('the mock is live: query does load the engine', async () => {
    const result = await runCli(['query', '--skills-dir', SKILLS, '--model', 'hash', 'pdf'], cache);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^skill-search: internal error: .*mocking a module/);
  });
});
