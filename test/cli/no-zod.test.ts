import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { LiveIndex } from '../../src/integrations/live-index.js';
import { QUERIES, SKILLS, TOOLS, copyFixture, removeDir, runCli, tempDir } from './helpers.js';

// Importing zod from this file's graph fails the command (exit 2): the hook and `query` run cold
// in every prompt, and zod alone costs more to load than their search. Only the MCP server, the
// Skill tool's JSON schema and eval's knob files use it.
vi.mock('zod', () => {
  throw new Error('zod was imported');
});

const home = tempDir();
const dirs = [home];
afterAll(() => dirs.forEach(removeDir));
afterEach(() => vi.restoreAllMocks());

/** A copy of the fixture skills, a tools file and an index folder of their own, and the flags naming them. */
function catalog(): { skills: string; flags: string[] } {
  const skills = copyFixture(SKILLS);
  const indexDir = path.join(tempDir(), 'idx');
  dirs.push(skills, path.dirname(indexDir));
  return { skills, flags: ['--skills-dir', skills, '--tools', TOOLS, '--model', 'hash', '--index-dir', indexDir] };
}

const hookInput = (prompt: string) => ({ stdin: JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt, transcript_path: '/dev/null' }) });
const names = (stdout: string) => (JSON.parse(stdout) as { hits: { name: string }[] }).hits.map((hit) => hit.name);

describe('the cold paths load no zod', () => {
  // A user config file is read on both paths: its checks must not need zod either.
  mkdirSync(path.join(home, '.claude'));
  writeFileSync(path.join(home, '.claude', 'skill-search.json'), JSON.stringify({ exclude: ['release-notes'], sources: { codex: false } }));

  it('query: built live, then answered from the search snapshot', async () => {
    const { flags } = catalog();
    const live = vi.spyOn(LiveIndex, 'open');
    const first = await runCli(['query', ...flags, '--json', 'fill in the fields of a PDF form'], home);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const second = await runCli(['query', ...flags, '--json', 'fill in the fields of a PDF form'], home);
    expect(second.code).toBe(0);
    expect(names(second.stdout)).toEqual(names(first.stdout));
    expect(live).toHaveBeenCalledTimes(1);
    expect(names(first.stdout)[0]).toBe('pdf-forms');
    // The config file was applied, so it was read and checked.
    const notes = await runCli(['query', ...flags, '--json', 'draft the release notes from merged pull requests'], home);
    expect(notes.code).toBe(0);
    expect(names(notes.stdout)).not.toContain('release-notes');
  });

  it('hook: built live, then answered from the search snapshot', async () => {
    const { flags } = catalog();
    const live = vi.spyOn(LiveIndex, 'open');
    const first = await runCli(['hook', 'claude-code', ...flags], home, hookInput('fill a pdf form'));
    const second = await runCli(['hook', 'claude-code', ...flags], home, hookInput('fill a pdf form'));
    expect(live).toHaveBeenCalledTimes(1);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('pdf-forms');
    expect(second).toEqual(first);
  });

  it('a broken config file is still reported in one line, without zod', async () => {
    const project = tempDir();
    dirs.push(project);
    mkdirSync(path.join(project, '.claude'));
    const file = path.join(project, '.claude', 'skill-search.json');
    writeFileSync(file, JSON.stringify({ sources: { demo: 'sometimes' } }));
    const result = await runCli(['query', ...catalog().flags, 'pdf'], home, { cwd: project });
    expect(result).toEqual({ code: 1, stdout: '', stderr: `skill-search: ${file}: "sources.demo": Invalid option: expected one of "never"|"auto"|"always"\n` });
  });

  it('the mock is live: eval, which reads a knob file with zod, fails on the import', async () => {
    const result = await runCli(['eval', '--queries', QUERIES, '--skills-dir', SKILLS, '--model', 'hash', '--mode', 'lexical'], home);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^skill-search: internal error: .*mocking a module/);
  });
});
