import { describe, expect, it } from 'vitest';
import { CONVERSATION_WEIGHT, conversationQuery, isFollowUp, mergeRankings, withConversation } from '../../src/integrations/follow-up.js';
import { runClaudeCodeHook } from '../../src/integrations/claude-code-hook.js';
import { hookHit } from '../support/hook-skills.js';
import type { SearchHit } from '../../src/types.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll } from 'vitest';
import { removeDir, tempDir } from '../cli/helpers.js';

const hit = hookHit;

describe('isFollowUp: at most 3 words, or at most 12 words (160 characters) with a referring word or a continuing start', () => {
  it.each([
    ['now do the same for the staging cluster', true],
    ['and for staging', true],
    ['again please', true],
    ['do it for the other service too', true],
    ['fix that one as well please', true],
    ['and the next pull request?', true],
    ['then deploy the branch to production', true],
    ['deploy the branch to production right away', false],
    ['fill in the pdf form with the client address', false],
    ['write a function that parses the log file and reports every error it finds by severity and date', false],
    ['', false],
    // Thanks and acknowledgements ask for nothing: they are not searched with the turns before.
    ['thanks', false],
    ['Thank you!', false],
    ['ok', false],
    ['great, thanks', false],
    ['perfect 👍', false],
    ['ok, again for v2.4', true],
  ])('%j → %s', (prompt, expected) => {
    expect(isFollowUp(prompt)).toBe(expected);
  });

  it('a long prompt is never one, whatever its words', () => {
    expect(isFollowUp(`do the same ${'x'.repeat(200)}`)).toBe(false);
  });
});

describe('mergeRankings', () => {
  it('the prompt leads: a skill it finds keeps its place over one the conversation finds as strongly', () => {
    const merged = mergeRankings([hit('own', 0.6)], [hit('context', 0.9), hit('own', 0.2)], 0.5);
    // Also with the hook's weight: a context-only hit (0.7 × 0.8) stays below a prompt hit of 0.6.
    expect(mergeRankings([hit('own', 0.6)], [hit('context', 0.8)], CONVERSATION_WEIGHT).map((h) => h.skill.name)).toEqual(['own', 'context']);
    expect(merged.map((h) => [h.skill.name, h.score])).toEqual([
      ['own', 0.7],
      ['context', 0.45],
    ]);
  });

  it('with nothing from the prompt, the conversation still ranks, at most k', () => {
    const merged = mergeRankings([], [hit('a', 0.8), hit('b', 0.6), hit('c', 0.4)], 0.5, 2);
    expect(merged.map((h) => h.skill.name)).toEqual(['a', 'b']);
  });
});

describe('withConversation', () => {
  it('searches the prompt alone and with the turns, and merges; other queries pass through', async () => {
    const asked: string[] = [];
    const inner = {
      search: async (query: string) => {
        asked.push(query);
        return query.includes('helm') ? [hit('helm-deploy', 0.8)] : [];
      },
    };
    const searcher = withConversation(inner, 'now do the same for staging', ['deploy the api with helm']);
    expect((await searcher.search(' now do the same for staging ')).map((h) => [h.skill.name, h.score])).toEqual([['helm-deploy', 0.8 * CONVERSATION_WEIGHT]]);
    expect(asked).toEqual([' now do the same for staging ', conversationQuery(['deploy the api with helm'], ' now do the same for staging ')]);
    await searcher.search('something else');
    expect(asked.at(-1)).toBe('something else');
  });

  it('keeps a prompt that names a skill to that skill', async () => {
    const named: SearchHit = { ...hit('pdf', 1), via: ['exact'] };
    const inner = { search: async (query: string) => (query.includes('helm') ? [named, hit('helm-deploy', 0.9)] : [named]) };
    const searcher = withConversation(inner, 'use the pdf skill', ['deploy the api with helm']);
    expect((await searcher.search('use the pdf skill')).map((h) => h.skill.name)).toEqual(['pdf']);
  });
});

describe('hook: a follow-up prompt is searched with the recent turns', () => {
  const dir = tempDir();
  afterAll(() => removeDir(dir));
  const user = (content: string) => JSON.stringify({ type: 'user', message: { role: 'user', content } });

  async function run(prompt: string, lines: readonly string[]) {
    const file = path.join(dir, `${Math.random()}.jsonl`);
    writeFileSync(file, lines.join('\n'));
    const queries: string[] = [];
    const result = await runClaudeCodeHook(JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt, transcript_path: file }), {
      open: async () => ({
        search: async (query: string) => {
          queries.push(query);
          return query.includes('helm') ? [hit('helm-deploy', 0.8)] : [];
        },
        close: async () => undefined,
      }),
      k: 3,
      timeoutMs: 5000,
      log: () => undefined,
    });
    return { result, queries };
  }

  it('finds the skill the earlier turn asked for (the prompt itself, already written by the host, is not doubled)', async () => {
    const prompt = 'now do the same for the staging cluster';
    const { result, queries } = await run(prompt, [user('deploy the api to production with helm'), user(prompt)]);
    expect(result.stdout).toContain('helm-deploy');
    expect(queries).toEqual([prompt, `deploy the api to production with helm\n${prompt}`]);
  });

  it('"thanks" after a skill request is searched alone: it suggests nothing', async () => {
    const { result, queries } = await run('thanks!', [user('deploy the api to production with helm')]);
    expect(result.stdout).toBe('');
    expect(queries).toEqual(['thanks!']);
  });

  it('a prompt that is not a follow-up is searched alone', async () => {
    const prompt = 'rotate the database credentials in the vault';
    const { result, queries } = await run(prompt, [user('deploy the api to production with helm')]);
    expect(result.stdout).toBe('');
    expect(queries).toEqual([prompt]);
  });
});
