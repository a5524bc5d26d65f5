import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, SKILLS, removeDir, spawnCli, tempDir } from './helpers.js';

const BIN = path.join(ROOT, 'bin', 'skill-search.js');
const built = existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'));

// Runs only after `npm run build` (or `npm ci`, whose prepare step builds dist/).
describe.skipIf(!built)('bin/skill-search.js (built)', () => {
  const cache = tempDir();
  afterAll(() => removeDir(cache));

  it('prints the version', async () => {
    expect(await spawnCli(['--version'], cache, { entry: BIN })).toEqual({ code: 0, stdout: '0.1.0\n', stderr: '' });
  });

  it('validates a skills folder and maps a bad flag to exit 1', async () => {
    const ok = await spawnCli(['validate', '--skills-dir', SKILLS], cache, { entry: BIN });
    expect(ok).toEqual({ code: 0, stdout: '6 skills loaded; 0 errors, 0 warnings, 0 shadowed\n', stderr: '' });
    const bad = await spawnCli(['validate', '--nope'], cache, { entry: BIN });
    expect(bad).toEqual({
      code: 1,
      stdout: '',
      stderr: "skill-search: unknown option '--nope' for 'validate' (see skill-search validate --help)\n",
    });
  });

  it('answers a query with the hash embedder', async () => {
    const result = await spawnCli(['query', '--skills-dir', SKILLS, '--model', 'hash', '--json', 'git bisect a regression'], cache, {
      entry: BIN,
    });
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { hits: { name: string }[] }).hits[0]?.name).toBe('git-bisect');
  });
});
