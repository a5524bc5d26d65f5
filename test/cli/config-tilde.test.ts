import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeDir, runCli, tempDir } from './helpers.js';

const home = tempDir('skill-search-tilde-');
afterAll(() => removeDir(home));

describe('skill-search.json: a library folder written with ~', () => {
  it('is the home folder, as a shell reads it, not a folder named ~ beside the config', async () => {
    mkdirSync(path.join(home, '.claude'));
    mkdirSync(path.join(home, 'team-skills', 'rollout'), { recursive: true });
    writeFileSync(
      path.join(home, 'team-skills', 'rollout', 'SKILL.md'),
      '---\nname: rollout\ndescription: Roll out a release to the kubernetes cluster\n---\n',
    );
    writeFileSync(path.join(home, '.claude/skill-search.json'), JSON.stringify({ library: ['~/team-skills', '~'] }));
    const config = await runCli(['config', '--json'], home, { cwd: home });
    expect(JSON.parse(config.stdout).library.map((entry: { value: string }) => entry.value)).toEqual([path.join(home, 'team-skills'), home]);
    const valid = await runCli(['validate', '--json'], home, { cwd: home });
    expect(JSON.parse(valid.stdout).diagnostics.filter((d: { message: string }) => d.message.includes('no such folder'))).toEqual([]);
  });
});
