import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isFile, isFolder } from '../../src/util/paths.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'skill-search-paths-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('isFolder and isFile', () => {
  const folder = path.join(root, 'folder');
  const file = path.join(root, 'file.txt');
  mkdirSync(folder);
  writeFileSync(file, 'x');
  symlinkSync(folder, path.join(root, 'link-to-folder'));
  symlinkSync(path.join(root, 'gone'), path.join(root, 'dangling'));

  it('tells a folder from a file, following links', () => {
    expect([isFolder(folder), isFile(folder)]).toEqual([true, false]);
    expect([isFolder(file), isFile(file)]).toEqual([false, true]);
    expect(isFolder(path.join(root, 'link-to-folder'))).toBe(true);
  });

  it('is false, never an error, for a missing path, a dangling link and a path through a file (ENOTDIR)', () => {
    for (const missing of [path.join(root, 'missing'), path.join(root, 'dangling'), path.join(file, 'below')]) {
      expect([isFolder(missing), isFile(missing)], missing).toEqual([false, false]);
    }
  });
});
