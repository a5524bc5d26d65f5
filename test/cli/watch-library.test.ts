import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SkillSocketClient } from '../../src/integrations/socket-client.js';
import { ROOT, SKILLS, removeDir, runCli, spawnCli, tempDir } from './helpers.js';

// A fresh HOME: no library folder, no config, no index.
const home = tempDir('skill-search-watch-library-');
const project = path.join(home, 'project');
mkdirSync(project);
afterAll(() => removeDir(home));

const env = { HOME: home, SKILL_SEARCH_CACHE_DIR: path.join(home, 'cache'), SKILL_SEARCH_MANAGED_DIR: path.join(home, 'managed'), CODEX_HOME: '' };
const hookInput = (prompt: string) =>
  JSON.stringify({ session_id: 'library', transcript_path: '/dev/null', cwd: project, hook_event_name: 'UserPromptSubmit', prompt });

/** `watch` as its own process, from the project folder, as the README starts it. */
function startWatch(project: string, env: Record<string, string>, ...flags: string[]) {
  // tsx by its path: the project folder has no node_modules to resolve it from.
  const tsx = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
  const child = spawn(process.execPath, ['--import', tsx, path.join(ROOT, 'src/cli/main.ts'), 'watch', '--model', 'hash', ...flags], {
    cwd: project,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waits: (() => void)[] = [];
  const wake = () => waits.splice(0).forEach((resolve) => resolve());
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => ((stdout += chunk), wake()));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => ((stderr += chunk), wake()));
  const exited = new Promise<void>((resolve) => child.on('close', () => (wake(), resolve())));
  return {
    text: () => ({ stdout, stderr }),
    /** Resolves once `test` holds for the output so far; throws with that output after `ms`. */
    async until(test: (out: { stdout: string; stderr: string }) => boolean, ms = 20_000): Promise<void> {
      const deadline = Date.now() + ms;
      while (!test({ stdout, stderr })) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`watch did not get there; its output:\n${stdout}${stderr}`);
        await new Promise<void>((resolve) => {
          waits.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    async stop(): Promise<void> {
      child.kill('SIGINT');
      await exited;
    },
  };
}

describe('watch started before the first library add', () => {
  it('indexes the library when it appears and answers the next hook over its socket', async () => {
    const watch = startWatch(project, env);
    try {
      await watch.until(({ stderr }) => stderr.includes('watching for skill changes'));
      const socket = /^serving searches on (.+)$/m.exec(watch.text().stderr)?.[1];
      expect(socket).toMatch(/server\.sock$/);

      const added = await spawnCli(['library', 'add', SKILLS], home, { env });
      expect(added).toMatchObject({ code: 0, stderr: '' });
      await watch.until(({ stdout }) => /^reindexed: \+6 /m.test(stdout));
      const client = await SkillSocketClient.connect(socket!);
      expect(await client.ping()).toMatchObject({ pong: true, skills: 6 });
      client.close();

      // Answered in-process, the hook would find the library catalog unsaved for its index folder and start a build of its own.
      const spawned: (readonly string[])[] = [];
      const hook = await runCli(['hook', 'claude-code', '--model', 'hash', '--timeout-ms', '20000'], home, {
        env,
        cwd: project,
        stdin: hookInput('the migration that adds a column to the users table'),
        spawnDetached: (argv) => void spawned.push(argv),
      });
      expect(hook.stderr).toBe('');
      expect(hook.stdout).toContain(path.join(home, '.config', 'skill-search', 'library', 'sql-migrations', 'SKILL.md'));
      expect(spawned).toEqual([]);
    } finally {
      await watch.stop();
    }
  }, 60_000);
});

describe('watch and the library entries of the user config', () => {
  const home = tempDir('skill-search-watch-config-');
  const project = path.join(home, 'project');
  mkdirSync(project);
  mkdirSync(path.join(home, '.claude'));
  afterAll(() => removeDir(home));
  const env = { HOME: home, SKILL_SEARCH_CACHE_DIR: path.join(home, 'cache'), SKILL_SEARCH_MANAGED_DIR: path.join(home, 'managed'), CODEX_HOME: '' };
  const config = path.join(home, '.claude', 'skill-search.json');
  const sockets = (stderr: string) => [...stderr.matchAll(/^serving searches on (.+)$/gm)].map((match) => match[1]!);
  const skillsAt = async (socket: string) => {
    const client = await SkillSocketClient.connect(socket);
    try {
      return (await client.ping()).skills;
    } finally {
      client.close();
    }
  };

  it('indexes a folder added to the config while it runs, serves it where hooks look, and drops it when removed', async () => {
    // No demo skills: the counts are the config's folder alone (a hook leaves them out too).
    const watch = startWatch(project, env, '--no-demo');
    try {
      await watch.until(({ stderr }) => stderr.includes('watching for skill changes'));
      const [first] = sockets(watch.text().stderr);
      expect(await skillsAt(first!)).toBe(0);

      // What `skill-search config` would show: written by another process while watch runs.
      writeFileSync(config, JSON.stringify({ library: [SKILLS] }));
      await watch.until(({ stdout, stderr }) => /^reindexed: \+6 /m.test(stdout) && sockets(stderr).length === 2);
      expect(watch.text().stderr).toContain('the config changed the sources; reindexing');
      const second = sockets(watch.text().stderr)[1]!;
      expect(second).not.toBe(first);
      expect(await skillsAt(second)).toBe(6);
      // A hook resolves the same config to the same index folder, and so asks this server.
      const spawned: (readonly string[])[] = [];
      const hook = await runCli(['hook', 'claude-code', '--model', 'hash', '--timeout-ms', '20000'], home, {
        env,
        cwd: project,
        stdin: JSON.stringify({
          session_id: 'config',
          transcript_path: '/dev/null',
          cwd: project,
          hook_event_name: 'UserPromptSubmit',
          prompt: 'the migration that adds a column to the users table',
        }),
        spawnDetached: (argv) => void spawned.push(argv),
      });
      expect(hook.stderr).toBe('');
      expect(hook.stdout).toContain(path.join(SKILLS, 'sql-migrations', 'SKILL.md'));
      expect(spawned).toEqual([]);

      writeFileSync(config, JSON.stringify({}));
      await watch.until(({ stdout, stderr }) => /^reindexed: \+0 ~0 -6 /m.test(stdout) && sockets(stderr).length === 3);
      expect(sockets(watch.text().stderr)[2]).toBe(first);
      expect(await skillsAt(first!)).toBe(0);

      // A config that does not parse leaves the sources as they were, with one line naming the file.
      writeFileSync(config, '{ "library": [');
      await watch.until(({ stderr }) => stderr.includes('config not applied'));
      expect(watch.text().stderr).toMatch(/config not applied: .*skill-search\.json/);
    } finally {
      await watch.stop();
    }
  }, 90_000);
});
