import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BuilderLease } from '../../src/cli/builder-lease.js';
import type { CliIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { ROOT, SKILLS, copyFixture, removeDir, tempDir, writerUnder } from './helpers.js';

const cache = tempDir();
afterAll(() => removeDir(cache));

/** Loaded into every process the test starts (and the detached ones they start): a builder notes its pid. */
const COUNTER = `import { appendFileSync } from 'node:fs';
if (process.argv[2] === 'index') appendFileSync(process.env.BUILDER_LOG, process.pid + '\\n');
`;

interface HookExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

function runHook(argv: readonly string[], counter: string, log: string, stdin: string): Promise<HookExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', counter, path.join(ROOT, 'src/cli/main.ts'), ...argv], {
      cwd: ROOT,
      env: { ...process.env, HOME: cache, SKILL_SEARCH_CACHE_DIR: cache, BUILDER_LOG: log },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin);
  });
}

describe('background builders', () => {
  it('six cold hooks at once over one catalog start one builder of its index folder', async () => {
    const skills = copyFixture(SKILLS);
    const indexDir = path.join(cache, 'index');
    const counter = path.join(cache, 'counter.mjs');
    const log = path.join(cache, 'builders.log');
    writeFileSync(counter, COUNTER);
    const stdin = JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'fill a pdf form', transcript_path: '/dev/null', cwd: cache });
    const flags = ['hook', 'claude-code', '--skills-dir', skills, '--model', 'hash', '--index-dir', indexDir];
    try {
      // Half give up at once (a warm-up build), half answer live (a snapshot writer): both kinds ask for a builder.
      const budgets = ['1', '1', '1', '30000', '30000', '30000'];
      const exits = await Promise.all(budgets.map((ms) => runHook([...flags, '--timeout-ms', ms], pathToFileURL(counter).href, log, stdin)));
      // A 1 ms budget leaves the watchdog 1,001 ms from reading stdin to exit. On a loaded machine (load 17 on 2 cores)
      // starting the hook's modules takes longer, and the watchdog ends it as it should (budget + grace); any other end is a bug.
      for (const [i, exit] of exits.entries()) {
        const stopped = budgets[i] === '1' && exit.signal === 'SIGKILL' && exit.stderr.includes('ms past the 1 ms budget; stopped');
        expect(stopped || exit.code === 0, `hook ${i} (budget ${budgets[i]} ms): ${JSON.stringify(exit)}`).toBe(true);
      }
      for (let i = 0; i < 600 && writerUnder(cache); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(writerUnder(cache)).toBe(false);
      const builders = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
      expect(builders).toHaveLength(1);
    } finally {
      removeDir(skills);
    }
  }, 120_000);

  it('a hook killed as it starts a builder (by its watchdog, or the host) does not stop the next timed-out hook from starting one', async () => {
    const skills = copyFixture(SKILLS);
    const indexDir = path.join(cache, 'killed', 'index');
    const flags = ['hook', 'claude-code', '--skills-dir', skills, '--model', 'hash', '--index-dir', indexDir, '--timeout-ms', '1'];
    const stdin = JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'fill a pdf form', transcript_path: '/dev/null', cwd: cache });
    const env = { HOME: cache, SKILL_SEARCH_CACHE_DIR: cache };
    try {
      // The first hook's process dies where it would start the builder.
      const script = path.join(cache, 'killed-hook.mts');
      writeFileSync(
        script,
        `import { main } from ${JSON.stringify(path.join(ROOT, 'src/cli/main.ts'))};
await main(${JSON.stringify(flags)}, { stdout: process.stdout, stderr: process.stderr, readStdin: async () => ${JSON.stringify(stdin)},
  env: process.env, cwd: process.cwd(), spawnDetached: () => process.kill(process.pid, 'SIGKILL') });
`,
      );
      const killed = await new Promise<NodeJS.Signals | null>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: 'ignore' });
        child.on('error', reject);
        child.on('close', (_code, signal) => resolve(signal));
      });
      expect(killed).toBe('SIGKILL');
      const started: (readonly string[])[] = [];
      const io: CliIo = {
        stdout: { write: () => true },
        stderr: { write: () => true },
        readStdin: async () => stdin,
        env,
        cwd: ROOT,
        spawnDetached: (argv) => {
          started.push(argv);
          return undefined;
        },
      };
      expect(await main(flags, io)).toBe(0);
      expect(started.map((argv) => argv[0])).toEqual(['index']);
    } finally {
      removeDir(skills);
    }
  }, 120_000);

  it('a lease is held while its pid lives, taken over once it is dead or too old', () => {
    const dir = path.join(cache, 'lease');
    const first = BuilderLease.claim(dir, { maxAgeMs: 60_000 });
    expect(first).toBeDefined();
    expect(BuilderLease.claim(dir, { maxAgeMs: 60_000 })).toBeUndefined();
    // A pid no process has (above Linux's pid_max): the builder is gone.
    first!.handTo(2 ** 22 + 1);
    const second = BuilderLease.claim(dir, { maxAgeMs: 60_000 });
    expect(second).toBeDefined();
    expect(BuilderLease.claim(dir, { maxAgeMs: 60_000 })).toBeUndefined();
    // Held by this live process, but older than the lease allows.
    expect(BuilderLease.claim(dir, { maxAgeMs: -1 })).toBeDefined();
    second!.release();
  });

  it('claimWhenFree: a lease handed to this process is its own; one a live process holds is waited for, until aborted', async () => {
    const dir = path.join(cache, 'handed');
    const hook = BuilderLease.claim(dir, { maxAgeMs: 60_000 });
    hook!.handTo(process.pid);
    const adopted = await BuilderLease.claimWhenFree(dir, { maxAgeMs: 60_000 });
    expect(adopted).toBeDefined();
    adopted!.release();
    expect(readdirSync(dir).filter((name) => /^\d+$/.test(name))).toEqual([]);
    // Held by a live process that is not this one (the test's parent): waited for, and the holder named once.
    const held = BuilderLease.claim(dir, { maxAgeMs: 60_000 });
    held!.handTo(process.ppid);
    const waits: number[] = [];
    const stop = new AbortController();
    const waiting = BuilderLease.claimWhenFree(dir, { maxAgeMs: 60_000, signal: stop.signal, onWait: (pid) => waits.push(pid) });
    await new Promise((resolve) => setTimeout(resolve, 500));
    stop.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    expect(waits).toEqual([process.ppid]);
    held!.release();
  });
});
