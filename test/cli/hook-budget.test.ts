import { spawn, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { readAll, type CliIo } from '../../src/cli/io.js';
import { runClaudeCodeHook } from '../../src/integrations/claude-code-hook.js';
import { capQuery, MAX_QUERY_CHARS } from '../../src/integrations/query-cap.js';
import { ROOT, SKILLS, removeDir, tempDir, type RunResult } from './helpers.js';

const cache = tempDir();
afterAll(() => removeDir(cache));
const indexDir = path.join(cache, 'index');
const FLAGS = ['hook', 'claude-code', '--skills-dir', SKILLS, '--model', 'hash', '--index-dir', indexDir];
const PDF_CONTEXT = /^\{"hookSpecificOutput":\{"hookEventName":"UserPromptSubmit","additionalContext":"Skills relevant to your task:\\n\\n- pdf-forms: /;

/** How long a hook process the test starts may run before it is killed. */
const KILL_AFTER_MS = 20_000;
/** Two cold hook processes, one after the other, each allowed its kill bound: their start (tsx, modules) is outside the budget. */
const TWO_HOOKS_MS = 2 * KILL_AFTER_MS + 10_000;

/** The CLI from source in a child process, killed if it outlives `killAfterMs` (a hang fails, never blocks the suite). */
function spawnHook(argv: readonly string[], stdin: string, killAfterMs = KILL_AFTER_MS): Promise<RunResult & { killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), ...argv], {
      cwd: ROOT,
      env: { ...process.env, HOME: cache, SKILL_SEARCH_CACHE_DIR: cache },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, killAfterMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr, killed });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin);
  });
}

const input = (prompt: string, transcript = '/dev/null') => JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt, transcript_path: transcript });

describe('the hook budget holds whatever the input', () => {
  it('a FIFO as transcript_path is never opened for reading: the hook answers and exits', async () => {
    const fifo = path.join(cache, 'transcript.fifo');
    execFileSync('mkfifo', [fifo]);
    const result = await spawnHook([...FLAGS, '--timeout-ms', '8000'], input('fill a pdf form', fifo));
    expect(result.killed).toBe(false);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(PDF_CONTEXT);
  }, 30_000);

  it(
    'a 20 MB prompt (a pasted log) is answered within the budget, as its capped form is',
    async () => {
      const log = 'WARN acroform field "Name" left empty while filling the PDF form\n'.repeat(320_000);
      const prompt = `why does filling this pdf form fail?\n${log}`;
      expect(prompt.length).toBeGreaterThan(20_000_000);
      const result = await spawnHook([...FLAGS, '--timeout-ms', '8000'], input(prompt));
      expect(result.killed).toBe(false);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      // The same answer as for the capped prompt itself.
      expect(await spawnHook([...FLAGS, '--timeout-ms', '8000'], input(capQuery(prompt)))).toEqual(result);
    },
    TWO_HOOKS_MS,
  );

  it('the search is asked the capped prompt, whatever its length', async () => {
    const queries: string[] = [];
    const searcher = {
      search: async (query: string) => {
        queries.push(query);
        return [];
      },
      close: async () => undefined,
    };
    const prompt = `fill this pdf form\n${'x'.repeat(1_000_000)}\nthanks`;
    const result = await runClaudeCodeHook(input(prompt), { open: async () => searcher, k: 3, timeoutMs: 5000, log: () => undefined });
    expect(result.outcome).toBe('nothing');
    expect(queries.length).toBeGreaterThan(0);
    for (const query of queries) expect(query).toBe(capQuery(prompt));
  }, 30_000);
});

describe('the watchdog', () => {
  type Mode = 'block' | 'cancel' | 'no-shell' | 'exit-armed';
  // 'no-shell' names a shell that does not exist: the worker thread takes over.
  const script = (mode: Mode) => `
    import { startWatchdog } from ${JSON.stringify(path.join(ROOT, 'src/cli/watchdog.ts'))};
    const mode = ${JSON.stringify(mode)};
    const stop = startWatchdog(mode === 'exit-armed' ? 60_000 : 200, 'watchdog: stopped', mode === 'no-shell' ? '/nonexistent/sh' : undefined);
    if (mode === 'cancel') stop();
    const end = Date.now() + (mode === 'cancel' ? 600 : mode === 'exit-armed' ? 0 : 15000);
    while (Date.now() < end) {}
    process.stdout.write(mode === 'exit-armed' ? String(process.pid) : 'finished');
  `;
  const run = (mode: Mode) =>
    new Promise<{ signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
      const file = path.join(cache, `watchdog-${mode}.ts`);
      writeFileSync(file, script(mode));
      const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: ROOT });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('close', (_code, signal) => resolve({ signal, stdout, stderr }));
    });

  it('kills a process whose event loop is blocked, with one line and no stdout', async () => {
    expect(await run('block')).toEqual({ signal: 'SIGKILL', stdout: '', stderr: 'watchdog: stopped\n' });
  }, 20_000);

  it('once cancelled, lets the process finish', async () => {
    expect(await run('cancel')).toEqual({ signal: null, stdout: 'finished', stderr: '' });
  }, 20_000);

  it('runs on a worker thread when the shell cannot be started', async () => {
    expect(await run('no-shell')).toEqual({ signal: 'SIGKILL', stdout: '', stderr: 'watchdog: stopped\n' });
  }, 20_000);

  it.skipIf(process.platform !== 'linux')(
    'goes away with a process that ends while it is armed, and holds its stderr no longer',
    async () => {
      const started = Date.now();
      // run() resolves once the child's stdout and stderr have closed: a timer shell that kept
      // stderr open would hold it for its 60 s.
      const result = await run('exit-armed');
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(result).toMatchObject({ signal: null, stderr: '' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const armedFor = `WATCHDOG_PID=${result.stdout}\0`;
      const left = readdirSync('/proc').filter((entry) => {
        try {
          return /^\d+$/.test(entry) && readFileSync(`/proc/${entry}/environ`, 'latin1').includes(armedFor);
        } catch {
          return false;
        }
      });
      expect(left).toEqual([]);
    },
    20_000,
  );

  it('the hook arms it for the budget plus a grace second, and disarms it once it has an answer', async () => {
    const armed: number[] = [];
    let stopped = 0;
    const io: CliIo = {
      stdout: { write: () => true },
      stderr: { write: () => true },
      readStdin: async () => input('fill a pdf form'),
      env: { HOME: cache, SKILL_SEARCH_CACHE_DIR: cache },
      cwd: ROOT,
      watchdog: (ms) => {
        armed.push(ms);
        return () => {
          stopped += 1;
        };
      },
    };
    expect(await main([...FLAGS, '--timeout-ms', '20000'], io)).toBe(0);
    expect(armed).toEqual([21_000]);
    expect(stopped).toBe(1);
  });
});

describe('bounded input', () => {
  it('capQuery keeps a short query, and the start and end of a long one', () => {
    expect(capQuery('fill a pdf form')).toBe('fill a pdf form');
    const long = `${'a'.repeat(10_000)}${'z'.repeat(10_000)}`;
    const capped = capQuery(long);
    expect(capped).toHaveLength(MAX_QUERY_CHARS);
    expect(capped).toBe(`${'a'.repeat(6143)}\n${'z'.repeat(2048)}`);
    // Never half of a surrogate pair at either cut.
    const emoji = '😀'.repeat(10_000);
    expect(capQuery(emoji, 101)).toMatch(/^(😀)+\n(😀)+$/u);
  });

  it('stdin longer than the cap is refused once that much has arrived', async () => {
    const stream = Readable.from([Buffer.alloc(600, 0x61), Buffer.alloc(600, 0x62)]);
    await expect(readAll(stream, 1000)).rejects.toThrow('skill-search: stdin is larger than 1000 bytes');
    expect(await readAll(Readable.from([Buffer.from('{"a":1}')]), 1000)).toBe('{"a":1}');
  });
});
