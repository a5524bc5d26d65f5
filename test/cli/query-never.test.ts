import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SKILLS, removeDir, runCli, tempDir } from './helpers.js';

const home = tempDir('skill-search-never-');
afterAll(() => removeDir(home));

describe('query: a skill the config never suggests', () => {
  it('is ranked as before, and says that the hook and the MCP server leave it out, naming the pattern and its file', async () => {
    mkdirSync(path.join(home, '.claude'));
    const config = path.join(home, '.claude/skill-search.json');
    writeFileSync(config, JSON.stringify({ never: ['pdf-*', 'git-*'] }));
    const argv = ['query', '--skills-dir', SKILLS, '--model', 'hash', '--quiet', 'bisect the git history to find the bad commit'];
    const out = await runCli(argv, home, { cwd: home });
    expect(out.code).toBe(0);
    const lines = out.stdout.split('\n');
    expect(lines[0]).toMatch(/^1\. {2}git-bisect /);
    expect(lines[1]).toBe(`    never suggested by the hook or the MCP server: "git-*" in never (~/.claude/skill-search.json)`);
    const json = JSON.parse((await runCli([...argv.slice(0, -1), '--json', argv.at(-1)!], home, { cwd: home })).stdout);
    expect(json.hits[0]).toMatchObject({ name: 'git-bisect', never: { pattern: 'git-*', from: config } });
  });
});
