import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SKILLS, removeDir, runCli, tempDir } from '../cli/helpers.js';

const cache = tempDir();
afterAll(() => removeDir(cache));

describe('index files are private to their user', () => {
  it('index creates its folders 0700 and every file in them 0600', async () => {
    const indexDir = path.join(cache, 'nested', 'index');
    const result = await runCli(['index', '--skills-dir', SKILLS, '--model', 'hash', '--index-dir', indexDir], cache);
    expect(result.code).toBe(0);
    expect(statSync(indexDir).mode & 0o777).toBe(0o700);
    expect(statSync(path.dirname(indexDir)).mode & 0o777).toBe(0o700);
    const files = readdirSync(indexDir);
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files) expect([file, statSync(path.join(indexDir, file)).mode & 0o777]).toEqual([file, 0o600]);
  });
});
