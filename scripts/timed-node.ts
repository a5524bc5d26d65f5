/**
 * One `node args…` run timed as the cold-hook scripts compare builds: its wall time and, through
 * bash's `time` when the machine has bash, its CPU time (user + system, to the millisecond).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface TimedRun {
  readonly ms: number;
  /** NaN without /usr/bin/time. */
  readonly cpuMs: number;
  readonly stdout: string;
  /** The run's own stderr, without /usr/bin/time's line. */
  readonly stderr: string;
}

/** Bash's `time` reads the child's rusage to the millisecond (/usr/bin/time prints centiseconds). */
const BASH = existsSync('/bin/bash') ? '/bin/bash' : undefined;
const TIMED = 'TIMEFORMAT="cpu %3U %3S"; time "$@"';

export function timedNode(args: readonly string[], env: NodeJS.ProcessEnv, input?: string): TimedRun {
  const started = performance.now();
  const run =
    BASH === undefined
      ? spawnSync(process.execPath, args, { env, input, encoding: 'utf8' })
      : spawnSync(BASH, ['-c', TIMED, 'bash', process.execPath, ...args], { env, input, encoding: 'utf8' });
  const ms = performance.now() - started;
  const cpu = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(run.stderr);
  return {
    ms,
    cpuMs: cpu === null ? Number.NaN : 1000 * (Number(cpu[1]) + Number(cpu[2])),
    stdout: run.stdout,
    stderr: cpu === null ? run.stderr : run.stderr.slice(0, cpu.index),
  };
}
