import { errorMessage } from '../../errors.js';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ParsedArgs, ParsedValues } from '../args.js';
import { parsePositiveInt } from '../args.js';
import { HOOK_DEFAULTS } from '../flags.js';
import { openSearchFor, storeFile } from '../context.js';
import type { CliIo } from '../io.js';
import { cacheRoot, resolveIndexDir, resolveRetrieval, resolveSources, type SourceOptions } from '../sources.js';
import type { HookTurn } from '../../integrations/claude-code-hook.js';
import type { OpenedSearch } from '../../service/open-search.js';
import { UsageStore } from '../../usage/usage-store.js';
import { BUILDER_LEASE_MS, BuilderLease, builderLeaseDir, builtMarker, snapshotMarker, warmingMarker } from '../builder-lease.js';
import { hookNotice } from '../../integrations/hook-notice.js';
import { sessionsDir } from '../../integrations/session-state.js';
import { HOSTS, type HostName } from '../../types.js';
import { firstLine } from '../../util/text.js';

/**
 * Hook input (JSON with the prompt) longer than this is not read: the prompt is cut to
 * MAX_QUERY_CHARS for the search anyway, and holding more only costs memory.
 */
export const MAX_HOOK_INPUT_BYTES = 32 * 1024 * 1024;

/** The hook's timings around its budget (`--timeout-ms`), in milliseconds. */
const HOOK_TIMING = Object.freeze({
  /**
   * The watchdog ends the process this long after the budget: time for the budget's own timer
   * to print nothing and exit 0, which it does whenever the event loop is free.
   */
  watchdogGrace: 1000,
  /** Shortest wait for stdin, whatever the budget (Claude Code writes it at once). */
  minStdinWait: 1000,
  /**
   * A server that stalls (busy reindexing) gets a quarter of the budget, within these bounds,
   * and must leave time to answer in-process.
   */
  serverRequest: { share: 1 / 4, min: 100, max: 1000 },
  /** A background warm-up started less than this long ago is assumed to be still running. */
  warmingTtl: 10 * 60_000,
  /** A background saver of one catalog stamp started less than this long ago is assumed to be still running. */
  snapshotTtl: 2 * 60_000,
});

/**
 * Every mistake ends with exit 0 and one line saying what went wrong: on stderr, and for Claude
 * Code also as the `systemMessage` it shows the user (a flag or config file mistake lives in the
 * user's settings and must be visible, but never costs the prompt). Never exit 2: for
 * UserPromptSubmit that blocks the prompt.
 */
export async function runHook(args: ParsedArgs, io: CliIo): Promise<number> {
  // A builder started after this moment indexes the files as this hook finds them, or later ones.
  const began = Date.now();
  const log = (text: string) => io.stderr.write(`${text}\n`);
  const target = args.positionals[0];
  // Every host's prompt hook: Codex's `UserPromptSubmit` hook takes the same JSON as Claude Code's.
  if (!(HOSTS as readonly string[]).includes(target ?? '')) {
    log(`skill-search hook: unknown hook target '${target ?? ''}'; expected one of ${HOSTS.join(', ')} (see skill-search hook --help)`);
    return 0;
  }
  const host = target as HostName;
  let retrieval: ReturnType<typeof resolveRetrieval>;
  let timeoutMs: number;
  try {
    retrieval = resolveRetrieval(args.values, io, HOOK_DEFAULTS.k);
    const timeoutRaw = args.values['timeout-ms'];
    timeoutMs = typeof timeoutRaw === 'string' ? parsePositiveInt('timeout-ms', timeoutRaw) : HOOK_DEFAULTS.timeoutMs;
    // Path flags and the user's config are checked up front; `cwd` comes from the hook input.
    resolveSources(args.values, io, undefined, 'never');
  } catch (error) {
    reportHookProblem(host, `skill-search hook: skipped: ${firstLine(errorMessage(error)).replace(/^skill-search: /, '')}`, io);
    return 0;
  }

  let stopWatchdog: (() => void) | undefined;
  try {
    // Claude Code writes the input at once; the wait only guards against a stdin never closed.
    const stdinWaitMs = Math.max(timeoutMs, HOOK_TIMING.minStdinWait);
    const stdin = await withDeadline(io.readStdin({ maxBytes: MAX_HOOK_INPUT_BYTES }), stdinWaitMs);
    if (stdin === undefined) {
      log(`skill-search hook: no input on stdin within ${stdinWaitMs} ms; skipped`);
      io.exitSoon?.(0);
      return 0;
    }
    // From here on the budget holds even through synchronous work that blocks every timer.
    stopWatchdog = io.watchdog?.(
      timeoutMs + HOOK_TIMING.watchdogGrace,
      `skill-search hook: still busy ${HOOK_TIMING.watchdogGrace} ms past the ${timeoutMs} ms budget; stopped`,
    );
    const [{ runClaudeCodeHook }, { socketPathFor }, { neverSuggesting }] = await Promise.all([
      import('../../integrations/claude-code-hook.js'),
      import('../../integrations/socket-protocol.js'),
      import('../../integrations/hosts.js'),
    ]);
    let search: OpenedSearch | undefined;
    let sources: SourceOptions | undefined;
    // With a way to start a process that outlives this one, the catalog a live search (or a
    // search of a catalog at a new path) leaves unsaved is saved there: the prompt does not wait for it.
    let snapshotDue: string | undefined;
    const deferSnapshot = io.spawnDetached === undefined ? undefined : (sourceStamp: string) => (snapshotDue = sourceStamp);
    const result = await runClaudeCodeHook(stdin, {
      open: async (hookCwd) => {
        const opened = resolveSources(args.values, io, args.values.cwd === undefined ? hookCwd : undefined, 'never');
        sources = opened;
        // A `watch` for the same catalog and model listens beside its index: ask it first.
        search = await openSearchFor(opened, retrieval, io, {
          server: {
            socketPath: socketPathFor(resolveIndexDir(opened, retrieval, io.env)),
            requestTimeoutMs: Math.min(
              HOOK_TIMING.serverRequest.max,
              Math.max(HOOK_TIMING.serverRequest.min, Math.floor(timeoutMs * HOOK_TIMING.serverRequest.share)),
            ),
          },
          ...(deferSnapshot === undefined ? {} : { onSnapshotDue: deferSnapshot }),
          onFallback: ({ from, reason, noServer, untrusted }) => {
            if (from !== 'server') return;
            if (untrusted) log(`skill-search hook: ${reason}; searching in-process`);
            else if (!noServer) log(`skill-search hook: search server did not answer (${reason}); searching in-process`);
          },
        });
        return neverSuggesting(
          search,
          opened.config.never.map((entry) => entry.value),
        );
      },
      k: retrieval.k,
      timeoutMs,
      log,
      host,
      sessionDir: sessionsDir(cacheRoot(io.env)),
      keepDemo: args.values.demo === true,
      onTurn: (turn) => recordUsage(turn, sources, io, log),
      listedByHost: async (names) => (sources === undefined ? new Set() : (await import('./host-profile.js')).namesHostLists(host, sources, names)),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    });
    // After a timeout, abandoned work may still block the loop: the watchdog stays armed.
    if (result.outcome !== 'timeout') stopWatchdog?.();
    io.stdout.write(result.stdout);
    // The answer came from memory: say so once, or every prompt pays for a build no one sees fail.
    const saveProblem = search?.saveProblem;
    if (sources && saveProblem !== undefined) log(`skill-search hook: could not save the index in ${storeFile(io.env)} (${saveProblem}); answered from memory`);
    if (result.outcome === 'timeout') {
      // The index was probably cold: build it in the background so the next prompt is fast.
      if (sources && io.spawnDetached) warmInBackground(args.values, sources, resolveIndexDir(sources, retrieval, io.env), began, io);
      // Abandoned work (a model still loading) must not hold the prompt up.
      io.exitSoon?.(0);
    } else if (sources && snapshotDue !== undefined) {
      snapshotInBackground(args.values, sources, resolveIndexDir(sources, retrieval, io.env), snapshotDue, began, io);
    }
  } catch (error) {
    stopWatchdog?.();
    reportHookProblem(host, `skill-search hook: skipped: ${firstLine(errorMessage(error))}`, io);
  }
  return 0;
}

/**
 * A flag the hook's command line could not parse (`skill-search hook claude-code --bogus`): one
 * line, shown as the other mistakes are, and exit 0.
 */
export function reportHookFlagError(argv: readonly string[], error: Error, io: CliIo): number {
  const line = `skill-search hook: skipped: ${firstLine(error.message).replace(/^skill-search: /, '')}`;
  const target = argv.find((arg) => !arg.startsWith('-'));
  if ((HOSTS as readonly string[]).includes(target ?? '')) reportHookProblem(target as HostName, line, io);
  else io.stderr.write(`${line}\n`);
  return 0;
}

/** `line` on stderr, and where the host shows a hook's message (Claude Code), on stdout as that message. */
function reportHookProblem(host: HostName, line: string, io: CliIo): void {
  io.stderr.write(`${line}\n`);
  io.stdout.write(hookNotice(host, line));
}

/** Remembers what the session used and what was suggested, per project (skill-search stats). */
function recordUsage(turn: HookTurn, sources: SourceOptions | undefined, io: CliIo, log: (line: string) => void): void {
  if (sources === undefined || (turn.invoked.length === 0 && turn.suggested.length === 0)) return;
  const store = UsageStore.open(cacheRoot(io.env), sources.cwd);
  const session = turn.sessionId ?? 'unknown';
  store.recordUsed(session, turn.invoked);
  store.recordSuggested(session, turn.suggested);
  const failed = store.save();
  if (failed) log(`skill-search hook: usage not saved (${failed.message})`);
}

async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts `skill-search index` for the same catalog, detached, at most once per
 * `HOOK_TIMING.warmingTtl` per index (a marker file beside the working folder's directory,
 * `warmingMarker`, records the attempt).
 */
function warmInBackground(values: ParsedValues, sources: SourceOptions, indexDir: string, began: number, io: CliIo): void {
  const due = () => !builderStartedSince(indexDir, began) && claimMarker(warmingMarker(indexDir), HOOK_TIMING.warmingTtl);
  if (!indexInBackground(values, sources, indexDir, io, due)) return;
  io.stderr.write(`skill-search hook: building the index in the background (${indexDir})\n`);
}

/**
 * Starts `skill-search index` for the same catalog, detached, to save in the store the catalog a
 * live search of `sourceStamp` left unsaved (the vectors are stored already, so that process
 * embeds nothing new): once per stamp per `HOOK_TIMING.snapshotTtl`, so the next prompts do
 * not start it again while it runs.
 */
function snapshotInBackground(values: ParsedValues, sources: SourceOptions, indexDir: string, sourceStamp: string, began: number, io: CliIo): void {
  indexInBackground(
    values,
    sources,
    indexDir,
    io,
    () => !builderStartedSince(indexDir, began) && claimMarker(snapshotMarker(indexDir), HOOK_TIMING.snapshotTtl, sourceStamp),
  );
}

/**
 * Whether a builder of this index was started, or saved its catalog, since `began` (when this
 * hook began, before it found no saved catalog): it saved this hook's catalog or a newer one, and
 * a second builder would only repeat it (six hooks at once start one, even once the first exited).
 */
function builderStartedSince(indexDir: string, began: number): boolean {
  for (const marker of [warmingMarker(indexDir), snapshotMarker(indexDir), builtMarker(indexDir)]) {
    try {
      if (statSync(marker).mtimeMs >= began) return true;
    } catch {
      // No marker: no builder was started from it.
    }
  }
  return false;
}

/**
 * True when this process may start the work `marker` records: no marker, one older than `ttl`,
 * or one for other work (`content`); the marker then records this attempt. False when it cannot
 * be written.
 */
function claimMarker(marker: string, ttl: number, content = ''): boolean {
  try {
    if (Date.now() - statSync(marker).mtimeMs < ttl && readFileSync(marker, 'utf8').split('\n', 2)[1] === content) return false;
  } catch {
    // No marker: nobody is at it.
  }
  try {
    mkdirSync(path.dirname(marker), { recursive: true, mode: 0o700 });
    writeFileSync(marker, `${new Date().toISOString()}\n${content}\n`, { mode: 0o600 });
    chmodSync(marker, 0o600);
    return true;
  } catch {
    return false;
  }
}

/**
 * `skill-search index` for the same catalog and model, detached (`io.spawnDetached`), when `due`
 * says so and no other builder of this index folder runs (`<index dir>.builder`, a lease taken
 * atomically, whichever marker asked): true when it was started.
 */
function indexInBackground(values: ParsedValues, sources: SourceOptions, indexDir: string, io: CliIo, due: () => boolean): boolean {
  const lease = BuilderLease.claim(builderLeaseDir(indexDir), { maxAgeMs: BUILDER_LEASE_MS });
  if (lease === undefined) return false;
  if (!due()) {
    lease.release();
    return false;
  }
  const argv = ['index', '--cwd', sources.cwd];
  for (const dir of sources.skillsDirs) argv.push('--skills-dir', dir);
  for (const file of sources.toolsFiles) argv.push('--tools', file);
  for (const dir of sources.addDirs) argv.push('--add-dir', dir);
  for (const dir of sources.libraryDirs) argv.push('--library', dir);
  if (sources.demo !== 'auto') argv.push(sources.demo === 'always' ? '--demo' : '--no-demo');
  if (typeof values.model === 'string') argv.push('--model', values.model);
  argv.push('--index-dir', indexDir);
  const pid = io.spawnDetached?.(argv);
  if (typeof pid === 'number') lease.handTo(pid);
  else lease.release();
  return true;
}
