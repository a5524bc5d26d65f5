import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
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

  it('says "1 skill", not "1 skills"', async () => {
    const one = tempDir();
    try {
      cpSync(path.join(SKILLS, 'git-bisect'), path.join(one, 'git-bisect'), { recursive: true });
      const out = await runCli(['tokens', '--skills-dir', one], cache);
      expect(out.code).toBe(0);
      expect(out.stdout).toMatch(/^Every skill listed up front: 1 skill, [\d,]+ tokens in full;/m);
      expect(out.stdout).toMatch(/^Listed by claude-code with the rest deferred: 1 skill, [\d,]+ tokens\.$/m);
      expect(out.stdout).not.toMatch(/\b1 skills\b/);
    } finally {
      removeDir(one);
    }
  });

  it('says, for the deferred listing too, what a small budget left out (it read "13 skills, 17 tokens" with all 13 left out)', async () => {
    const out = await runCli(['tokens', '--skills-dir', SKILLS, '--context-window', '100'], cache);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /^Every skill listed up front: 6 skills, [\d,]+ tokens in full; [\d,]+ tokens as .* within its 4-character budget \(0 descriptions dropped, 6 skills left out\)\.$/m,
    );
    expect(out.stdout).toMatch(/^Listed by claude-code with the rest deferred: 6 skills, [\d,]+ tokens \(0 descriptions dropped, 6 skills left out\)\.$/m);
  });

  it('--host claude-code pays for the frontmatter name Claude Code shows beside a folder’s name', async () => {
    const listingTokens = async (name: string) => {
      const home = tempDir();
      try {
        mkdirSync(path.join(home, '.claude/skills/docs-translate'), { recursive: true });
        mkdirSync(path.join(home, 'project'));
        writeFileSync(path.join(home, '.claude/skills/docs-translate/SKILL.md'), `---\nname: ${name}\ndescription: Translate docs\n---\n# T\n`);
        const out = await runCli(['tokens', '--host', 'claude-code', '--json'], cache, { env: { HOME: home }, cwd: path.join(home, 'project') });
        return (JSON.parse(out.stdout) as { before: { listingTokens: number } }).before.listingTokens;
      } finally {
        removeDir(home);
      }
    };
    // `- docs-translate (acme-docs-translator): Translate docs`, 56 characters, against `- docs-translate: Translate docs`, 32.
    expect(await listingTokens('acme-docs-translator')).toBe(14);
    expect(await listingTokens('docs-translate')).toBe(8);
  });
});
