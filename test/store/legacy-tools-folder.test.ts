import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { retireToolsFolder } from '../../src/store/legacy-folder.js';

describe('the tools folder kept before the store', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const folder = (files: readonly string[]): string => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'tools-folder-'));
    dirs.push(root);
    const dir = path.join(root, 'tools');
    mkdirSync(dir);
    for (const file of files) writeFileSync(path.join(dir, file), 'x');
    return dir;
  };

  it('loses its snapshots and line tables, then the folder itself', () => {
    const dir = folder(['tools-0123456789abcdef.bin', 'lines-fedcba9876543210.bin', 'lines-fedcba9876543210.bin.4242.tmp']);
    retireToolsFolder(dir);
    expect(existsSync(dir)).toBe(false);
  });

  it('keeps anything else, and the folder with it; a missing folder is nothing to do', () => {
    const dir = folder(['tools-0123456789abcdef.bin', 'notes.txt', 'tools-short.bin']);
    retireToolsFolder(dir);
    expect(readdirSync(dir).sort()).toEqual(['notes.txt', 'tools-short.bin']);
    expect(() => retireToolsFolder(path.join(dir, 'absent'))).not.toThrow();
  });
});
