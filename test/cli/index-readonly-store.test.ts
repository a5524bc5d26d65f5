import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers.js';
import { readOnlyCacheHome } from './read-only-cache.js';

const { home, cache, lock } = readOnlyCacheHome('skill-search-roindex-');

describe('index over a store that cannot be written', () => {
  it('stops at once with one line naming the store and the folder, before embedding anything', async (context) => {
    for (let i = 0; i < 3; i += 1) {
      mkdirSync(path.join(home, `.claude/skills/skill-${i}`), { recursive: true });
      writeFileSync(path.join(home, `.claude/skills/skill-${i}/SKILL.md`), `---\nname: skill-${i}\ndescription: does task ${i}\n---\n`);
    }
    mkdirSync(cache);
    try {
      lock();
    } catch {
      context.skip();
    }
    const out = await runCli(['index', '--model', 'hash'], home, { env: { SKILL_SEARCH_CACHE_DIR: cache }, cwd: home });
    expect(out).toMatchObject({ code: 1, stdout: '' });
    expect(out.stderr).toMatch(
      new RegExp(
        `^skill-search: cannot save the index: ${cache}/store\\.sqlite cannot be written \\(${cache}: E[A-Z]+\\); make it writable, or point SKILL_SEARCH_CACHE_DIR at a folder of yours\\n$`,
      ),
    );
  });

  it('stops at once, the same way, when SKILL_SEARCH_CACHE_DIR names a file (it embedded every skill, then failed on mkdir EEXIST)', async () => {
    const notFolder = path.join(home, 'cache-file');
    writeFileSync(notFolder, 'not a folder');
    const out = await runCli(['index', '--model', 'hash'], home, { env: { SKILL_SEARCH_CACHE_DIR: notFolder }, cwd: home });
    expect(out).toEqual({
      code: 1,
      stdout: '',
      stderr: `skill-search: cannot save the index: ${notFolder}/store.sqlite cannot be written (${notFolder}: ENOTDIR); make it writable, or point SKILL_SEARCH_CACHE_DIR at a folder of yours\n`,
    });
  });
});
