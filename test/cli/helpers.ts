import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
export const SKILLS = path.join(FIXTURES, 'skills');
export const BROKEN = path.join(FIXTURES, 'broken');
export const TOOLS = path.join(FIXTURES, 'tools.jsonl');
export const QUERIES = path.join(FIXTURES, 'queries.jsonl');

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function tempDir(prefix = 'skill-search-cli-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A private copy of a fixture tree, for tests that edit skills. */
export function copyFixture(from: string): string {
  const dir = tempDir();
  cpSync(from, dir, { recursive: true });
  return dir;
}

/** A new folder of `count` distinct skills (`skill-<i>`), so an index embeds them in several batches; the caller removes it. */
export function manySkills(count: number): string {
  const root = tempDir('skill-search-many-');
  for (let i = 0; i < count; i += 1) {
    mkdirSync(path.join(root, `skill-${i}`));
    writeFileSync(path.join(root, `skill-${i}`, 'SKILL.md'), `---\nname: skill-${i}\ndescription: does task number ${i} with tool ${i % 17}\n---\nbody ${i}\n`);
  }
  return root;
}

/** How long {@link removeDir} waits for detached writers under the folder to exit. */
const WRITER_WAIT_MS = 30_000;

/**
 * True while a process runs with an `--index-dir` under `dir`: the detached `skill-search index`
 * a hook starts once its answer is printed (Linux's /proc; false where there is none).
 */
export function writerUnder(dir: string): boolean {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return false;
  }
  return pids.some((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const indexDir = argv[argv.indexOf('--index-dir') + 1];
      return argv.includes('--index-dir') && indexDir?.startsWith(dir + path.sep) === true;
    } catch {
      return false;
    }
  });
}

/**
 * Removes `dir` once no detached writer a hook started is still writing under it (a writer
 * that finds its index half removed rebuilds it, model cache included), then with retries for
 * one that starts meanwhile.
 */
export function removeDir(dir: string): void {
  const until = Date.now() + WRITER_WAIT_MS;
  while (writerUnder(dir) && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}

export interface RunOptions {
  readonly env?: Record<string, string | undefined>;
  readonly stdin?: string;
  readonly cwd?: string;
  readonly signal?: AbortSignal;
  /** Called with each stdout chunk as it is written (for long-running commands). */
  readonly onStdout?: (chunk: string) => void;
  readonly onStderr?: (chunk: string) => void;
  /** Given: the CLI may start detached processes, and this receives their argv instead. */
  readonly spawnDetached?: (argv: readonly string[]) => number | undefined;
}

/** Runs `main` in-process with captured streams; `cacheDir` isolates the persistent index. */
export async function runCli(argv: readonly string[], cacheDir: string, options: RunOptions = {}): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: {
      write(chunk: string) {
        stdout += chunk;
        options.onStdout?.(chunk);
        return true;
      },
    },
    stderr: {
      write(chunk: string) {
        stderr += chunk;
        options.onStderr?.(chunk);
        return true;
      },
    },
    readStdin: async () => options.stdin ?? '',
    env: { HOME: cacheDir, SKILL_SEARCH_CACHE_DIR: cacheDir, ...options.env },
    cwd: options.cwd ?? ROOT,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.spawnDetached ? { spawnDetached: options.spawnDetached } : {}),
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/** Runs the CLI from source in a child process (`node --import tsx src/cli/main.ts …`). */
export function spawnCli(
  argv: readonly string[],
  cacheDir: string,
  options: { stdin?: string; env?: Record<string, string>; entry?: string } = {},
): Promise<RunResult> {
  const entry = options.entry ?? path.join(ROOT, 'src/cli/main.ts');
  const nodeArgs = entry.endsWith('.ts') ? ['--import', 'tsx', entry] : [entry];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, ...argv], {
      cwd: ROOT,
      env: { ...process.env, HOME: cacheDir, SKILL_SEARCH_CACHE_DIR: cacheDir, EXPERIMENTAL_SKILL_SEARCH: '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

/** Makes `dir` a git repository with everything in it committed (for `library add <git URL>`). */
export function commitAll(dir: string): void {
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', dir, ...args], {
      stdio: 'ignore',
      env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
    });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'skills');
}
