import { afterAll, describe, expect, it } from 'vitest';
import { SKILLS, removeDir, runCli, tempDir } from './helpers.js';

const cache = tempDir();
afterAll(() => removeDir(cache));

describe('a message that starts with a dash', () => {
  // A shell passes "-v breaks the build" as one argument: no option has a space in its name, so it is the message.
  it.each([['-v flag breaks the bisect of my git history'], ['--help me bisect my git history'], ['- bisect my git history to find the bad commit']])(
    'is searched as the message: %s',
    async (message) => {
      const quoted = await runCli(['query', '--skills-dir', SKILLS, '--model', 'hash', '--json', '--quiet', message], cache);
      expect(quoted.stderr).toBe('');
      expect(quoted.code).toBe(0);
      expect(JSON.parse(quoted.stdout)).toMatchObject({ query: message });
      // The same as after `--`.
      const terminated = await runCli(['query', '--skills-dir', SKILLS, '--model', 'hash', '--json', '--quiet', '--', message], cache);
      expect(JSON.parse(terminated.stdout).hits).toEqual(JSON.parse(quoted.stdout).hits);
    },
  );

  it('leaves real options alone, a value with a space included', async () => {
    expect((await runCli(['query', '-x', 'bisect'], cache)).stderr).toBe("skill-search: unknown option '-x' for 'query' (see skill-search query --help)\n");
    const spaced = await runCli(['query', '--skills-dir', SKILLS, '--model=hash', '--abstain= off', 'bisect'], cache);
    expect(spaced.stderr).toBe("skill-search: --abstain expects strict, balanced, off or a number from 0 to 1, got ' off'\n");
  });
});
