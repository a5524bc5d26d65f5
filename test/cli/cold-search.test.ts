import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { LiveIndex } from '../../src/integrations/live-index.js';
import { SKILLS, copyFixture, removeDir, runCli, tempDir } from './helpers.js';

const cache = tempDir();
const dirs = [cache];
afterAll(() => dirs.forEach(removeDir));
afterEach(() => vi.restoreAllMocks());

/** A copy of the fixture skills with an index folder of its own, and the flags naming both. */
function catalog(): { skills: string; flags: string[] } {
  const skills = copyFixture(SKILLS);
  const indexDir = path.join(tempDir(), 'idx');
  dirs.push(skills, path.dirname(indexDir));
  return { skills, flags: ['--skills-dir', skills, '--model', 'hash', '--index-dir', indexDir] };
}

const hits = (stdout: string) => (JSON.parse(stdout) as { hits: unknown[] }).hits;
const hookInput = (prompt: string) => ({ stdin: JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt, transcript_path: '/dev/null' }) });

describe('a cold query or hook over an unchanged catalog', () => {
  it('query: answered from the search snapshot the previous process saved, as the live index answered; an edit is seen at once', async () => {
    const { skills, flags } = catalog();
    const live = vi.spyOn(LiveIndex, 'open');
    const first = await runCli(['query', ...flags, '--json', 'fill in the fields of a PDF form'], cache);
    expect(live).toHaveBeenCalledTimes(1);
    const second = await runCli(['query', ...flags, '--json', 'fill in the fields of a PDF form'], cache);
    expect(live).toHaveBeenCalledTimes(1);
    expect(hits(second.stdout)).toEqual(hits(first.stdout));
    expect(hits(second.stdout).length).toBeGreaterThan(0);

    writeFileSync(path.join(skills, 'release-notes', 'SKILL.md'), '---\nname: release-notes\ndescription: Compose a haiku about the weather\n---\n');
    const edited = await runCli(['query', ...flags, '--json', 'compose a haiku about the weather'], cache);
    expect(live).toHaveBeenCalledTimes(2);
    expect(hits(edited.stdout)[0]).toMatchObject({ name: 'release-notes' });
  });

  it('hook: the same answer from the snapshot as from the live index', async () => {
    const { flags } = catalog();
    const live = vi.spyOn(LiveIndex, 'open');
    const first = await runCli(['hook', 'claude-code', ...flags], cache, hookInput('fill a pdf form'));
    const second = await runCli(['hook', 'claude-code', ...flags], cache, hookInput('fill a pdf form'));
    expect(live).toHaveBeenCalledTimes(1);
    expect(second).toEqual(first);
    expect(first.stdout).toContain('pdf-forms');
  });
});
