import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BROKEN, SKILLS, TOOLS, removeDir, runCli, tempDir } from './helpers.js';

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
  it('exits 0 and says so when every file is fine', async () => {
    const result = await runCli(['validate', '--skills-dir', SKILLS, '--tools', TOOLS], cache);
    expect(result).toEqual({ code: 0, stdout: '9 skills loaded; 0 errors, 0 warnings, 0 shadowed\n', stderr: '' });
  });

  it('exits 1 and names every broken file with its reason', async () => {
    const result = await runCli(['validate', '--skills-dir', BROKEN], cache);
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^skill-search: ${path.join(BROKEN, 'bad-yaml', 'SKILL.md')}: frontmatter is not valid YAML`));
    expect(lines[1]).toBe(`skill-search: ${path.join(BROKEN, 'no-description', 'SKILL.md')}: \`description\` is missing`);
    expect(lines[2]).toBe('1 skill loaded; 2 errors, 0 warnings, 0 shadowed');
  });

  it('reports warnings without failing', async () => {
    const dir = skillTree({
      'tidy/SKILL.md': '---\nname: tidy\ndescription: Tidy things up\neffort: extreme\n---\nBody\n',
    });
    const result = await runCli(['validate', '--skills-dir', dir], cache);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/tidy\/SKILL\.md: .*effort.* \(loaded anyway\)\n1 skill loaded; 0 errors, 1 warning, 0 shadowed\n$/);
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
    expect(Object.keys(report)).toEqual(['ok', 'skills', 'demo', 'errors', 'warnings', 'diagnostics', 'shadowed']);
    expect(report).toMatchObject({ ok: false, skills: 1, errors: 2, warnings: 0, shadowed: [] });
    expect((report.diagnostics as { code: string }[]).map((d) => d.code)).toEqual(['bad-yaml', 'missing-description']);
  });

  it('reports a bad line of a --tools file', async () => {
    const dir = skillTree({ 'tools.jsonl': '{"id":"a","name":"alpha","description":"First"}\nnot json\n' });
    const result = await runCli(['validate', '--tools', path.join(dir, 'tools.jsonl')], cache);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${path.join(dir, 'tools.jsonl')}`);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('1 skill loaded; 1 error, 0 warnings, 0 shadowed');
  });
});
