import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { socketPathFor } from '../../src/integrations/socket-protocol.js';
import { SkillSocketServer } from '../../src/integrations/socket-server.js';
import type { Skill } from '../../src/types.js';
import { SKILLS, removeDir, runCli, tempDir } from './helpers.js';

// Importing either module from this file's graph fails the command (exit 2), so these tests
// prove that `validate`, `list` and every `--help` stay clear of the model and the engine.
vi.mock('../../src/embed/resolve.js', () => {
  throw new Error('the embedder was imported');
});
vi.mock('../../src/search/index.js', () => {
  throw new Error('the search engine was imported');
});

const cache = tempDir();
afterAll(() => removeDir(cache));

describe('commands that need no model do not load one', () => {
  it.each([[['validate', '--skills-dir', SKILLS]], [['list', '--skills-dir', SKILLS]], [['query', '--help']], [['mcp', '--help']]])('%j', async (argv) => {
    const result = await runCli(argv, cache);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it.each([[['model', 'list']], [['model', 'info', 'gte-small']], [['model', 'rm', 'gte-small']]])('%j (model management)', async (argv) => {
    const result = await runCli(argv, cache);
    expect(result.stderr).not.toContain('internal error');
    expect(result.code).toBe(argv[1] === 'rm' ? 1 : 0);
  });

  it('the mock is live: query does load the engine', async () => {
    const result = await runCli(['query', '--skills-dir', SKILLS, '--model', 'hash', 'pdf'], cache);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^skill-search: internal error: .*mocking a module/);
  });

  it('a hook or query answered by a running server loads neither the model nor the engine', async () => {
    const indexDir = path.join(cache, 'served');
    const skill: Skill = {
      name: 'pdf-forms',
      description: 'Fill in PDF forms',
      source: 'skills',
      rank: 5,
      path: '/skills/pdf-forms/SKILL.md',
      id: 'pdf-forms',
      body: '',
      tokenEstimate: 1,
      contentHash: 'x',
    };
    const server = await SkillSocketServer.listen({
      path: socketPathFor(indexDir),
      searcher: { search: async () => [{ skill, score: 0.75, via: ['dense'] }] },
      size: () => 1,
      version: 'test',
    });
    try {
      const flags = ['--skills-dir', SKILLS, '--model', 'hash', '--index-dir', indexDir];
      const hook = await runCli(['hook', 'claude-code', ...flags], cache, {
        stdin: JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'fill a pdf form', transcript_path: '/dev/null' }),
      });
      expect(hook).toEqual({
        code: 0,
        stdout:
          '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"Skills relevant to your task:\\n\\n- pdf-forms: Fill in PDF forms"}}\n',
        stderr: '',
      });
      const query = await runCli(['query', ...flags, 'fill a pdf form'], cache);
      expect(query).toEqual({ code: 0, stdout: '1.  pdf-forms  0.750  skills  /skills/pdf-forms/SKILL.md\n', stderr: '' });
    } finally {
      await server.close();
    }
  });
});
