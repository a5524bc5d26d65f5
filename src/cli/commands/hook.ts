import type { ParsedArgs } from '../args.js';
import { flagError, parsePositiveInt } from '../args.js';
import { DEFAULT_HOOK_TIMEOUT_MS, DEFAULT_K } from '../commands.js';
import { openLiveIndex } from '../context.js';
import type { CliIo } from '../io.js';
import { resolveRetrieval, resolveSources } from '../sources.js';

export const HOOK_TARGETS = ['claude-code'] as const;

/**
 * Flag mistakes are the only errors the hook reports with exit 1: they are in the user's
 * settings file, not in a prompt, and must be visible when the hook is set up. Everything
 * that happens per prompt ends with exit 0.
 */
export async function runHook(args: ParsedArgs, io: CliIo): Promise<number> {
  const target = args.positionals[0];
  if (!(HOOK_TARGETS as readonly string[]).includes(target ?? '')) {
    throw flagError(`unknown hook target '${target}'; expected one of ${HOOK_TARGETS.join(', ')} (see skill-search hook --help)`);
  }
  const retrieval = resolveRetrieval(args.values, io, DEFAULT_K);
  const timeoutRaw = args.values['timeout-ms'];
  const timeoutMs = typeof timeoutRaw === 'string' ? parsePositiveInt('timeout-ms', timeoutRaw) : DEFAULT_HOOK_TIMEOUT_MS;
  // Path flags are checked up front (a typo in settings.json must be visible); `cwd` comes from the hook input.
  resolveSources(args.values, io);

  const { runClaudeCodeHook } = await import('../../integrations/claude-code-hook.js');
  let stdin: string;
  try {
    stdin = await io.readStdin();
  } catch (error) {
    io.stderr.write(`skill-search hook: cannot read stdin: ${(error as Error).message}\n`);
    return 0;
  }
  const result = await runClaudeCodeHook(stdin, {
    open: async (hookCwd) => openLiveIndex(resolveSources(args.values, io, hookCwd), retrieval, io),
    k: retrieval.k,
    mode: retrieval.mode,
    timeoutMs,
    log: (text) => io.stderr.write(`${text}\n`),
    ...(io.signal === undefined ? {} : { signal: io.signal }),
  });
  io.stdout.write(result.stdout);
  // Abandoned work (a model still loading after a timeout) must not hold the prompt up.
  if (result.outcome === 'timeout') io.exitSoon?.(0);
  return 0;
}
