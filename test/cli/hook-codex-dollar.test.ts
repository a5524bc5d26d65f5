import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeDir, runCli, tempDir } from './helpers.js';

const home = tempDir('skill-search-dollar-');
afterAll(() => removeDir(home));

const skill = (dir: string, name: string, description: string) => {
  mkdirSync(path.join(dir, name), { recursive: true });
  writeFileSync(path.join(dir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\nSteps.\n`);
};

describe('hook codex: a prompt that runs a skill with $name', () => {
  // Codex lists ~/.agents/skills itself and runs `$checklist` (a plain word, which the search does not read as naming the
  // skill, as it reads a distinctive name like `release-check`); the library is found by search only.
  skill(path.join(home, '.agents/skills'), 'checklist', 'Lint helm charts against the team checklist');
  skill(path.join(home, '.config/skill-search/library'), 'helm-charts', 'Write and lint helm charts for kubernetes releases');
  skill(path.join(home, '.config/skill-search/library'), 'pdf-forms', 'Fill in PDF forms');
  const hook = (host: string, prompt: string) =>
    runCli(['hook', host, '--model', 'hash'], home, {
      stdin: JSON.stringify({ hook_event_name: 'UserPromptSubmit', cwd: home, prompt }),
      cwd: home,
      env: { CODEX_HOME: path.join(home, '.codex') },
    });

  it('gets nothing else, as /name does in Claude Code: the user chose the skill', async () => {
    expect((await hook('codex', 'write and lint helm charts for kubernetes releases')).stdout).toContain('- helm-charts:');
    const ran = await hook('codex', '$checklist write and lint helm charts for kubernetes releases');
    expect(ran).toMatchObject({ code: 0, stdout: '' });
  });

  it('still gets a skill the same prompt names', async () => {
    const both = await hook('codex', '$checklist write and lint helm charts for kubernetes releases, then use the pdf-forms skill');
    const context = JSON.parse(both.stdout).hookSpecificOutput.additionalContext as string;
    expect(context).toContain('- pdf-forms:');
    expect(context).not.toContain('helm-charts');
  });
});
