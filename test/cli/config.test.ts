import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeDir, runCli, tempDir } from './helpers.js';

let home: string;
let project: string;
const cli = (argv: string[], stdin?: string) => runCli(argv, home, { env: { PATH: '' }, cwd: project, ...(stdin === undefined ? {} : { stdin }) });
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
};
const writeSkill = (dir: string, name: string, description: string) =>
  write(path.join(dir, name, 'SKILL.md'), `---\ndescription: ${description}\n---\nSteps.\n`);
const userConfig = () => path.join(home, '.claude', 'skill-search.json');
const projectConfig = () => path.join(project, '.claude', 'skill-search.json');

beforeEach(() => {
  home = tempDir('skill-search-config-');
  project = path.join(home, 'project');
  mkdirSync(project, { recursive: true });
  const skills = path.join(home, '.claude', 'skills');
  writeSkill(skills, 'pdf-forms', 'Fill in PDF forms');
  writeSkill(skills, 'pdf-tables', 'Extract tables from PDF files');
  writeSkill(path.join(home, 'lib'), 'xlsx', 'Read and write Excel spreadsheets');
  writeSkill(path.join(project, '.agents', 'skills'), 'lint', 'Lint the code');
});
afterEach(() => removeDir(home));

const names = async (argv: string[] = []) =>
  (JSON.parse((await cli(['list', '--json', ...argv])).stdout) as { skills: { name: string }[] }).skills.map((skill) => skill.name);

describe('config files', () => {
  it('merges user and project files: lists add up, the project wins for switches; config says where each value came from', async () => {
    write(userConfig(), JSON.stringify({ exclude: ['pdf-forms'], pin: ['xlsx'], library: ['../lib'], sources: { codex: true } }));
    write(projectConfig(), JSON.stringify({ never: ['pdf-*'], sources: { codex: false } }));
    expect(await names()).toEqual(['pdf-tables', 'xlsx']);
    const shown = await cli(['config']);
    expect(shown.stdout.split('\n')).toEqual([
      `files: ~/.claude/skill-search.json, ~/project/.claude/skill-search.json`,
      'include: (none)',
      'exclude: "pdf-forms"  ~/.claude/skill-search.json',
      'pin: "xlsx"  ~/.claude/skill-search.json',
      'never: "pdf-*"  ~/project/.claude/skill-search.json',
      `library: ${JSON.stringify(path.join(home, 'lib'))}  ~/.claude/skill-search.json`,
      'sources.claudePlugins: true  (default)',
      'sources.codex: false  ~/project/.claude/skill-search.json',
      'sources.library: true  (default)',
      'sources.demo: (per command: auto; never for hook and mcp)  (default)',
      `library folders in use: ${path.join(home, 'lib')}`,
      '',
    ]);
  });

  it('config marks a library folder of the config that is missing or not a folder (nothing reads it)', async () => {
    write(path.join(home, 'a-file'), 'not a folder');
    write(userConfig(), JSON.stringify({ library: ['../lib', '../no-lib', '../a-file'] }));
    const shown = (await cli(['config'])).stdout.split('\n');
    expect(shown.filter((text) => text.startsWith('library'))).toEqual([
      `library: ${JSON.stringify(path.join(home, 'lib'))}  ~/.claude/skill-search.json`,
      `library: ${JSON.stringify(path.join(home, 'no-lib'))}  ~/.claude/skill-search.json  (no such folder: not read)`,
      `library: ${JSON.stringify(path.join(home, 'a-file'))}  ~/.claude/skill-search.json  (is not a folder: not read)`,
      `library folders in use: ${path.join(home, 'lib')}`,
    ]);
  });

  it('include keeps only matching skills; a pattern with a slash matches the path', async () => {
    write(projectConfig(), JSON.stringify({ include: ['pdf-*', '**/.agents/skills/**'] }));
    expect(await names()).toEqual(['pdf-forms', 'pdf-tables', 'lint']);
  });

  it('validate says how many skills include/exclude left out, in its summary and --json', async () => {
    write(userConfig(), JSON.stringify({ exclude: ['pdf-*'] }));
    const text = await cli(['validate']);
    expect(text.stdout).toMatch(/^1 skill loaded; 0 errors, 0 warnings, 0 shadowed, 2 left out by the config's include\/exclude$/m);
    expect(JSON.parse((await cli(['validate', '--json'])).stdout)).toMatchObject({ skills: 1, excluded: 2 });
    write(userConfig(), JSON.stringify({}));
    expect((await cli(['validate'])).stdout).toMatch(/^3 skills loaded; 0 errors, 0 warnings, 0 shadowed$/m);
  });

  it('pin keeps a skill in the narrowed listing and in the tokens after-side; never keeps it out of the hook', async () => {
    write(userConfig(), JSON.stringify({ pin: ['xlsx'], never: ['pdf-forms'], library: ['../lib'] }));
    expect(await names(['--experimental'])).toEqual(['xlsx']);
    const cost = JSON.parse((await cli(['tokens', '--json'])).stdout);
    // pdf-forms and pdf-tables (Claude Code lists them), xlsx (pinned); not lint (a Codex folder).
    expect([cost.before.skills, cost.after.skills]).toEqual([4, 3]);
    const prompt = JSON.stringify({ hook_event_name: 'UserPromptSubmit', cwd: project, prompt: 'fill in the PDF forms and extract the tables' });
    const hook = await cli(['hook', 'claude-code', '--model', 'hash', '--mode', 'lexical'], prompt);
    const context = JSON.parse(hook.stdout).hookSpecificOutput.additionalContext as string;
    expect(context).toContain('- pdf-tables:');
    expect(context).not.toContain('pdf-forms');
  });

  it.each([
    ['{"pin": "xlsx"}', '"pin": Invalid input: expected array, received string'],
    ['{"sources": {"codex": "no"}}', '"sources.codex": Invalid input: expected boolean, received string'],
    ['{"pins": []}', '"pins": unknown key (did you mean "pin"?)'],
    ['{"sources": {"libary": true}}', '"sources.libary": unknown key (did you mean "library"?)'],
    ['{"frobnicate": []}', '"frobnicate": unknown key'],
    ['{"never": [""]}', '"never[0]": expected a non-empty pattern'],
    ['{ nope', 'not valid JSON'],
  ])('%s: one line naming the file and the key', async (text, reason) => {
    write(projectConfig(), text);
    const out = await cli(['list']);
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      `skill-search: ${projectConfig()}: ${reason}${reason === 'not valid JSON' ? out.stderr.slice(`skill-search: ${projectConfig()}: not valid JSON`.length, -1) : ''}\n`,
    );
  });
});
