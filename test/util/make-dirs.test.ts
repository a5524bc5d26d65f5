import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirs } from '../../src/util/make-dirs.js';

const root = mkdtempSync(join(tmpdir(), 'skill-search-make-dirs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('makeDirs', () => {
  it('makes every missing level with the mode, and leaves an existing folder alone', () => {
    const dir = join(root, 'a', 'b', 'c');
    makeDirs(dir, { mode: 0o700 });
    expect(statSync(dir).isDirectory()).toBe(true);
    if (process.platform !== 'win32') expect(statSync(join(root, 'a')).mode & 0o777).toBe(0o700);
    expect(() => makeDirs(dir)).not.toThrow();
  });

  it('names the file in the way, in one line', () => {
    const file = join(root, 'file');
    writeFileSync(file, 'x');
    expect(() => makeDirs(join(file, 'x', 'y'))).toThrow(`skill-search: folder ${join(file, 'x', 'y')}: cannot create it (${file} is a file)`);
    expect(() => makeDirs(file, { subject: '--index-dir' })).toThrow(`skill-search: --index-dir: cannot create it (${file} is a file)`);
    expect(() => makeDirs(file)).toThrow(expect.objectContaining({ code: 'BAD_FILE' }));
  });

  it.runIf(process.platform === 'linux')('gives up at once where a parent answers ENOENT to every mkdir (/proc)', () => {
    expect(() => makeDirs('/proc/skill-search-idx/a')).toThrow(
      'skill-search: folder /proc/skill-search-idx/a: cannot create it (ENOENT at /proc/skill-search-idx)',
    );
  });
});
