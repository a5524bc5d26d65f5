/**
 * A deadline that synchronous work cannot hold off. A timer on the main thread fires only
 * when the event loop is free, and a hook can be stuck in one long synchronous step (parsing
 * a huge index, a native call). So the timer runs outside the main thread; when it fires it
 * writes one line to stderr and kills the whole process (SIGKILL: no handler can delay it, and
 * no partial stdout follows).
 *
 * Where there is a POSIX shell, the timer is a `sleep` in a small shell process. It costs the
 * hook about 3 ms, where a worker thread starts a whole Node environment (docs/cold-start.md).
 * The shell holds a pipe from this process and stands down when the pipe closes: at
 * cancellation, or when this process ends in any way, so it never kills a later process that
 * reuses the pid. Elsewhere (Windows), or if the shell cannot be started, the timer runs on a
 * worker thread.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

/**
 * Sleeps $WATCHDOG_SECONDS in the background while a second job waits for the pipe on stdin
 * (kept as fd 3: a background job's stdin is /dev/null) to close and then stops the sleep.
 * Only a sleep that ran out writes the message and kills. The shell's own job notices go to
 * /dev/null; the message goes to the caller's stderr (fd 4), which only the shell itself holds,
 * so the caller's stderr closes as soon as the shell ends.
 */
const SHELL_SCRIPT = [
  'exec 3<&0 4>&2 2>/dev/null',
  'sleep "$WATCHDOG_SECONDS" 3<&- 4>&- & timer=$!',
  '(read -r _ <&3; kill "$timer") 4>&- &',
  'if wait "$timer"; then printf "%s" "$WATCHDOG_MESSAGE" >&4; kill -9 "$WATCHDOG_PID"; fi',
].join('\n');

const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
setTimeout(() => {
  try { writeSync(2, workerData.message); } catch {}
  process.kill(workerData.pid, 'SIGKILL');
}, workerData.ms);
`;

/** Starts the watchdog; the returned function cancels it (idempotent). `shell` is for tests. */
export function startWatchdog(ms: number, message: string, shell = '/bin/sh'): () => void {
  const line = message.endsWith('\n') ? message : `${message}\n`;
  let stopped = false;
  const fallBack = () => {
    if (!stopped) stop = workerWatchdog(ms, line);
  };
  let stop = (process.platform === 'win32' ? undefined : shellWatchdog(shell, ms, line, fallBack)) ?? workerWatchdog(ms, line);
  return () => {
    if (stopped) return;
    stopped = true;
    stop();
  };
}

/**
 * The shell timer, or undefined when the shell could not be started. A spawn that fails later
 * (its error event) calls `onFailure`, whose replacement takes over.
 */
function shellWatchdog(path: string, ms: number, line: string, onFailure: () => void): (() => void) | undefined {
  const shell = spawn(path, ['-c', SHELL_SCRIPT], {
    stdio: ['pipe', 'ignore', 'inherit'],
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', WATCHDOG_SECONDS: (ms / 1000).toFixed(3), WATCHDOG_MESSAGE: line, WATCHDOG_PID: String(process.pid) },
  });
  // A spawn that failed outright has no pid now, while its error event waits for a loop the
  // caller may be about to block: the caller falls back at once.
  let failed = shell.pid === undefined;
  shell.on('error', () => {
    if (failed) return;
    failed = true;
    onFailure();
  });
  if (failed) return undefined;
  shell.stdin.on('error', () => undefined);
  // The watchdog never keeps a finished process alive.
  shell.unref();
  (shell.stdin as { unref?: () => void }).unref?.();
  return () => {
    if (!failed) shell.stdin.destroy();
  };
}

function workerWatchdog(ms: number, line: string): () => void {
  // Required here, not imported: the shell timer leaves the hook without worker_threads (1.5–9 ms to load).
  const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { ms, message: line, pid: process.pid },
    stdout: false,
    stderr: false,
  });
  worker.unref();
  worker.on('error', () => undefined);
  return () => void worker.terminate().catch(() => undefined);
}
