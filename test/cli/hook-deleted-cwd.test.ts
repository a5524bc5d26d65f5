import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeDir, runCli, tempDir } from './helpers.js';

const home = tempDir('skill-search-gone-');
afterAll(() => removeDir(home));

describe('hook: the session folder was deleted (a removed worktree, a cleaned build folder)', () => {
  it("still suggests the user's skills and the parent project's, searched from the nearest folder that exists", async () => {
    const skill = (dir: string, name: string, description: string) => {
      mkdirSync(path.join(dir, name), { recursive: true });
      writeFileSync(path.join(dir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\nSteps.\n`);
    };
    skill(path.join(home, '.claude/skills'), 'pdf-forms', 'Fill in PDF forms and extract their fields');
    const project = path.join(home, 'project');
    skill(path.join(project, '.claude/skills'), 'sql-migrations', 'Write and run SQL schema migrations safely');
    const gone = path.join(project, 'worktrees', 'feature');
    mkdirSync(gone, { recursive: true });
    rmSync(path.join(project, 'worktrees'), { recursive: true });

    const hook = (prompt: string) =>
      runCli(['hook', 'claude-code', '--model', 'hash', '--mode', 'lexical'], home, {
        stdin: JSON.stringify({ hook_event_name: 'UserPromptSubmit', cwd: gone, prompt }),
        cwd: home,
      });
    const forms = await hook('fill in the PDF forms');
    expect(forms.code).toBe(0);
    expect(JSON.parse(forms.stdout).hookSpecificOutput.additionalContext).toContain('- pdf-forms:');
    expect(forms.stderr).toBe(`skill-search hook: the session's folder ${gone} no longer exists; searched from ${project}\n`);
    const migrations = await hook('write and run the SQL schema migrations');
    expect(JSON.parse(migrations.stdout).hookSpecificOutput.additionalContext).toContain('- sql-migrations:');
  });
});
