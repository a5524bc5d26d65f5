import { spawn } from 'node:child_process';
import os from 'node:os';

/** The streams and environment a command runs against; tests pass their own. */
export interface CliIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  /** Read all of stdin as text (the hook's JSON). */
  readonly readStdin: () => Promise<string>;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Default for `--cwd`. */
  readonly cwd: string;
  /**
   * Long-running commands (`watch`, `mcp`) stop when this aborts. The process entry wires it
   * to SIGINT/SIGTERM; tests abort it themselves.
   */
  readonly signal?: AbortSignal;
  /** MCP stdio transport streams (default: the process's own). */
  readonly stdin?: NodeJS.ReadableStream;
  readonly rawStdout?: NodeJS.WritableStream;
  /**
   * End the process shortly with `code` even if abandoned work keeps the event loop busy
   * (the hook after a timeout). Absent in-process (tests), where nothing is abandoned for long.
   */
  readonly exitSoon?: (code: number) => void;
  /** Run this CLI again with `argv`, detached, output discarded (the hook's background warm-up). */
  readonly spawnDetached?: (argv: readonly string[]) => void;
}

let pipesGuarded = false;

/**
 * A reader that goes away early (`skill-search list | head -1`, a hook runner that timed
 * out) makes writes fail with EPIPE. That is not our error: stop writing, keep the exit code.
 */
function guardPipes(): void {
  if (pipesGuarded) return;
  pipesGuarded = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
}

export function processIo(signal?: AbortSignal): CliIo {
  guardPipes();
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // A terminal on stdin means nobody is piping hook JSON in; do not wait for typing.
    readStdin: () => (process.stdin.isTTY ? Promise.resolve('') : readAll(process.stdin)),
    env: process.env,
    cwd: process.cwd(),
    ...(signal ? { signal } : {}),
    stdin: process.stdin,
    rawStdout: process.stdout,
    exitSoon: (code) => {
      process.exitCode = code;
      // Unref'd: fires only if something else still holds the loop open; lets stdout flush first.
      setTimeout(() => process.exit(code), 100).unref();
    },
    spawnDetached: (argv) => {
      const entry = process.argv[1];
      if (!entry) return;
      const child = spawn(process.execPath, [...process.execArgv, entry, ...argv], { detached: true, stdio: 'ignore' });
      child.on('error', () => undefined);
      child.unref();
    },
  };
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

export function homeDir(env: CliIo['env']): string {
  return env.HOME || env.USERPROFILE || os.homedir();
}
