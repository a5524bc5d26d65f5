import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SkillSearchError, abortError, isAbortError } from '../errors.js';
import { didYouMean, parseCommandArgs, renderCommandHelp } from './args.js';
import { COMMANDS, isCommandName } from './commands.js';
import { processIo, type CliIo } from './io.js';
import { packageVersion } from '../util/package-version.js';

/** Exit codes of SPEC §7 (130 only when the user interrupted a one-shot command). */
export const EXIT = Object.freeze({ ok: 0, user: 1, internal: 2, interrupted: 130 });

function topHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    'Usage: skill-search <command> [options]',
    '',
    'Semantic search over agent skills (SKILL.md files and tool lists).',
    '',
    'Commands:',
    ...Object.values(COMMANDS).map(({ spec }) => `  ${spec.name.padEnd(width)}  ${spec.summary}`),
    '',
    'Options:',
    '  -h, --help     show help (also: skill-search <command> --help)',
    '  -v, --version  print the version',
    '',
    'With no --skills-dir, skills are read from the standard folders for --cwd: ~/.claude/skills,',
    'every .claude/skills from --cwd up to the home folder, legacy .claude/commands, enabled Claude Code',
    "plugins, Codex's skill folders and the skill library (this package's example skills only when none exist).",
    '',
  ].join('\n');
}

/** File-system refusals the user can act on (permissions, a full or read-only disk), in words. */
const USER_FS_ERRORS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
};

/** `skill-search: PATH: no space left on device (ENOSPC)` for such an error (or one it wraps); undefined otherwise. */
function fileSystemProblem(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth += 1) {
    const { code, path } = current as NodeJS.ErrnoException;
    const words = typeof code === 'string' ? USER_FS_ERRORS[code] : undefined;
    if (words !== undefined) return `skill-search: ${path === undefined ? '' : `${path}: `}${words} (${code})`;
  }
  return undefined;
}

/** One line for a user error, the stack for a bug: the caller can tell which from the exit code. */
export function reportError(error: unknown, io: Pick<CliIo, 'stderr'>): number {
  if (error instanceof SkillSearchError && error.isUserError) {
    io.stderr.write(`${error.message}\n`);
    return EXIT.user;
  }
  const problem = fileSystemProblem(error);
  if (problem !== undefined) {
    io.stderr.write(`${problem}\n`);
    return EXIT.user;
  }
  if (isAbortError(error)) {
    io.stderr.write('skill-search: interrupted\n');
    return EXIT.interrupted;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr.write(`skill-search: internal error: ${detail}\n`);
  return EXIT.internal;
}

/**
 * Runs one command line and resolves to its exit code; never rejects and never calls
 * `process.exit`, so it can run in-process (tests) as well as from `bin/skill-search.js`.
 */
export async function main(argv: readonly string[], io?: CliIo): Promise<number> {
  const detach = io ? undefined : attachSignals();
  const cliIo = io ?? processIo(detach?.signal);
  try {
    return await dispatch(argv, cliIo);
  } catch (error) {
    return reportError(error, cliIo);
  } finally {
    detach?.dispose();
  }
}

async function dispatch(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    io.stderr.write(topHelp());
    return EXIT.user;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    const topic = first === 'help' ? rest[0] : undefined;
    if (topic !== undefined && isCommandName(topic)) {
      io.stdout.write(renderCommandHelp(COMMANDS[topic].spec));
    } else {
      io.stdout.write(topHelp());
    }
    return EXIT.ok;
  }
  if (first === '--version' || first === '-v') {
    io.stdout.write(`${packageVersion()}\n`);
    return EXIT.ok;
  }
  if (first.startsWith('-')) {
    throw new SkillSearchError('BAD_FLAG', `unknown option '${first}'${didYouMean(first, ['--help', '--version'])} (see skill-search --help)`);
  }
  if (!isCommandName(first)) {
    throw new SkillSearchError('BAD_FLAG', `unknown command '${first}'${didYouMean(first, Object.keys(COMMANDS))} (see skill-search --help)`);
  }
  const { spec, load } = COMMANDS[first];
  let args: ReturnType<typeof parseCommandArgs>;
  try {
    args = parseCommandArgs(spec, rest);
  } catch (error) {
    // A prompt hook never fails the prompt: a flag mistake in the host's settings is one line, exit 0.
    if (first === 'hook' && error instanceof SkillSearchError) return (await import('./commands/hook.js')).reportHookFlagError(rest, error, io);
    throw error;
  }
  if (args.help) {
    io.stdout.write(renderCommandHelp(spec));
    return EXIT.ok;
  }
  const run = await load();
  return run(args, io);
}

/**
 * First SIGINT/SIGTERM aborts the running command so it can close its index and watcher;
 * a second one, or a command that ignores the signal for 3 s, ends the process.
 */
function attachSignals(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(EXIT.interrupted);
    controller.abort(abortError(undefined, `received ${name}`));
    setTimeout(() => process.exit(EXIT.interrupted), 3000).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

function isEntryModule(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryModule()) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
