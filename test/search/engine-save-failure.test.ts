import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IndexFolder } from '../../src/index-folder/index-folder.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import { copyFixture, runCli, SKILLS as SKILL_TREE, tempDir, removeDir } from '../cli/helpers.js';
import { counting, makeSkill, SKILLS } from './fixtures.js';
import { useTempDirs } from '../support/temp-dirs.js';

const temp = useTempDirs('save-failure');
afterEach(() => vi.restoreAllMocks());

/** Every write into an index folder fails as on a full disk. */
function diskFull(): void {
  const enospc = (): never => {
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
  };
  vi.spyOn(IndexFolder.prototype, 'write').mockImplementation(enospc);
  vi.spyOn(IndexFolder.prototype, 'appendLog').mockImplementation(enospc);
  vi.spyOn(IndexFolder.prototype, 'commit').mockImplementation(enospc);
}

const extra = makeSkill({ name: 'kiln-schedule', description: 'Plan a pottery kiln firing schedule with cone temperatures' });

describe.each(['hnsw', 'exact'] as const)('a failed save of the index folder (%s)', (ann) => {
  it('costs no answer: the sync answers from memory, says why, and a later sync saves what was missed', async () => {
    const dir = temp();
    const engine = await SkillSearchEngine.open({ embedder: counting(), indexDir: dir, ann });
    await engine.sync(SKILLS);
    diskFull();
    expect(await engine.sync([...SKILLS, extra])).toMatchObject({ added: 1 });
    expect((await engine.search('pottery kiln firing schedule', { abstain: false }))[0]?.skill.name).toBe('kiln-schedule');
    expect(engine.saveProblem).toBe('ENOSPC: no space left on device, write');
    vi.restoreAllMocks();
    await engine.sync([...SKILLS, extra]);
    await engine.close();

    const embedder = counting();
    const reopened = await SkillSearchEngine.open({ embedder, indexDir: dir, ann });
    expect(await reopened.sync([...SKILLS, extra])).toMatchObject({ added: 0, updated: 0, embedded: 0 });
    expect((await reopened.search('pottery kiln firing schedule', { abstain: false }))[0]?.skill.name).toBe('kiln-schedule');
    await reopened.close();
  });
});

describe('query with a full disk', () => {
  it('answers, with one line saying the index was not saved', async () => {
    const cache = tempDir();
    const skills = copyFixture(SKILL_TREE);
    try {
      const base = ['--skills-dir', skills, '--model', 'hash', '--index-dir', path.join(cache, 'idx')];
      expect((await runCli(['index', ...base], cache)).code).toBe(0);
      mkdirSync(path.join(skills, 'kiln-schedule'));
      writeFileSync(path.join(skills, 'kiln-schedule', 'SKILL.md'), '---\nname: kiln-schedule\ndescription: Plan a pottery kiln firing schedule\n---\n');
      diskFull();
      const result = await runCli(['query', ...base, 'pottery kiln firing schedule'], cache);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^1\. {2}kiln-schedule /);
      expect(result.stderr).toBe(
        `skill-search: could not save the index in ${path.join(cache, 'idx')} (ENOSPC: no space left on device, write); answered from memory\n`,
      );
      const hook = await runCli(['hook', 'claude-code', ...base], cache, {
        stdin: JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'plan the pottery kiln firing schedule', cwd: skills }),
      });
      expect(hook.code).toBe(0);
      expect(hook.stdout).toContain('kiln-schedule');
      expect(hook.stderr).toBe(
        `skill-search hook: could not save the index in ${path.join(cache, 'idx')} (ENOSPC: no space left on device, write); answered from memory\n`,
      );
      const index = await runCli(['index', ...base], cache);
      expect(index).toMatchObject({ code: 1, stdout: '' });
      expect(index.stderr).toBe(`skill-search: could not save the index in ${path.join(cache, 'idx')} (ENOSPC: no space left on device, write)\n`);
    } finally {
      removeDir(cache);
      removeDir(skills);
    }
  });
});
