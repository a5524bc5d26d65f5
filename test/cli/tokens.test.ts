import { afterAll, describe, expect, it } from 'vitest';
import { SKILLS, removeDir, runCli, tempDir } from './helpers.js';

const cache = tempDir();
afterAll(() => removeDir(cache));

describe('tokens', () => {
  it('says whose rules rendered the listing: the default ones, or the host named with --host', async () => {
    const rendered = async (extra: string[]) => {
      const out = await runCli(['tokens', '--skills-dir', SKILLS, ...extra], cache);
      expect(out.code).toBe(0);
      return /tokens as (.+) within its [\d,]+-(?:character|column|token) budget/.exec(out.stdout)?.[1];
    };
    expect(await rendered([])).toBe('the default listing renders it (--host: as a host does)');
    expect(await rendered(['--host', 'claude-code'])).toBe('claude-code renders it');
    expect(await rendered(['--host', 'codex'])).toBe('codex renders it');
  });
});
