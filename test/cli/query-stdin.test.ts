import { afterAll, describe, expect, it } from 'vitest';
import { SKILLS, removeDir, runCli, spawnCli, tempDir } from './helpers.js';

const cache = tempDir();
afterAll(() => removeDir(cache));

describe('query - (the message on stdin)', () => {
  // Linux refuses one argument over 128 KiB (E2BIG: "Argument list too long"), about 20,000 English words.
  it('searches a message longer than one argument may be, as it searches the same message given as an argument', async () => {
    const message = 'bisect the git history to find the commit that broke the build. '.repeat(2500);
    expect(Buffer.byteLength(message)).toBeGreaterThan(128 * 1024);
    const piped = await spawnCli(['query', '--skills-dir', SKILLS, '--model', 'hash', '--json', '--quiet', '-'], cache, { stdin: message });
    expect(piped.stderr).toBe('');
    expect(piped.code).toBe(0);
    const answer = JSON.parse(piped.stdout);
    // The echo is cut to its first 1,000 characters (the last one `…`), its length beside it, not printed back whole.
    expect(Object.keys(answer)).toEqual(['query', 'queryLength', 'hits', 'tookMs']);
    expect(answer.query).toBe(`${message.slice(0, 999)}…`);
    expect(answer.queryLength).toBe(message.length);
    expect(piped.stdout.length).toBeLessThan(4000);
    expect(answer.hits[0]?.name).toBe('git-bisect');
    const given = await runCli(['query', '--skills-dir', SKILLS, '--model', 'hash', '--json', '--quiet', message], cache);
    expect(answer.hits).toEqual(JSON.parse(given.stdout).hits);
  }, 60_000);

  it('an empty stdin is the same one-line error as an empty message', async () => {
    const empty = await runCli(['query', '--skills-dir', SKILLS, '--model', 'hash', '-'], cache, { stdin: '  \n' });
    expect(empty).toMatchObject({ code: 1, stderr: "skill-search: 'query' needs a non-empty message (see skill-search query --help)\n" });
  });
});
