import { errorMessage } from '../../errors.js';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type ParsedArgs, type ParsedValues, parsePositiveInt } from '../args.js';
import { HOOK_DEFAULTS } from '../flags.js';
import { openSearchFor, storeFile } from '../context.js';
import type { CliIo } from '../io.js';
import { existingLibraryDirs, resolveIndexDir, resolveRetrieval, resolveSources, type SourceOptions } from '../sources.js';
import { cacheRoot } from '../../model-store/paths.js';
import { storeUnwritable } from '../store-access.js';
import type { HookTurn } from '../../integrations/claude-code-hook.js';
import type { OpenedSearch } from '../../service/open-search.js';
import { UsageStore } from '../../usage/usage-store.js';
import { BuilderLease, besideIndex, writeMarker } from '../builder-lease.js';
import { hookNotice } from '../../integrations/hosts.js';
import { sessionsDir } from '../../integrations/session-state.js';
import { HOSTS, type HostName } from '../../types.js';
import { nearestExisting } from '../../util/paths.js';
import { firstLine } from '../../util/text.js';

/**
 * The folder the host ran the prompt in, or, when it was deleted during the session (a removed worktree), the nearest folder above it
 * that exists: the user's skills and the parent projects' are still there to suggest.
 */
function existingCwd(hookCwd: string | undefined, io: CliIo, log: (line: string) => void): string | undefined {
  if (hookCwd === undefined || hookCwd === '') return hookCwd;
  const wanted = path.resolve(io.cwd, hookCwd);
  const folder = nearestExisting(wanted);
  if (folder !== wanted) log(`skill-search hook: the session's folder ${wanted} no longer exists; searched from ${folder}`);
  return folder;
}

/** Hook input longer than this is not read: the prompt is cut to MAX_QUERY_CHARS anyway. */
const MAX_HOOK_INPUT_BYTES = 32 * 1024 * 1024;

/** The hook's timings around its budget (`--timeout-ms`), in milliseconds. */
const HOOK_TIMING = Object.freeze({
  /** The watchdog ends the process this long after the budget, which leaves the budget's own timer time to exit 0. */
  watchdogGrace: 1000,
  /** Shortest wait for stdin, whatever the budget (Claude Code writes it at once). */
  minStdinWait: 1000,
  /** A stalled server (busy reindexing) gets a quarter of the budget, within these bounds, leaving time to answer in-process. */
  serverRequest: { share: 1 / 4, min: 100, max: 1000 },
  /** A background build started less than this long ago (per marker, see `indexInBackground`) is taken to be still running, unless a build finished since. */
  markerTtl: { warming: 10 * 60_000, snapshot: 2 * 60_000 },
});

/**
 * Every mistake ends with exit 0 and one line saying what went wrong, on stderr and, for Claude
 * Code, as the `systemMessage` it shows the user. Never exit 2: for UserPromptSubmit that blocks the prompt.
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
    reportHookProblem(host, skipped(error), io);
    return 0;
  }

  let stopWatchdog: (() => void) | undefined;
  try {
    // Claude Code writes the input at once; the wait only guards against a stdin never closed.
    const stdinWaitMs = Math.max(timeoutMs, HOOK_TIMING.minStdinWait);
    const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), stdinWaitMs).unref());
    const stdin = await Promise.race([io.readStdin({ maxBytes: MAX_HOOK_INPUT_BYTES }), timeout]);
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
    const [{ runClaudeCodeHook }, { socketPathFor }, { neverSuggesting, hostShadowing }] = await Promise.all([
      import('../../integrations/claude-code-hook.js'),
      import('../../integrations/socket-protocol.js'),
      import('../../integrations/hosts.js'),
    ]);
    const { serverRequest } = HOOK_TIMING;
    let search: OpenedSearch | undefined;
    let sources: SourceOptions | undefined;
    let snapshotDue: string | undefined;
    const result = await runClaudeCodeHook(stdin, {
      open: async (hookCwd) => {
        const opened = resolveSources(args.values, io, args.values.cwd === undefined ? existingCwd(hookCwd, io, log) : undefined, 'never');
        sources = opened;
        // A `watch` for the same catalog and model listens beside its index: ask it first.
        search = await openSearchFor(opened, retrieval, io, {
          server: {
            socketPath: socketPathFor(resolveIndexDir(opened, retrieval, io.env)),
            requestTimeoutMs: Math.min(serverRequest.max, Math.max(serverRequest.min, Math.floor(timeoutMs * serverRequest.share))),
          },
          // The catalog a live search leaves unsaved is saved by a detached process: the prompt does not wait for it.
          onSnapshotDue: io.spawnDetached && ((sourceStamp: string) => (snapshotDue = sourceStamp)),
          onFallback: ({ from, reason, noServer, untrusted }) => {
            if (from !== 'server') return;
            if (untrusted) log(`skill-search hook: ${reason}; searching in-process`);
            else if (!noServer) log(`skill-search hook: search server did not answer (${reason}); searching in-process`);
          },
        });
        const never = neverSuggesting(
          search,
          opened.config.never.map((entry) => entry.value),
        );
        // Codex lists its own skills (`.system`), which we do not index: ours by those names are not suggested in Codex.
        return host === 'codex' ? hostShadowing(never, host, await (await import('./host-profile.js')).codexSystemNames(opened)) : never;
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
    // Said, or every prompt pays for a build no one sees fail.
    const saveProblem = search?.saveProblem;
    if (sources && saveProblem !== undefined) log(`skill-search hook: could not save the index in ${storeFile(io.env)} (${saveProblem}); answered from memory`);
    const indexDir = sources && resolveIndexDir(sources, retrieval, io.env);
    const locked = result.outcome === 'timeout' ? storeUnwritable(storeFile(io.env)) : undefined;
    if (locked !== undefined) {
      // No build can be saved: every prompt embeds again, whatever runs in the background.
      log(
        `skill-search hook: the store ${storeFile(io.env)} cannot be written (${locked.at}: ${locked.code}): every prompt embeds the skills again; 'skill-search doctor search' says how to fix it`,
      );
      io.exitSoon?.(0);
    } else if (result.outcome === 'timeout') {
      // The index was probably cold: built in the background, the next prompt is fast.
      if (sources && indexDir && io.spawnDetached && indexInBackground(args.values, sources, indexDir, io, { marker: 'warming', began })) {
        log(`skill-search hook: building the index in the background (${indexDir})`);
      }
      // Abandoned work (a model still loading) must not hold the prompt up.
      io.exitSoon?.(0);
    } else if (sources && indexDir && snapshotDue !== undefined) {
      indexInBackground(args.values, sources, indexDir, io, { marker: 'snapshot', began, stamp: snapshotDue });
    }
  } catch (error) {
    stopWatchdog?.();
    reportHookProblem(host, skipped(error), io);
  }
  return 0;
}

const skipped = (error: unknown) => `skill-search hook: skipped: ${firstLine(errorMessage(error))}`;

/** A flag the hook's command line could not parse (`hook claude-code --bogus`): one line, as the other mistakes, and exit 0. */
export function reportHookFlagError(argv: readonly string[], error: Error, io: CliIo): number {
  const target = argv.find((arg) => !arg.startsWith('-'));
  if ((HOSTS as readonly string[]).includes(target ?? '')) reportHookProblem(target as HostName, skipped(error), io);
  else io.stderr.write(`${skipped(error)}\n`);
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

function modifiedAt(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return Number.NEGATIVE_INFINITY;
  }
}

/**
 * Whether `marker` announces a build still under way: younger than `ttl`, naming the same `content`, and no build has finished since
 * it was written (`builtAt`: that build was the one it announced).
 */
function announced(marker: string, ttl: number, builtAt: number, content: string): boolean {
  const markedAt = modifiedAt(marker);
  try {
    return Date.now() - markedAt < ttl && markedAt > builtAt && readFileSync(marker, 'utf8').split('\n', 2)[1] === content;
  } catch {
    // No marker: nobody is at it.
    return false;
  }
}

/**
 * Starts `skill-search index` for the same catalog and model, detached: after a timeout to build a cold
 * index (`warming`), after a live search to save the catalog it left unsaved (`snapshot`, naming its
 * `stamp`; the vectors are stored, so it embeds nothing). Not while another builder of this index holds
 * the lease, when one started or saved since `began` (it covers this hook's catalog: six hooks at once
 * start one), or when the marker names the same stamp, is younger than its TTL and no build finished after it (a `warming` marker
 * names no stamp: without that, once a build it announced was done, every timed-out hook for its TTL started none). True when started.
 */
function indexInBackground(
  values: ParsedValues,
  sources: SourceOptions,
  indexDir: string,
  io: CliIo,
  { marker, began, stamp = '' }: { readonly marker: 'warming' | 'snapshot'; readonly began: number; readonly stamp?: string },
): boolean {
  const lease = BuilderLease.claim(besideIndex(indexDir, 'builder'));
  if (lease === undefined) return false;
  const markerFile = besideIndex(indexDir, marker);
  if (
    (['warming', 'snapshot', 'built'] as const).some((kind) => modifiedAt(besideIndex(indexDir, kind)) >= began) ||
    announced(markerFile, HOOK_TIMING.markerTtl[marker], modifiedAt(besideIndex(indexDir, 'built')), stamp)
  ) {
    lease.release();
    return false;
  }
  const argv = ['index', '--cwd', sources.cwd];
  for (const dir of sources.skillsDirs) argv.push('--skills-dir', dir);
  for (const file of sources.toolsFiles) argv.push('--tools', file);
  for (const dir of sources.addDirs) argv.push('--add-dir', dir);
  // `--library` must name a folder: one not made yet is left out (the index folder is passed as is).
  for (const dir of existingLibraryDirs(sources)) argv.push('--library', dir);
  if (sources.demo !== 'auto') argv.push(sources.demo === 'always' ? '--demo' : '--no-demo');
  if (typeof values.model === 'string') argv.push('--model', values.model);
  argv.push('--index-dir', indexDir);
  const pid = io.spawnDetached?.(argv);
  if (typeof pid === 'number') lease.handTo(pid);
  else lease.release();
  // Only now: a hook killed before the builder started (by its watchdog, or the host) left a marker that stopped every
  // timed-out hook's builder for its TTL. Until here the lease keeps other hooks out.
  writeMarker(markerFile, stamp);
  return true;
}
