/**
 * A deadline synchronous work cannot hold off: a timer outside the main thread that, when it fires,
 * writes one line to stderr and SIGKILLs the process. A `sleep` in a small shell (far cheaper to start
 * than a worker thread: docs/cold-start.md) that stands down when its pipe from this process closes,
 * so it never kills a process reusing the pid; elsewhere, or if the shell cannot start, a worker thread.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

/**
 * Sleeps $WATCHDOG_SECONDS while a second job waits for the pipe (kept as fd 3: a background job's
 * stdin is /dev/null) to close and stops the sleep; only a sleep that ran out writes and kills. The
 * message goes to the caller's stderr as fd 4, which only the shell holds, so it closes with the shell.
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

/** The shell timer, or undefined when the shell could not be started; a later spawn error calls `onFailure`. */
function shellWatchdog(path: string, ms: number, line: string, onFailure: () => void): (() => void) | undefined {
  const shell = spawn(path, ['-c', SHELL_SCRIPT], {
    stdio: ['pipe', 'ignore', 'inherit'],
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', WATCHDOG_SECONDS: (ms / 1000).toFixed(3), WATCHDOG_MESSAGE: line, WATCHDOG_PID: String(process.pid) },
  });
  // A spawn that failed outright has no pid now (its error event waits for a loop the caller may block): fall back at once.
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
  // Required here, not imported: the shell timer leaves the hook without worker_threads (docs/cold-start.md).
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
