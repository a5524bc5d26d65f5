import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runClaudeCodeHook, type HookTurn } from '../../src/integrations/claude-code-hook.js';
import { claudeCodeName, writtenClaudeCodeName } from '../../src/integrations/invoked-skills.js';
import type { SearchHit, Skill } from '../../src/types.js';
import { removeDir, runCli, tempDir } from '../cli/helpers.js';

const dir = tempDir();
afterAll(() => removeDir(dir));

/** vercel's skill as published: folder `react-best-practices`, frontmatter name `vercel-react-best-practices`. */
const REACT: Skill = {
  name: 'vercel-react-best-practices',
  description: 'React and Next.js performance rules',
  source: 'skills',
  rank: 5,
  path: '/skills/react-best-practices/SKILL.md',
  id: 'vercel-react-best-practices',
  body: '',
  tokenEstimate: 1,
  contentHash: 'react',
};
const HITS: SearchHit[] = [{ skill: REACT, score: 0.9, via: ['dense'] }];

function transcriptInvoking(name: string): string {
  const file = path.join(dir, `${name}.jsonl`);
  const call = { type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Skill', input: { skill: name } }] } };
  writeFileSync(file, `${JSON.stringify(call)}\n`);
  return file;
}

async function hookAfter(invokedAs: string): Promise<{ stdout: string; turns: HookTurn[] }> {
  const turns: HookTurn[] = [];
  const input = JSON.stringify({
    session_id: 's',
    transcript_path: transcriptInvoking(invokedAs),
    hook_event_name: 'UserPromptSubmit',
    prompt: 'speed up my react app',
  });
  const { stdout } = await runClaudeCodeHook(input, {
    open: async () => ({ search: async () => HITS, close: async () => undefined }),
    k: 3,
    timeoutMs: 5000,
    log: () => undefined,
    onTurn: (turn) => turns.push(turn),
  });
  return { stdout, turns };
}

describe('claudeCodeName', () => {
  const named = (name: string, file: string, source: Skill['source'] = 'skills') => claudeCodeName({ name, path: file, source });

  it('a folder’s SKILL.md by its folder, a plugin’s under its namespace; other files keep their name', () => {
    expect(named('vercel-react-best-practices', '/s/react-best-practices/SKILL.md')).toBe('react-best-practices');
    expect(named('acme:vercel-react', '/p/skills/react/SKILL.md', 'plugin')).toBe('acme:react');
    expect(named('notes', '/s/notes.md')).toBe('notes');
    expect(named('a:b', '/c/a/b/SKILL.md', 'commands_DEPRECATED')).toBe('a:b');
  });
});

describe('an invocation under either name counts for the skill', () => {
  it('invoked under its folder name (as Claude Code lists it): not suggested again, and recorded under its catalog name', async () => {
    const { stdout, turns } = await hookAfter('react-best-practices');
    expect(stdout).toBe('');
    expect(turns.map((turn) => turn.invoked)).toEqual([['vercel-react-best-practices']]);
  });

  it('invoked under its frontmatter name: the same', async () => {
    const { stdout, turns } = await hookAfter('vercel-react-best-practices');
    expect(stdout).toBe('');
    expect(turns.map((turn) => turn.invoked)).toEqual([['vercel-react-best-practices']]);
  });

  it('another skill invoked: still suggested', async () => {
    const { stdout, turns } = await hookAfter('pdf-forms');
    expect(stdout).toContain('- vercel-react-best-practices: React and Next.js performance rules');
    expect(turns.map((turn) => turn.invoked)).toEqual([['pdf-forms']]);
  });

  it('through the CLI on real files: the hook does not suggest a skill invoked by its folder name', async () => {
    const skills = path.join(dir, 'skills');
    mkdirSync(path.join(skills, 'react-best-practices'), { recursive: true });
    writeFileSync(
      path.join(skills, 'react-best-practices', 'SKILL.md'),
      '---\nname: vercel-react-best-practices\ndescription: React component render performance rules, memo and bundle size\n---\n# React\n',
    );
    const cache = path.join(dir, 'cache');
    const argv = ['hook', 'claude-code', '--skills-dir', skills, '--model', 'hash', '--timeout-ms', '20000'];
    const input = (transcript: string) =>
      JSON.stringify({
        transcript_path: transcript,
        cwd: dir,
        hook_event_name: 'UserPromptSubmit',
        prompt: 'react component render performance and bundle size',
      });
    const fresh = await runCli(argv, cache, { stdin: input('/dev/null') });
    expect(fresh.stdout).toContain('vercel-react-best-practices');
    const after = await runCli(argv, cache, { stdin: input(transcriptInvoking('react-best-practices')) });
    expect(after).toMatchObject({ code: 0, stdout: '' });
  });
});

describe('writtenClaudeCodeName', () => {
  it('is the frontmatter name of a skill of its folders where it differs from the folder’s, as written', () => {
    const file = (folder: string, text: string) => {
      mkdirSync(path.join(dir, 'written', folder), { recursive: true });
      writeFileSync(path.join(dir, 'written', folder, 'SKILL.md'), text);
      return { name: folder, path: path.join(dir, 'written', folder, 'SKILL.md'), source: 'skills' as const };
    };
    expect(writtenClaudeCodeName(file('docs-translate', '---\nname: "acme-docs-translator"\ndescription: d\n---\n'))).toBe('acme-docs-translator');
    expect(writtenClaudeCodeName(file('same', '---\nname: same\ndescription: d\n---\n'))).toBeUndefined();
    expect(writtenClaudeCodeName(file('plain', 'No frontmatter.\n'))).toBeUndefined();
    expect(writtenClaudeCodeName({ name: 'gone', path: path.join(dir, 'written', 'gone', 'SKILL.md'), source: 'skills' })).toBeUndefined();
    // Not one of its folders' skills: a library skill keeps its frontmatter name as its catalog name.
    expect(writtenClaudeCodeName({ ...file('lib', '---\nname: lib-name\ndescription: d\n---\n'), source: 'library' })).toBeUndefined();
  });
});
