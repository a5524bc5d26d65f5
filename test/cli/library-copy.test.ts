import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LibraryStage } from '../../src/cli/commands/library-copy.js';
import { commitAll, removeDir, runCli, tempDir } from './helpers.js';

let home: string;
let library: string;
const cli = (argv: string[]) => runCli(argv, home, { env: { PATH: '' }, cwd: home });
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
};
const skill = (dir: string) => write(path.join(dir, 'SKILL.md'), '---\ndescription: A skill\n---\nSteps.\n');
/** Every path under `dir`, relative, sorted (links shown as `name -> target`). */
const tree = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();

beforeEach(() => {
  home = tempDir('skill-search-library-copy-');
  library = path.join(home, 'lib');
});
afterEach(() => removeDir(home));

describe('library add copies only the source tree', () => {
  it('skips links out of a cloned repository (a key, a system folder) and follows links inside it', async () => {
    const repo = path.join(home, 'repo');
    skill(path.join(repo, 'skills', 'alpha'));
    write(path.join(repo, 'shared', 'notes.md'), 'shared notes');
    write(path.join(home, '.ssh', 'id_rsa'), 'PRIVATE KEY');
    symlinkSync(path.join(home, '.ssh', 'id_rsa'), path.join(repo, 'skills', 'alpha', 'key'));
    symlinkSync('/usr', path.join(repo, 'skills', 'alpha', 'usr'));
    symlinkSync('../../shared/notes.md', path.join(repo, 'skills', 'alpha', 'notes.md'));
    commitAll(repo);
    const result = await cli(['library', 'add', `file://${repo}`, '--library', library]);
    expect(result.code).toBe(0);
    expect(tree(library)).toEqual(['alpha', 'alpha/SKILL.md', 'alpha/notes.md']);
    expect(readFileSync(path.join(library, 'alpha', 'notes.md'), 'utf8')).toBe('shared notes');
    const lines = result.stderr.split('\n');
    expect(lines).toContainEqual(expect.stringMatching(/^skill-search: skipped .*\/alpha\/key: links outside the source folder \(to .*\/\.ssh\/id_rsa\)$/));
    expect(lines).toContainEqual(expect.stringMatching(/^skill-search: skipped .*\/alpha\/usr: links outside the source folder \(to \/usr\)$/));
  });

  it('copies a folder with link loops and a FIFO without crashing, each skipped once and named', async () => {
    const source = path.join(home, 'src', 'beta');
    skill(source);
    write(path.join(source, 'references', 'guide.md'), 'guide');
    symlinkSync('.', path.join(source, 'references', 'loop'));
    symlinkSync('..', path.join(source, 'references', 'up'));
    symlinkSync('self', path.join(source, 'self'));
    execFileSync('mkfifo', [path.join(source, 'pipe')]);
    const result = await cli(['library', 'add', source, '--library', library]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Copied 1 skill into ${library}.\n`);
    expect(tree(library)).toEqual(['beta', 'beta/SKILL.md', 'beta/references', 'beta/references/guide.md']);
    expect(result.stderr.split('\n').filter(Boolean).sort()).toEqual([
      `skill-search: skipped ${path.join(source, 'pipe')}: not a regular file`,
      `skill-search: skipped ${path.join(source, 'references', 'loop')}: the folder was already copied (a symbolic link loop)`,
      `skill-search: skipped ${path.join(source, 'references', 'up')}: the folder was already copied (a symbolic link loop)`,
      `skill-search: skipped ${path.join(source, 'self')}: a symbolic link loop`,
    ]);
  });

  it('makes the copies user-writable, keeping exec bits', async () => {
    const source = path.join(home, 'src', 'ro-skill');
    skill(source);
    write(path.join(source, 'scripts', 'run.sh'), '#!/bin/sh\n');
    chmodSync(path.join(source, 'SKILL.md'), 0o444);
    chmodSync(path.join(source, 'scripts', 'run.sh'), 0o555);
    const result = await cli(['library', 'add', source, '--library', library]);
    expect(result.code).toBe(0);
    const mode = (file: string) => statSync(path.join(library, 'ro-skill', file)).mode & 0o777;
    expect(mode('SKILL.md')).toBe(0o644);
    expect(mode('scripts/run.sh')).toBe(0o755);
    // The source is left as it was.
    expect(statSync(path.join(source, 'SKILL.md')).mode & 0o777).toBe(0o444);
  });

  it('skips a file over the per-file cap', async () => {
    const source = path.join(home, 'src', 'gamma');
    skill(source);
    write(path.join(source, 'huge.bin'), '');
    truncateSync(path.join(source, 'huge.bin'), 21 * 1024 * 1024);
    const result = await cli(['library', 'add', source, '--library', library]);
    expect(tree(library)).toEqual(['gamma', 'gamma/SKILL.md']);
    expect(result.stderr).toBe(`skill-search: skipped ${path.join(source, 'huge.bin')}: 22020096 bytes, larger than the 20971520 bytes copied per file\n`);
  });

  it('past the total cap, fails in one line and leaves nothing behind', () => {
    mkdirSync(library);
    for (const name of ['a', 'b']) {
      skill(path.join(home, 'src', name));
      write(path.join(home, 'src', name, 'data.txt'), 'x'.repeat(600));
    }
    const stage = new LibraryStage(library, { maxFileBytes: 1000, maxTotalBytes: 1000, maxEntries: 100, maxDepth: 4 });
    stage.copy(path.join(home, 'src', 'a'), path.join(home, 'src'), 'a');
    expect(() => stage.copy(path.join(home, 'src', 'b'), path.join(home, 'src'), 'b')).toThrow(
      `skill-search: ${path.join(home, 'src', 'b', 'data.txt')}: the skills to add exceed 1000 bytes in all; nothing was added`,
    );
    stage.discard();
    expect(readdirSync(library)).toEqual([]);
  });
});

describe('library add from a git URL', () => {
  let sockets: Socket[] = [];
  afterEach(() => {
    for (const socket of sockets) socket.destroy();
    sockets = [];
  });

  it('stops a clone that does not finish within --clone-timeout', async () => {
    const server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/skills.git`;
    const started = performance.now();
    const result = await cli(['library', 'add', url, '--library', library, '--clone-timeout', '1']);
    server.close();
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`skill-search: cannot clone '${url}': not done within 1 s (--clone-timeout)\n`);
    expect(existsSync(library) ? readdirSync(library) : []).toEqual([]);
  });
});
