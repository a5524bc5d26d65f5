import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageStore, usageFileFor } from '../../src/usage/usage-store.js';
import { removeDir, runCli, tempDir } from '../cli/helpers.js';

const DAY = 86_400_000;
let root: string;
let clock: number;
const open = (options = {}) => UsageStore.open(root, '/work/project', { now: () => clock, ...options });
const counts = (store: UsageStore) => Object.fromEntries(store.entries().map(([name, entry]) => [name, [entry.used, entry.suggested, entry.ignored]]));

beforeEach(() => {
  root = tempDir('skill-search-usage-');
  clock = Date.UTC(2026, 0, 1);
});
afterEach(() => removeDir(root));

describe('stats over a usage file it cannot read', () => {
  it('says so in one line naming the file, instead of only "no usage recorded yet"; a missing file says nothing', async () => {
    const home = tempDir('skill-search-usage-home-');
    try {
      const project = path.join(home, 'project');
      mkdirSync(project);
      const stats = () => runCli(['stats', '--cwd', project, '--no-demo'], home, { env: { PATH: '' } });
      const fresh = await stats();
      expect([fresh.code, fresh.stderr]).toEqual([0, '']);
      const file = usageFileFor(home, project);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, '{"version": 1, "skills": {');
      const broken = await stats();
      expect(broken.code).toBe(0);
      expect(broken.stderr).toMatch(
        new RegExp(`^skill-search: ${file.replace(/[.]/g, '\\.')}: not valid JSON \\(.+\\); read as empty \\(the hook's next record replaces it\\)\n$`),
      );
      expect(broken.stdout).toMatch(/^No usage recorded for /);
      writeFileSync(file, JSON.stringify({ version: 2, skills: {} }));
      expect((await stats()).stderr).toBe(
        `skill-search: ${file}: not a usage file skill-search reads (version 1, with project, at, skills, usedIn and suggestedIn); read as empty (the hook's next record replaces it)\n`,
      );
    } finally {
      removeDir(home);
    }
  });
});

describe('UsageStore', () => {
  it('counts a skill once per session, and a session that moves on leaves its unused suggestions ignored', () => {
    const store = open();
    store.recordSuggested('s1', ['pdf', 'xlsx']);
    store.recordUsed('s1', ['pdf']);
    store.recordUsed('s1', ['pdf']);
    store.recordSuggested('s2', ['pdf']);
    expect(counts(store)).toEqual({ pdf: [1, 2, 0], xlsx: [0, 1, 1] });
    expect(store.save()).toBeUndefined();
    expect(counts(open())).toEqual({ pdf: [1, 2, 0], xlsx: [0, 1, 1] });
  });

  it('keeps its folder and file private (0700, 0600)', () => {
    const store = open();
    store.recordUsed('s1', ['pdf']);
    expect(store.save()).toBeUndefined();
    expect(statSync(path.dirname(store.file)).mode & 0o777).toBe(0o700);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
  });

  it('halves every 14 days', () => {
    const store = open();
    store.recordUsed('s1', ['pdf']);
    store.save();
    clock += 14 * DAY;
    expect(counts(open())).toEqual({ pdf: [0.5, 0, 0] });
    clock += 14 * DAY;
    expect(open().usageCounts().get('pdf')).toBe(0.25);
  });

  it('stays bounded: the least used skills go first', () => {
    const store = open({ maxSkills: 2 });
    store.recordUsed('s1', ['a', 'b', 'c']);
    store.recordUsed('s2', ['a', 'b']);
    store.save();
    expect(Object.keys(counts(open()))).toEqual(['a', 'b']);
  });

  it('a corrupt or foreign file is an empty store, and is replaced on save', () => {
    const file = usageFileFor(root, '/work/project');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '{"version":1,"skills":{"x":{"used":"lots"}}}');
    const store = open();
    expect(store.entries()).toEqual([]);
    store.recordUsed('s', ['__proto__']);
    expect(store.save()).toBeUndefined();
    expect(
      open()
        .entries()
        .map(([name, entry]) => [name, entry.used]),
    ).toEqual([['__proto__', 1]]);
  });
});

describe('hook → stats', () => {
  it('records what the session invoked and what was suggested; stats reports used, ignored and never used', async () => {
    const home = root;
    const project = path.join(home, 'project');
    const skills = path.join(home, '.claude', 'skills');
    for (const [name, description] of <[string, string][]>[
      ['pdf-forms', 'Fill in PDF forms'],
      ['pdf-tables', 'Extract tables from PDF files'],
      ['commit-message', 'Write commit messages'],
    ]) {
      mkdirSync(path.join(skills, name), { recursive: true });
      writeFileSync(path.join(skills, name, 'SKILL.md'), `---\ndescription: ${description}\n---\nSteps.\n`);
    }
    mkdirSync(project);
    const transcript = path.join(home, 't.jsonl');
    const skillCall = JSON.stringify({
      type: 'assistant',
      message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Skill', input: { skill: 'pdf-forms' } }] },
    });
    writeFileSync(transcript, `${skillCall}\n`);
    const hook = (session: string, prompt: string) =>
      runCli(['hook', 'claude-code', '--model', 'hash', '--mode', 'lexical'], home, {
        env: { PATH: '' },
        stdin: JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: session, transcript_path: transcript, cwd: project, prompt }),
      });
    await hook('s1', 'extract the tables from this PDF file');
    await hook('s2', 'extract the tables from this PDF file');
    const stats = JSON.parse((await runCli(['stats', '--cwd', project, '--json'], home, { env: { PATH: '' } })).stdout);
    const byName = Object.fromEntries(stats.skills.map((entry: { name: string }) => [entry.name, entry]));
    expect(byName['pdf-forms']).toMatchObject({ used: 2 });
    expect(byName['pdf-tables']).toMatchObject({ suggested: 2, ignored: 1 });
    expect(stats.neverUsed).toEqual(['commit-message', 'pdf-tables']);
    const text = await runCli(['stats', '--cwd', project], home, { env: { PATH: '' } });
    const today = new Date().toISOString().slice(0, 10);
    expect(text.stdout.split('\n')).toEqual([
      'skill       used  suggested  ignored   last used',
      `pdf-forms      2          0        0  ${today}`,
      'pdf-tables     0          2        1           -',
      '(counts halve every 14 days; "ignored": suggested in a session that did not use it)',
      'Never used: 2 of 3 skills: commit-message, pdf-tables',
      '',
    ]);
  });
});
