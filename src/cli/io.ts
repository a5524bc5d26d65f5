import { spawn } from 'node:child_process';
import { read } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isatty } from 'node:tty';
import { promisify } from 'node:util';
import { SkillSearchError } from '../errors.js';
import { startWatchdog } from './watchdog.js';

/** The streams and environment a command runs against; tests pass their own. */
export interface CliIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
  /** All of stdin as text (the hook's JSON); past `maxBytes`, a BAD_FILE error instead of holding more. */
  readonly readStdin: (options?: { readonly maxBytes?: number }) => Promise<string>;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Default for `--cwd`. */
  readonly cwd: string;
  /** Long-running commands (`watch`, `mcp`) stop when it aborts; the process entry wires it to SIGINT/SIGTERM. */
  readonly signal?: AbortSignal;
  /** MCP stdio transport streams (default: the process's own). */
  readonly stdin?: NodeJS.ReadableStream;
  readonly rawStdout?: NodeJS.WritableStream;
  /** End the process shortly with `code` even if abandoned work keeps the loop busy (the hook after a timeout). */
  readonly exitSoon?: (code: number) => void;
  /** Kill the process (one stderr line) if it still runs `ms` from now, even with the loop blocked; returns the canceller. */
  readonly watchdog?: (ms: number, message: string) => () => void;
  /** Run this CLI again with `argv`, detached, output discarded (the hook's background build); its pid when it started. */
  readonly spawnDetached?: (argv: readonly string[]) => number | undefined;
}

let pipesGuarded = false;

/** A reader gone early (`skill-search list | head -1`) fails writes with EPIPE: not our error, so keep the exit code. */
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
    readStdin: (options) => (isatty(0) ? Promise.resolve('') : readStdinFd(options?.maxBytes)),
    env: process.env,
    cwd: process.cwd(),
    ...(signal ? { signal } : {}),
    // A getter: `process.stdin` makes a stream (a socket for a pipe) the hook never needs.
    get stdin() {
      return process.stdin;
    },
    rawStdout: process.stdout,
    exitSoon: (code) => {
      process.exitCode = code;
      // Everything written (POSIX writes pipes and files synchronously): exit now, or what follows (the
      // bin's code cache, abandoned work) can hold a loaded machine past the hook's watchdog.
      if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit(code);
      // Unref'd: fires only if something else still holds the loop open; lets stdout flush first.
      setTimeout(() => process.exit(code), 100).unref();
    },
    watchdog: (ms, message) => startWatchdog(ms, message),
    spawnDetached: (argv) => {
      const entry = process.argv[1];
      if (!entry) return undefined;
      const child = spawn(process.execPath, [...process.execArgv, entry, ...argv], { detached: true, stdio: 'ignore' });
      child.on('error', () => undefined);
      child.unref();
      return child.pid;
    },
  };
}

const READ_CHUNK_BYTES = 64 * 1024;

const tooLarge = (maxBytes: number) => new SkillSearchError('BAD_FILE', `stdin is larger than ${maxBytes} bytes`);

/**
 * All of stdin, read from fd 0 with `fs.read`, cheaper for a cold hook than `process.stdin`'s stream. A
 * descriptor that answers EAGAIN (a non-blocking pipe) hands the rest to the stream, as Windows does all.
 */
export async function readStdinFd(maxBytes = Number.POSITIVE_INFINITY, fd = 0, stream: () => NodeJS.ReadableStream = () => process.stdin): Promise<string> {
  if (process.platform === 'win32') return readAll(stream(), maxBytes);
  const chunks: Buffer[] = [];
  let length = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    let got: number;
    try {
      got = (await promisify(read)(fd, buffer, 0, buffer.length, null)).bytesRead;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK') throw error;
      return readAll(stream(), maxBytes, chunks);
    }
    if (got === 0) return Buffer.concat(chunks).toString('utf8');
    length += got;
    if (length > maxBytes) throw tooLarge(maxBytes);
    chunks.push(buffer.subarray(0, got));
  }
}

/** `stream` after the bytes in `chunks`, as text; past `maxBytes` in all, a BAD_FILE error. */
export async function readAll(stream: NodeJS.ReadableStream, maxBytes = Number.POSITIVE_INFINITY, chunks: Buffer[] = []): Promise<string> {
  let length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    length += buffer.length;
    if (length > maxBytes) throw tooLarge(maxBytes);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function homeDir(env: CliIo['env']): string {
  return env.HOME || env.USERPROFILE || os.homedir();
}

/** Codex's home folder: `$CODEX_HOME`, else `~/.codex`. */
export function codexHomeDir(env: CliIo['env'], home = homeDir(env)): string {
  return env.CODEX_HOME ? path.resolve(env.CODEX_HOME) : path.join(home, '.codex');
}
