import { randomUUID } from 'node:crypto';
import { chownSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LiveIndex } from '../../src/integrations/live-index.js';
import { socketPathFor } from '../../src/integrations/socket-protocol.js';
import { SkillSocketServer } from '../../src/integrations/socket-server.js';
import { SKILLS, removeDir, runCli, tempDir } from './helpers.js';

const cache = tempDir();
afterAll(() => removeDir(cache));

const indexDir = path.join(cache, 'index');
const SOURCES = ['--skills-dir', SKILLS, '--model', 'hash', '--index-dir', indexDir];
// A session of its own per call: one session announces a skill once.
const hookInput = (prompt: string) =>
  JSON.stringify({ session_id: randomUUID(), transcript_path: '/dev/null', cwd: cache, hook_event_name: 'UserPromptSubmit', prompt });

/** A server for the same index as the flags above (or `skillsDir`'s, in `dir`), as `watch` runs it. */
async function startServer(skillsDir = SKILLS, dir = indexDir) {
  const live = await LiveIndex.open({ catalog: { skillsDirs: [skillsDir] }, model: 'hash', indexDir: dir });
  await live.refresh();
  const server = await SkillSocketServer.listen({
    path: socketPathFor(dir),
    searcher: live.engine,
    size: () => live.engine.size,
    version: 'test',
  });
  return {
    server,
    async close() {
      await server.close();
      await live.close();
    },
  };
}

const withoutTime = (stdout: string) => stdout.replace(/"tookMs":[\d.]+/, '"tookMs":N');

describe('hook and query ask a running server first', () => {
  const prompts = [
    'a test fails sometimes in CI but passes locally, flaky',
    'write a migration that adds a column to the users table',
    'what a lovely sunset over the harbour',
  ];
  const queries: string[][] = [
    ['--json', 'find the commit that broke the build with git bisect'],
    ['--mode', 'lexical', 'resize these images for the web'],
    ['bake a sourdough loaf tonight'],
    ['--explain', 'fill in a pdf form'],
    ['--json', '--explain', 'find the commit that broke the build with git bisect'],
  ];

  it('the hook prints byte-identical output through the socket and in-process', async () => {
    const hook = (prompt: string) => runCli(['hook', 'claude-code', ...SOURCES, '--timeout-ms', '20000'], cache, { stdin: hookInput(prompt) });
    const inProcess = [];
    for (const prompt of prompts) inProcess.push(await hook(prompt));
    expect(inProcess[0]?.stdout).toMatch(
      /^\{"hookSpecificOutput":\{"hookEventName":"UserPromptSubmit","additionalContext":"Skills relevant to your task:\\n\\n- flaky-tests: /,
    );
    expect(inProcess[2]).toEqual({ code: 0, stdout: '', stderr: '' });

    const running = await startServer();
    try {
      for (const [i, prompt] of prompts.entries()) expect(await hook(prompt)).toEqual(inProcess[i]);
      expect(running.server.stats.requests).toBe(prompts.length);
    } finally {
      await running.close();
    }
  });

  it('query prints the same through the socket and in-process (--json keys unchanged)', async () => {
    const query = (extra: string[]) => runCli(['query', ...SOURCES, ...extra], cache);
    const inProcess = [];
    for (const extra of queries) inProcess.push(await query(extra));
    expect(Object.keys(JSON.parse(inProcess[0]!.stdout) as object)).toEqual(['query', 'hits', 'tookMs']);
    expect(JSON.parse(inProcess[0]!.stdout).hits[0]).not.toHaveProperty('why');
    expect(inProcess[3]!.stdout).toMatch(
      /^1\. +pdf-forms .*\n {4}matched: name pdf, form; whenToUse fillabl, pdf, form; description fill, pdf, form; body fill, pdf, form\n {4}lexical: BM25 /,
    );
    expect(JSON.parse(inProcess[4]!.stdout).hits[0]).toMatchObject({ name: 'git-bisect', why: { matched: { name: ['git', 'bisect'] }, passed: true } });

    const running = await startServer();
    try {
      for (const [i, extra] of queries.entries()) {
        const viaServer = await query(extra);
        expect({ ...viaServer, stdout: withoutTime(viaServer.stdout) }).toEqual({ ...inProcess[i], stdout: withoutTime(inProcess[i]!.stdout) });
      }
      expect(running.server.stats.requests).toBe(queries.length);
    } finally {
      await running.close();
    }
  });

  it('a skill the host keeps from the model is not suggested through the server either', async () => {
    const skills = path.join(cache, 'closed-skills');
    cpSync(SKILLS, skills, { recursive: true });
    const deploy = path.join(skills, 'deploy-staging');
    mkdirSync(deploy);
    writeFileSync(
      path.join(deploy, 'SKILL.md'),
      '---\nname: deploy-staging\ndescription: Deploy the current branch to the staging environment.\ndisable-model-invocation: true\n---\nRun the deploy.\n',
    );
    const closedIndex = path.join(cache, 'closed-index');
    const flags = ['--skills-dir', skills, '--model', 'hash', '--index-dir', closedIndex, '--timeout-ms', '20000'];
    const prompt = 'deploy the current branch to the staging environment';
    const inProcess = await runCli(['hook', 'claude-code', ...flags], cache, { stdin: hookInput(prompt) });
    expect(inProcess.stdout).not.toContain('deploy-staging');
    const running = await startServer(skills, closedIndex);
    try {
      expect(await runCli(['hook', 'claude-code', ...flags], cache, { stdin: hookInput(prompt) })).toEqual(inProcess);
      expect(running.server.stats.requests).toBe(1);
    } finally {
      await running.close();
    }
  });

  it('a server that accepts but never answers: the hook notes it and answers in-process', async () => {
    const expected = await runCli(['hook', 'claude-code', ...SOURCES, '--timeout-ms', '20000'], cache, { stdin: hookInput(prompts[0]!) });
    mkdirSync(indexDir, { recursive: true });
    // Reads and drops every request, so it sees the client hang up.
    const silent = net.createServer((socket) => socket.resume());
    await new Promise<void>((resolve) => silent.listen(socketPathFor(indexDir), resolve));
    try {
      // The server gets a quarter of the budget, at most 1 s; the rest is left for the fallback.
      const result = await runCli(['hook', 'claude-code', ...SOURCES, '--timeout-ms', '8000'], cache, { stdin: hookInput(prompts[0]!) });
      expect(result.stdout).toBe(expected.stdout);
      expect(result.stderr).toBe('skill-search hook: search server did not answer (search server: no answer within 1000 ms); searching in-process\n');
    } finally {
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it.runIf(process.getuid?.() === 0)('a socket another user owns: hook and query warn, send it nothing and answer in-process', async () => {
    const expectedHook = await runCli(['hook', 'claude-code', ...SOURCES, '--timeout-ms', '20000'], cache, { stdin: hookInput(prompts[0]!) });
    const expectedQuery = await runCli(['query', ...SOURCES, queries[2]![0]!], cache);
    const running = await startServer();
    const where = socketPathFor(indexDir);
    chownSync(where, 65534, 65534);
    const warning = `not using the search socket ${where}: it is owned by uid 65534, not by this user (uid 0)`;
    try {
      const hook = await runCli(['hook', 'claude-code', ...SOURCES, '--timeout-ms', '20000'], cache, { stdin: hookInput(prompts[0]!) });
      expect(hook).toEqual({ ...expectedHook, stderr: `skill-search hook: ${warning}; searching in-process\n` });
      const query = await runCli(['query', ...SOURCES, queries[2]![0]!], cache);
      expect(query).toEqual({ ...expectedQuery, stderr: `skill-search: ${warning}\n` });
      expect(running.server.stats.connections).toBe(0);
    } finally {
      await running.close();
    }
  });

  it('query falls back when the server holds no skills, so the error names where it looked', async () => {
    const empty = tempDir();
    const emptyIndex = path.join(cache, 'empty-index');
    const server = await SkillSocketServer.listen({
      path: socketPathFor(emptyIndex),
      searcher: { search: async () => [] },
      size: () => 0,
      version: 'test',
    });
    try {
      const result = await runCli(['query', '--skills-dir', empty, '--model', 'hash', '--index-dir', emptyIndex, 'anything'], cache);
      expect(result).toEqual({ code: 1, stdout: '', stderr: `skill-search: no skills found in --skills-dir '${empty}'\n` });
      expect(server.stats.requests).toBe(1);
    } finally {
      await server.close();
      removeDir(empty);
    }
  });
});
