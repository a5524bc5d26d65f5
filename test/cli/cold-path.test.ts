import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { LiveIndex } from '../../src/integrations/live-index.js';
import { QUERIES, SKILLS, TOOLS, copyFixture, removeDir, runCli, tempDir } from './helpers.js';

// Importing zod or chokidar from this file's graph fails the command (exit 2): the hook and
// `query` run cold in every prompt, and zod alone costs more to load than their search. Only the
// MCP server, the Skill tool's JSON schema and eval's knob files use zod; only watching, chokidar.
vi.mock('zod', () => {
  throw new Error('zod was imported');
});
vi.mock('chokidar', () => {
  throw new Error('chokidar was imported');
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

/** A home and cache root of its own (an empty store). */
function freshHome(): string {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
}

const hookInput = (prompt: string) => ({ stdin: JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt, transcript_path: '/dev/null' }) });
const names = (stdout: string) => (JSON.parse(stdout) as { hits: { name: string }[] }).hits.map((hit) => hit.name);

describe('the cold paths: answered from the catalog saved in the store, loading neither zod nor chokidar', () => {
  // A user config file is read on both paths: its checks must not need zod either.
  mkdirSync(path.join(home, '.claude'));
  writeFileSync(path.join(home, '.claude', 'skill-search.json'), JSON.stringify({ exclude: ['release-notes'], sources: { codex: false } }));

  it('query: built live, then answered from the saved catalog', async () => {
    const { flags } = catalog();
    const live = vi.spyOn(LiveIndex, 'open');
    // Quiet: a loaded machine can stretch the build past the second after which progress shows.
    const first = await runCli(['query', ...flags, '--quiet', '--json', 'fill in the fields of a PDF form'], home);
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

  it('query: a skill edited since the saved catalog is searched at once, in a catalog assembled in the store (no live index)', async () => {
    const { skills, flags } = catalog();
    await runCli(['query', ...flags, '--json', 'fill in the fields of a PDF form'], home);
    writeFileSync(path.join(skills, 'pdf-forms', 'SKILL.md'), '---\nname: pdf-forms\ndescription: Compose a haiku about the weather\n---\n');
    const live = vi.spyOn(LiveIndex, 'open');
    const edited = await runCli(['query', ...flags, '--json', 'compose a haiku about the weather'], home);
    expect(live).not.toHaveBeenCalled();
    expect(names(edited.stdout)[0]).toBe('pdf-forms');
  });

  it('query: a search snapshot that fails mid-search gives way to the live index, as in the hook', async () => {
    const { flags } = catalog();
    await runCli(['query', ...flags, '--json', 'fill in the fields of a PDF form'], home);
    const live = vi.spyOn(LiveIndex, 'open');
    const opened = LiveIndex.openSnapshot;
    vi.spyOn(LiveIndex, 'openSnapshot').mockImplementationOnce(async (options) => {
      const snapshot = await opened(options);
      if ('reason' in snapshot) return snapshot;
      return { ...snapshot, search: () => Promise.reject(new Error('record 3 does not decode')) };
    });
    const result = await runCli(['query', ...flags, '--json', 'fill in the fields of a PDF form'], home);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(names(result.stdout)[0]).toBe('pdf-forms');
    expect(live).toHaveBeenCalledTimes(1);
  });

  it('hook: built live, then answered from the search snapshot', async () => {
    const { flags } = catalog();
    // A store of its own: over a store holding a catalog of this model, the first hook assembles one instead.
    const home = freshHome();
    const live = vi.spyOn(LiveIndex, 'open');
    const first = await runCli(['hook', 'claude-code', ...flags], home, hookInput('fill a pdf form'));
    const second = await runCli(['hook', 'claude-code', ...flags], home, hookInput('fill a pdf form'));
    expect(live).toHaveBeenCalledTimes(1);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('pdf-forms');
    expect(second).toEqual(first);
  });

  it('hook: a live search leaves the snapshot to a detached index run, started once, and the next prompt reads it', async () => {
    const { flags } = catalog();
    const home = freshHome();
    const live = vi.spyOn(LiveIndex, 'open');
    const spawned: (readonly string[])[] = [];
    const detached = { ...hookInput('fill a pdf form'), spawnDetached: (argv: readonly string[]) => void spawned.push(argv) };
    const first = await runCli(['hook', 'claude-code', ...flags], home, detached);
    expect([first.code, first.stderr]).toEqual([0, '']);
    expect(first.stdout).toContain('pdf-forms');
    expect(spawned).toHaveLength(1);
    expect(spawned[0]!.slice(0, 1)).toEqual(['index']);
    expect(spawned[0]).toEqual(expect.arrayContaining(['--index-dir', flags.at(-1)!, '--model', 'hash']));
    // Not written by the hook: the next prompt searches live again, and does not start a second writer.
    const second = await runCli(['hook', 'claude-code', ...flags], home, detached);
    expect(second).toEqual(first);
    expect([live.mock.calls.length, spawned.length]).toEqual([2, 1]);
    const index = await runCli(spawned[0]!, home);
    expect(index.code).toBe(0);
    const third = await runCli(['hook', 'claude-code', ...flags], home, detached);
    expect(third).toEqual(first);
    // One more live index: the index run's own.
    expect([live.mock.calls.length, spawned.length]).toEqual([3, 1]);
  });

  it('hook: after a skill was edited, the next prompt is answered from a catalog it assembles in the store, with no live index nor index run', async () => {
    const { skills, flags } = catalog();
    const home = freshHome();
    const spawned: (readonly string[])[] = [];
    const detached = (prompt: string) => ({ ...hookInput(prompt), spawnDetached: (argv: readonly string[]) => void spawned.push(argv) });
    await runCli(['hook', 'claude-code', ...flags], home, detached('fill a pdf form'));
    expect(spawned).toHaveLength(1);
    expect((await runCli(spawned[0]!, home)).code).toBe(0);
    writeFileSync(path.join(skills, 'pdf-forms', 'SKILL.md'), '---\nname: pdf-forms\ndescription: Compose a haiku about the weather\n---\n');
    const live = vi.spyOn(LiveIndex, 'open');
    const edited = await runCli(['hook', 'claude-code', ...flags], home, detached('compose a haiku about the weather'));
    expect([edited.code, edited.stderr]).toEqual([0, '']);
    expect(edited.stdout).toContain('pdf-forms');
    expect(live).not.toHaveBeenCalled();
    expect(spawned).toHaveLength(1);
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

  it('the mocks are live: eval, which reads a knob file with zod, fails on the import; so does the watcher', async () => {
    await expect(import('../../src/load/watcher.js')).rejects.toThrow(/error when mocking a module/);
    const result = await runCli(['eval', '--queries', QUERIES, '--skills-dir', SKILLS, '--model', 'hash', '--mode', 'lexical'], home);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^skill-search: internal error: .*mocking a module/);
  });
});
