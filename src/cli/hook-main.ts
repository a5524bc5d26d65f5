import { SkillSearchError } from '../errors.js';
import type { CommandEntry } from './args.js';
import { HOOK_DEFAULTS, SOURCE_OPTIONS, retrievalOptions } from './flags.js';
import type { CliIo } from './io.js';
import { runCommand, runMain } from './run.js';

/** The `hook` command's table entry, here so the hook's bundle carries no other command. */
export const HOOK_COMMAND: CommandEntry = {
  summary:
    'The UserPromptSubmit hook of Claude Code or Codex: reads the hook JSON on stdin, prints additionalContext JSON when skills fit, nothing otherwise. Never fails the prompt.',
  usage: 'claude-code|codex [options]',
  positionals: { min: 1, max: 1, name: "a host name ('claude-code' or 'codex')" },
  options: {
    ...SOURCE_OPTIONS,
    cwd: { type: 'string', placeholder: 'DIR', description: 'working directory whose project skills are searched', defaultText: 'the "cwd" of the hook input' },
    ...retrievalOptions(HOOK_DEFAULTS.k),
    'timeout-ms': { type: 'string', placeholder: 'MS', description: 'give up silently after this long', defaultText: String(HOOK_DEFAULTS.timeoutMs) },
  },
  notes: [
    "'skill-search install claude-code' (or 'install codex') registers it; by hand: a command hook \"skill-search hook claude-code\"",
    'under hooks.UserPromptSubmit in .claude/settings.json (Codex: "skill-search hook codex" in ~/.codex/hooks.json).',
    "Suggested skills the host does not list (library, another host's folders) come with their SKILL.md path; demo skills never (unless --demo).",
    "For fast answers keep 'skill-search watch' (same skills and --model) running in the background: the hook",
    'asks it over a local socket (connect timeout 150 ms) and otherwise loads the index and model itself, which',
    'with the default model takes one to two seconds per prompt.',
    'Skills already invoked in the session (Skill tool calls in the transcript_path file) are not announced again.',
    'When the index is cold and the budget runs out, the hook prints nothing and builds the index in the background.',
  ].join('\n'),
  load: async () => (await import('./commands/hook.js')).runHook,
};

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
