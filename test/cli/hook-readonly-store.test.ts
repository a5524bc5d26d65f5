import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers.js';
import { readOnlyCacheHome } from './read-only-cache.js';

const { home, cache, lock } = readOnlyCacheHome('skill-search-rostore-');

describe('hook: a store that cannot be written', () => {
  it('says so when the prompt runs out of time, instead of sending the user to an index that cannot be saved', async (context) => {
    mkdirSync(path.join(home, '.claude/skills/pdf-forms'), { recursive: true });
    writeFileSync(path.join(home, '.claude/skills/pdf-forms/SKILL.md'), '---\nname: pdf-forms\ndescription: Fill in PDF forms\n---\n');
    mkdirSync(cache);
    try {
      lock();
    } catch {
      context.skip();
    }
    const out = await runCli(['hook', 'claude-code', '--model', 'hash', '--timeout-ms', '1'], home, {
      env: { SKILL_SEARCH_CACHE_DIR: cache },
      cwd: home,
      stdin: JSON.stringify({ hook_event_name: 'UserPromptSubmit', cwd: home, prompt: 'fill in the PDF form' }),
    });
    expect(out.code).toBe(0);
    expect(out.stderr).toContain('skill-search hook: no answer within 1 ms; skipped');
    expect(out.stderr).toMatch(
      new RegExp(
        `^skill-search hook: the store ${cache}/store\\.sqlite cannot be written \\(${cache}: E[A-Z]+\\): every prompt embeds the skills again; 'skill-search doctor search' says how to fix it$`,
        'm',
      ),
    );
  });
});
