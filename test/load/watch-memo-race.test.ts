import type { Stats } from 'node:fs';
import { utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RACY_MS, ScanMemo, scanSkillsDir } from '../../src/load/scan.js';
import { removeDir, skillMd, tempDir, writeTree } from './helpers.js';

/**
 * A rewrite within one timestamp tick with the same size leaves the file's stat as it was (what
 * coarse timestamps do): `stat` of the files named in `frozen` answers what it answered first.
 */
const frozen = vi.hoisted(() => ({ files: new Set<string>(), stats: new Map<string, Stats>() }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const stat = async (path: string, ...rest: unknown[]) => {
    const found = await (actual.stat as (path: string, ...rest: unknown[]) => Promise<Stats>)(path, ...rest);
    if (!frozen.files.has(path)) return found;
    if (!frozen.stats.has(path)) frozen.stats.set(path, found);
    return frozen.stats.get(path)!;
  };
  return { ...actual, stat, default: { ...actual, stat } };
});

let root: string;
beforeEach(async () => {
  root = await tempDir();
  frozen.files.clear();
  frozen.stats.clear();
});
afterEach(async () => {
  await removeDir(root);
});

const scan = (memo: ScanMemo) => scanSkillsDir(root, { source: 'skills', rank: 3, memo });

describe('ScanMemo and a rewrite its stat cannot tell apart', () => {
  it('reads a file modified just before the scan again, so a second same-size write in the same tick is seen', async () => {
    await writeTree(root, { 'alpha/SKILL.md': skillMd('alpha version A'), 'beta/SKILL.md': skillMd('beta skill') });
    const earlier = new Date(Date.now() - 60_000);
    await utimes(join(root, 'beta', 'SKILL.md'), earlier, earlier);
    const alpha = join(root, 'alpha', 'SKILL.md');
    frozen.files.add(alpha);
    const memo = new ScanMemo();
    expect((await scan(memo)).skills.map((skill) => skill.description)).toEqual(['alpha version A', 'beta skill']);

    await writeFile(alpha, skillMd('alpha version B'));
    const after = await scan(memo);
    expect(after.skills.map((skill) => skill.description)).toEqual(['alpha version B', 'beta skill']);
    // The file written a minute ago is still taken from the memo.
    expect(memo.last).toEqual({ reused: 1, read: 1 });
  });

  it('keeps a file in the memo once its change is older than RACY_MS', async () => {
    await writeTree(root, { 'alpha/SKILL.md': skillMd('alpha skill') });
    const memo = new ScanMemo();
    await scan(memo);
    await scan(memo);
    expect(memo.last).toEqual({ reused: 0, read: 1 });
    const earlier = new Date(Date.now() - RACY_MS - 1000);
    await utimes(join(root, 'alpha', 'SKILL.md'), earlier, earlier);
    await scan(memo);
    await scan(memo);
    expect(memo.last).toEqual({ reused: 1, read: 0 });
  });
});
