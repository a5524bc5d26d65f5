import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
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

describe('bin/skill-search.js: which build it loads', () => {
  const dir = tempDir('skill-search-bin-');
  afterAll(() => removeDir(dir));
  mkdirSync(path.join(dir, 'bin'));
  mkdirSync(path.join(dir, 'dist', 'cli'), { recursive: true });
  for (const file of ['skill-search.js', 'package.json']) copyFileSync(path.join(ROOT, 'bin', file), path.join(dir, 'bin', file));
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  // Stand-ins for the two builds: each answers with its own name and the arguments it was given.
  const bundle = path.join(dir, 'dist', 'cli', 'bundle.cjs');
  const modules = path.join(dir, 'dist', 'cli', 'main.js');
  writeFileSync(modules, "export async function main(argv) { process.stdout.write('modules ' + argv.join(' ')); return 3; }\n");
  const writeBundle = () => writeFileSync(bundle, "exports.main = async (argv) => { process.stdout.write('bundle ' + argv.join(' ')); return 4; };\n");
  const run = () => {
    try {
      return { code: 0, stdout: execFileSync(process.execPath, [path.join(dir, 'bin', 'skill-search.js'), 'a', 'b'], { encoding: 'utf8' }) };
    } catch (error) {
      const failed = error as { status: number; stdout: string };
      return { code: failed.status, stdout: failed.stdout };
    }
  };
  const age = (file: string, seconds: number) => utimesSync(file, new Date(seconds * 1000), new Date(seconds * 1000));

  it('the one-file bundle when it is as new as the modules, with their exit code', () => {
    writeBundle();
    age(modules, 1_000_000);
    age(bundle, 1_000_000);
    expect(run()).toEqual({ code: 4, stdout: 'bundle a b' });
  });

  it('the modules when the bundle is older (tsc ran alone) or missing', () => {
    writeBundle();
    age(bundle, 1_000_000);
    age(modules, 1_000_001);
    expect(run()).toEqual({ code: 3, stdout: 'modules a b' });
    rmSync(bundle);
    expect(run()).toEqual({ code: 3, stdout: 'modules a b' });
  });
});
