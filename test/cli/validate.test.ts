import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BROKEN, ROOT, SKILLS, TOOLS, removeDir, runCli, spawnCli, tempDir } from './helpers.js';

const cache = tempDir();
const dirs: string[] = [cache];
afterAll(() => dirs.forEach(removeDir));

function skillTree(files: Record<string, string>): string {
  const dir = tempDir();
  dirs.push(dir);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

describe('validate', () => {
  it('exits 0 and says so when every file is fine (but for the fixtures’ camelCase whenToUse, a warning each)', async () => {
    const result = await runCli(['validate', '--skills-dir', SKILLS, '--tools', TOOLS], cache);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trimEnd().split('\n');
    // Five SKILL.md files write `whenToUse`; the tools file's `whenToUse` is our own field, not warned about.
    expect(lines.slice(0, -1).map((text) => path.basename(path.dirname(text.split(': ')[1]!)))).toEqual([
      'flaky-tests',
      'git-bisect',
      'image-resize',
      'pdf-forms',
      'sql-migrations',
    ]);
    expect(lines.at(-1)).toBe('9 skills loaded; 0 errors, 5 warnings, 0 shadowed');
  });

  it('warns, one line naming the file and the line, about a tab-indented frontmatter key (YAML forbids it) and still loads that skill and the others', async () => {
    const dir = skillTree({
      'tabbed/SKILL.md': '---\nname: tabbed\ndescription: Resize images\nmetadata:\n\tversion: 2\n---\nbody\n',
      'fine/SKILL.md': '---\nname: fine\ndescription: Fine\nmetadata:\n  version: 2\n---\n',
      'value-tab/SKILL.md': '---\nname: value-tab\ndescription: "a\tb"\n---\n',
    });
    const result = await runCli(['validate', '--skills-dir', dir], cache);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        `skill-search: ${path.join(dir, 'tabbed', 'SKILL.md')}: frontmatter line 5 is indented with a tab, which YAML forbids; read with the tab not counted as indentation (so a key there is not nested under the one above it): indent with spaces (loaded anyway)`,
        '3 skills loaded; 0 errors, 1 warning, 0 shadowed',
        '',
      ].join('\n'),
    );
  });

  it('warns, one line naming the file, about a camelCase whenToUse that Claude Code never sends; when_to_use, or both keys, is fine', async () => {
    const dir = skillTree({
      'camel/SKILL.md': '---\ndescription: Camel\nwhenToUse: when camels\n---\n',
      'snake/SKILL.md': '---\ndescription: Snake\nwhen_to_use: when snakes\n---\n',
      'both/SKILL.md': '---\ndescription: Both\nwhen_to_use: when both\nwhenToUse: when both\n---\n',
    });
    const result = await runCli(['validate', '--skills-dir', dir], cache);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        `skill-search: ${path.join(dir, 'camel', 'SKILL.md')}: \`whenToUse\` is ignored by Claude Code, which reads only \`when_to_use\` (skill-search still searches it) (loaded anyway)`,
        '3 skills loaded; 0 errors, 1 warning, 0 shadowed',
        '',
      ].join('\n'),
    );
    const json = JSON.parse((await runCli(['validate', '--skills-dir', dir, '--json'], cache)).stdout) as {
      warnings: number;
      diagnostics: { code: string; path: string }[];
    };
    expect(json.warnings).toBe(1);
    expect(json.diagnostics).toEqual([expect.objectContaining({ code: 'bad-field', path: path.join(dir, 'camel', 'SKILL.md') })]);
  });

  it("the repository's examples write when_to_use: no warning", async () => {
    for (const dir of ['examples/skills', 'examples/project/.claude/skills']) {
      const result = await runCli(['validate', '--skills-dir', path.join(ROOT, dir)], cache);
      expect(result.code).toBe(0);
      expect(result.stdout).not.toContain('whenToUse');
    }
  });

  it('exits 1 and names every broken file with its reason', async () => {
    const result = await runCli(['validate', '--skills-dir', BROKEN], cache);
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^skill-search: ${path.join(BROKEN, 'bad-yaml', 'SKILL.md')}: frontmatter is not valid YAML`));
    expect(lines[1]).toBe(
      `skill-search: ${path.join(BROKEN, 'no-description', 'SKILL.md')}: \`description\` is missing; the body's first paragraph is used instead, as Claude Code does (loaded anyway)`,
    );
    expect(lines[2]).toBe('2 skills loaded; 1 error, 1 warning, 0 shadowed');
  });

  it('reports warnings without failing', async () => {
    const dir = skillTree({
      'tidy/SKILL.md': '---\nname: tidy\ndescription: Tidy things up\neffort: extreme\n---\nBody\n',
    });
    const result = await runCli(['validate', '--skills-dir', dir], cache);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/tidy\/SKILL\.md: .*effort.* \(loaded anyway\)\n1 skill loaded; 0 errors, 1 warning, 0 shadowed\n$/);
  });

  it('names a FIFO and a link to /dev/zero named .md as skipped, one line each, without opening them', async () => {
    const dir = skillTree({ 'tidy/SKILL.md': '---\ndescription: Tidy things up\n---\nBody\n' });
    execFileSync('mkfifo', [path.join(dir, 'pipe.md')]);
    symlinkSync('/dev/zero', path.join(dir, 'zero.md'));
    const result = await runCli(['validate', '--skills-dir', dir], cache);
    expect(result).toEqual({
      code: 1,
      stdout:
        `skill-search: ${path.join(dir, 'pipe.md')}: is not a regular file (a FIFO); skipped\n` +
        `skill-search: ${path.join(dir, 'zero.md')}: is not a regular file (a device); skipped\n` +
        '1 skill loaded; 2 errors, 0 warnings, 0 shadowed\n',
      stderr: '',
    });
  });

  it('shows every shadowed name, winner first', async () => {
    const first = skillTree({ 'pdf/SKILL.md': '---\ndescription: First pdf skill\n---\n' });
    const second = skillTree({ 'pdf/SKILL.md': '---\ndescription: Second pdf skill\n---\n' });
    const result = await runCli(['validate', '--skills-dir', first, '--skills-dir', second], cache);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `skill-search: duplicate skill "pdf": ${path.join(first, 'pdf', 'SKILL.md')} shadows ${path.join(second, 'pdf', 'SKILL.md')}\n` +
        '1 skill loaded; 0 errors, 0 warnings, 1 shadowed\n',
    );
  });

  it('--json gives the problems as data', async () => {
    const result = await runCli(['validate', '--skills-dir', BROKEN, '--json'], cache);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(report)).toEqual(['ok', 'skills', 'demo', 'errors', 'warnings', 'diagnostics', 'shadowed', 'excluded', 'ruled']);
    expect(report).toMatchObject({ ok: false, skills: 2, demo: 0, errors: 1, warnings: 1, shadowed: [], ruled: [] });
    expect((report.diagnostics as { code: string }[]).map((d) => d.code)).toEqual(['bad-yaml', 'missing-description']);
  });

  it('loads a file without frontmatter by its first paragraph and exits 0', async () => {
    const dir = skillTree({ 'notes/SKILL.md': 'Rotate the staging TLS certificates.\nUse the vault CLI.\n\nMore text.\n' });
    const result = await runCli(['validate', '--skills-dir', dir, '--json'], cache);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { diagnostics: { code: string; severity: string }[] };
    expect(report.diagnostics.map(({ code, severity }) => [code, severity])).toEqual([['missing-description', 'warning']]);
    const listed = await runCli(['list', '--skills-dir', dir], cache);
    expect(listed.stdout).toContain('- notes: Rotate the staging TLS certificates. Use the vault CLI.\n');
  });

  it("warns on the Agent Skills spec's limits without failing", async () => {
    const dir = skillTree({ 'pdf/SKILL.md': `---\nname: PDF_Tools\ndescription: ${'x'.repeat(1100)}\n---\n` });
    const result = await runCli(['validate', '--skills-dir', dir], cache);
    expect(result.code).toBe(0);
    const file = path.join(dir, 'pdf', 'SKILL.md');
    expect(result.stdout).toBe(
      [
        `skill-search: ${file}: name "PDF_Tools" is not lowercase letters, digits and single hyphens (Agent Skills spec) (loaded anyway)`,
        `skill-search: ${file}: name "PDF_Tools" does not match its folder "pdf" (Agent Skills spec) (loaded anyway)`,
        `skill-search: ${file}: description is 1100 characters; the Agent Skills spec allows 1024 (loaded anyway)`,
        '1 skill loaded; 0 errors, 3 warnings, 0 shadowed',
        '',
      ].join('\n'),
    );
  });

  it('shows each skill a host rule keeps from the model, with the rule, without failing', async () => {
    const dir = skillTree({
      'deploy-staging/SKILL.md': '---\ndescription: Deploy to staging\ndisable-model-invocation: true\n---\n',
      'release/SKILL.md': '---\ndescription: Cut a release\n---\n',
      'release/agents/openai.yaml': 'policy:\n  allow_implicit_invocation: false\n',
      'menu-less/SKILL.md': '---\ndescription: Background knowledge\nuser-invocable: false\n---\n',
    });
    const result = await runCli(['validate', '--skills-dir', dir], cache);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        `skill-search: ${path.join(dir, 'deploy-staging', 'SKILL.md')}: deploy-staging is never offered to the model; invoked by its name only (disable-model-invocation: true)`,
        `skill-search: ${path.join(dir, 'menu-less', 'SKILL.md')}: menu-less is hidden from the user's slash menu; still offered to the model (user-invocable: false)`,
        `skill-search: ${path.join(dir, 'release', 'SKILL.md')}: release is never offered to the model; invoked by its name only (agents/openai.yaml: policy.allow_implicit_invocation: false)`,
        '3 skills loaded; 0 errors, 0 warnings, 0 shadowed',
        '',
      ].join('\n'),
    );
  });

  it("gives Codex's rule only for the folders Codex's hook searches: not for a --skills-dir folder", async () => {
    const skill = '---\ndescription: Create a new agent skill\n---\n';
    const home = skillTree({
      '.codex/skills/.system/skill-creator/SKILL.md': '---\ndescription: Codex: create or update a skill\n---\n',
      '.config/skill-search/library/skill-creator/SKILL.md': skill,
      'project/README.md': '',
    });
    const own = skillTree({ 'skill-creator/SKILL.md': skill });
    const named = await runCli(['validate', '--skills-dir', own], home);
    expect([named.code, named.stdout]).toEqual([0, '1 skill loaded; 0 errors, 0 warnings, 0 shadowed\n']);
    // The default sources (the library) are what the installed Codex hook searches: the rule applies.
    const library = path.join(home, '.config', 'skill-search', 'library', 'skill-creator', 'SKILL.md');
    expect((await runCli(['validate', '--cwd', path.join(home, 'project')], home)).stdout).toContain(
      `skill-search: ${library}: skill-creator is not suggested in Codex, which lists its own skill of this name (in its skills/.system)\n`,
    );
  });

  it('reports a bad line of a --tools file', async () => {
    const dir = skillTree({ 'tools.jsonl': '{"id":"a","name":"alpha","description":"First"}\nnot json\n' });
    const result = await runCli(['validate', '--tools', path.join(dir, 'tools.jsonl')], cache);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${path.join(dir, 'tools.jsonl')}`);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('1 skill loaded; 1 error, 0 warnings, 0 shadowed');
  });
});

describe.skipIf(!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js')))('validate: a broken Codex policy file (built)', () => {
  it('is one clean line naming the file, the problem and where it is', async () => {
    const dir = skillTree({
      'release/SKILL.md': '---\ndescription: Cut a release\n---\n',
      'release/agents/openai.yaml': 'policy:\n  allow_implicit_invocation: false\n bad: [\n',
    });
    const result = await spawnCli(['validate', '--skills-dir', dir], cache, { entry: path.join(ROOT, 'bin', 'skill-search.js') });
    expect(result).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        `skill-search: ${path.join(dir, 'release', 'agents', 'openai.yaml')}: is not valid YAML: bad indentation of a mapping entry (line 3, column 2); Codex's default policy applies (loaded anyway)`,
        '1 skill loaded; 0 errors, 1 warning, 0 shadowed',
        '',
      ].join('\n'),
    });
  });
});
