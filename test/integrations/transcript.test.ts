import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runClaudeCodeHook } from '../../src/integrations/claude-code-hook.js';
import { invokedSkillsInTranscript } from '../../src/integrations/transcript.js';
import type { SearchHit, Skill } from '../../src/types.js';
import { removeDir, tempDir } from '../cli/helpers.js';

const dir = tempDir();
afterAll(() => removeDir(dir));

const skillCall = (input: unknown, name = 'Skill') =>
  JSON.stringify({
    type: 'assistant',
    message: {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Using a skill.' },
        { type: 'tool_use', id: 'toolu_1', name, input },
      ],
    },
  });

/** Shaped like a Claude Code session: user turns, assistant turns with tool calls, tool results. */
const TRANSCRIPT = [
  JSON.stringify({ type: 'user', message: { role: 'user', content: 'fill in this pdf form please' } }),
  skillCall({ skill: 'pdf-forms' }),
  JSON.stringify({
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Launching skill: pdf-forms' }] },
  }),
  skillCall({ command: '/git-bisect' }),
  skillCall({ skill: 'not-a-skill-call' }, 'Bash'),
  skillCall({ skill: 42 }),
  '{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Skill","input":{"skill":"cut-off',
  'not json at all "Skill"',
  JSON.stringify({ type: 'summary', summary: 'Skill work' }),
  '',
].join('\n');

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('invokedSkillsInTranscript', () => {
  it('collects the skills the Skill tool was called with, and ignores everything else', async () => {
    expect([...(await invokedSkillsInTranscript(write('session.jsonl', TRANSCRIPT)))]).toEqual(['pdf-forms', 'git-bisect']);
  });

  it('reads only the end of a long transcript, from the first whole line', async () => {
    const early = skillCall({ skill: 'early-skill' });
    const late = skillCall({ skill: 'late-skill' });
    const file = write('long.jsonl', `${early}\n${late}\n`);
    // The window starts inside the first line: that line is dropped, not misread.
    expect([...(await invokedSkillsInTranscript(file, { maxBytes: late.length + 10 }))]).toEqual(['late-skill']);
  });

  it.each([
    ['no path', undefined],
    ['an empty path', ''],
    ['a missing file', path.join(dir, 'missing.jsonl')],
    ['a directory', dir],
    ['a binary file', 'binary'],
  ])('is empty for %s', async (_label, given) => {
    const file = given === 'binary' ? write('binary.jsonl', '\u0000\u0001\u0002"Skill"\u00ff') : given;
    expect([...(await invokedSkillsInTranscript(file))]).toEqual([]);
  });
});

describe('hook: skills invoked earlier in the session', () => {
  const skill = (name: string): Skill => ({
    name,
    description: `Does ${name}`,
    source: 'skills',
    rank: 5,
    path: `/skills/${name}/SKILL.md`,
    id: name,
    body: '',
    tokenEstimate: 1,
    contentHash: name,
  });
  const hits: SearchHit[] = [
    { skill: skill('pdf-forms'), score: 0.9, via: ['dense'] },
    { skill: skill('image-resize'), score: 0.5, via: ['dense'] },
  ];
  const run = (transcriptPath: string) =>
    runClaudeCodeHook(JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'fill the pdf form', transcript_path: transcriptPath }), {
      open: async () => ({ search: async () => hits, close: async () => undefined }),
      k: 3,
      timeoutMs: 5000,
      log: () => undefined,
    });

  it('are not announced again', async () => {
    const result = await run(write('invoked.jsonl', TRANSCRIPT));
    expect(JSON.parse(result.stdout).hookSpecificOutput.additionalContext).toBe('Skills relevant to your task:\n\n- image-resize: Does image-resize');
  });

  it('an unreadable transcript changes nothing', async () => {
    const result = await run(path.join(dir, 'nowhere.jsonl'));
    expect(JSON.parse(result.stdout).hookSpecificOutput.additionalContext).toBe(
      'Skills relevant to your task:\n\n- pdf-forms: Does pdf-forms\n- image-resize: Does image-resize',
    );
  });
});
