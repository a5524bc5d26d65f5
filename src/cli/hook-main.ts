import { SkillSearchError } from '../errors.js';
import { HOOK_COMMAND } from './hook-command.js';
import type { CliIo } from './io.js';
import { runCommand, runMain } from './run.js';

/**
 * `skill-search hook …` alone: the entry of the hook's bundle (scripts/bundle-cli.ts), without the
 * other commands' modules, so a hook (a fresh process per prompt) loads less (docs/cold-start.md).
 */
export async function main(argv: readonly string[], io?: CliIo): Promise<number> {
  return runMain(argv, io, async ([first, ...rest], cliIo) => {
    if (first !== 'hook') throw new SkillSearchError('INTERNAL', `the hook's entry runs 'hook' only, not '${first ?? ''}'`);
    return runCommand('hook', HOOK_COMMAND, rest, cliIo);
  });
}
