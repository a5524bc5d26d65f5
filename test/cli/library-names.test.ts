import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeDir, runCli, tempDir } from './helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

describe('library: a skill whose name is not its folder name (vercel-composition-patterns in composition-patterns/)', () => {
  it('is listed with the name searches show, and removed by either name', async () => {
    const home = tempDir('skill-search-libnames-');
    const team = tempDir('skill-search-team-');
    dirs.push(home, team);
    for (const [folder, name] of [
      ['composition-patterns', 'vercel-composition-patterns'],
      ['react-view-transitions', 'vercel-react-view-transitions'],
      ['git-bisect', 'git-bisect'],
    ] as const) {
      mkdirSync(path.join(team, folder));
      writeFileSync(path.join(team, folder, 'SKILL.md'), `---\nname: ${name}\ndescription: about ${name}\n---\nSteps.\n`);
    }
    const library = path.join(home, 'library');
    const cli = (...argv: string[]) => runCli(['library', ...argv, '--library', library], home, { cwd: home });
    expect((await cli('add', team)).code).toBe(0);

    const listed = await cli('list');
    expect(listed.stdout.split('\n')).toEqual([
      `composition-patterns (vercel-composition-patterns)  ${path.join(library, 'composition-patterns')}`,
      `git-bisect  ${path.join(library, 'git-bisect')}`,
      `react-view-transitions (vercel-react-view-transitions)  ${path.join(library, 'react-view-transitions')}`,
      '',
    ]);
    expect(JSON.parse((await cli('list', '--json')).stdout).skills[0]).toEqual({
      name: 'composition-patterns',
      skill: 'vercel-composition-patterns',
      path: path.join(library, 'composition-patterns'),
    });

    // The name a query or the hook showed.
    const byName = await cli('remove', 'vercel-composition-patterns');
    expect(byName).toMatchObject({ code: 0, stdout: `Removed 1 skill from ${library}: composition-patterns.\n` });
    expect(existsSync(path.join(library, 'composition-patterns'))).toBe(false);
    expect((await cli('remove', 'react-view-transitions')).code).toBe(0);
    expect((await cli('remove', 'no-such-skill')).code).toBe(1);
    expect(existsSync(path.join(library, 'git-bisect'))).toBe(true);
  });
});
