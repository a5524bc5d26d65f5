import { SkillSearchError } from '../errors.js';
import { HOOK_COMMAND } from './hook-command.js';
import type { CliIo } from './io.js';
import { runCommand, runMain } from './run.js';

/**
 * `skill-search hook …` alone: the entry of the hook's own bundle (scripts/bundle-cli.ts), which
 * bin/skill-search.js runs for a hook. It holds the hook's modules without the other commands',
 * so a hook, a fresh process per prompt, reads and deserialises less (docs/cold-start.md, tenth
 * round). Anything but `hook` is the whole CLI's (main.ts), which the bin runs for it.
 */
export async function main(argv: readonly string[], io?: CliIo): Promise<number> {
  return runMain(argv, io, async ([first, ...rest], cliIo) => {
    if (first !== 'hook') throw new SkillSearchError('INTERNAL', `the hook's entry runs 'hook' only, not '${first ?? ''}'`);
    return runCommand('hook', HOOK_COMMAND, rest, cliIo);
  });
}
