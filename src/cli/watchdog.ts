/**
 * A deadline that synchronous work cannot hold off. A timer on the main thread fires only
 * when the event loop is free, and a hook can be stuck in one long synchronous step (parsing
 * a huge index, a native call). This timer runs on a worker thread; when it fires it writes
 * one line to stderr and kills the whole process (SIGKILL: no handler can delay it, and no
 * partial stdout follows).
 */
import { Worker } from 'node:worker_threads';

const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
setTimeout(() => {
  try { writeSync(2, workerData.message); } catch {}
  process.kill(workerData.pid, 'SIGKILL');
}, workerData.ms);
`;

/** Starts the watchdog; the returned function cancels it (idempotent). */
export function startWatchdog(ms: number, message: string): () => void {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { ms, message: message.endsWith('\n') ? message : `${message}\n`, pid: process.pid },
    stdout: false,
    stderr: false,
  });
  // The watchdog never keeps a finished process alive.
  worker.unref();
  worker.on('error', () => undefined);
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    void worker.terminate().catch(() => undefined);
  };
}
