import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadUseLiteGraph } from '../../src/embed/use-lite-graph-cache.js';
import { copyFixture, removeDir, runCli, SKILLS, tempDir } from './helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});
const temp = () => {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
};

/** Every entry under `root` whose permissions let another user read, list or write it. */
function notPrivate(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((rel) => [rel, statSync(path.join(root, rel))] as const)
    .filter(([, stats]) => (stats.mode & 0o077) !== 0 && !stats.isSocket())
    .map(([rel, stats]) => `${rel} ${(stats.mode & 0o777).toString(8)}`);
}

describe.skipIf(process.platform === 'win32')('the cache root is private', () => {
  it('the hook leaves only 0700 folders and 0600 files (usage, the snapshot marker, the index)', async () => {
    const cache = temp();
    const skills = copyFixture(SKILLS);
    dirs.push(skills);
    const transcript = path.join(temp(), 'transcript.jsonl');
    const stdin = JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 's1', prompt: 'fill a pdf form', transcript_path: transcript, cwd: cache });
    const result = await runCli(['hook', 'claude-code', '--skills-dir', skills, '--model', 'hash'], cache, { stdin, spawnDetached: () => undefined });
    expect(result.code).toBe(0);
    const made = readdirSync(cache, { recursive: true, encoding: 'utf8' });
    expect(made.some((rel) => rel.startsWith('usage'))).toBe(true);
    expect(made.some((rel) => rel.endsWith('.snapshot'))).toBe(true);
    expect(notPrivate(cache)).toEqual([]);
  });

  it('the use-lite graph cache folder is 0700', async () => {
    const cacheDir = path.join(temp(), 'cache', 'use-lite');
    await loadUseLiteGraph({ cacheDir });
    expect(notPrivate(path.dirname(cacheDir))).toEqual([]);
  });
});
