import { SkillSearchError, abortError, isAbortError } from '../errors.js';
import { parseCommandArgs, renderCommandHelp, type CommandEntry } from './args.js';
import { processIo, type CliIo } from './io.js';

// Running one command line, for both entries (main.ts, the whole CLI; hook-main.ts, the hook's bundle).

/** Exit codes of SPEC §7 (130 only when the user interrupted a one-shot command). */
export const EXIT = Object.freeze({ ok: 0, user: 1, internal: 2, interrupted: 130 });

/** File-system refusals the user can act on, in words. */
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

/** `dispatch(argv)`'s exit code, errors reported; without `io`, the process's own, SIGINT/SIGTERM aborting the command. */
export async function runMain(
  argv: readonly string[],
  io: CliIo | undefined,
  dispatch: (argv: readonly string[], io: CliIo) => Promise<number>,
): Promise<number> {
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

/** The command `name` with the arguments after its name: flags, help, then its run. */
export async function runCommand(name: string, command: CommandEntry, rest: readonly string[], io: CliIo): Promise<number> {
  let args: ReturnType<typeof parseCommandArgs>;
  try {
    args = parseCommandArgs(name, command, rest);
  } catch (error) {
    // A prompt hook never fails the prompt: a flag mistake in the host's settings is one line, exit 0.
    if (name === 'hook' && error instanceof SkillSearchError) return (await import('./commands/hook.js')).reportHookFlagError(rest, error, io);
    throw error;
  }
  if (args.help) {
    io.stdout.write(renderCommandHelp(name, command));
    return EXIT.ok;
  }
  return (await command.load())(args, io);
}

/** The first SIGINT/SIGTERM aborts the command (to close its index and watcher); a second one, or 3 s later, ends the process. */
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
