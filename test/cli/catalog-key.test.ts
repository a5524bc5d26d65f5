import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, SKILLS, removeDir, spawnCli, tempDir } from './helpers.js';

// Every command that saves a catalog (`index`, `query`, `watch`: demo mode `auto`; `mcp`: `never`)
// saves it under the key every cold search (the hook, `query`, MCP) looks it up by: the first
// search after a save reads that catalog exactly, and writes nothing (docs/store.md, "One key
// whoever saved it"). Through the built bin, over a real home and store.
const BIN = path.join(ROOT, 'bin', 'skill-search.js');
const built = existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'));

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

/** A home (also the cache root) with the fixture skills in `~/.claude/skills`, and a project folder: the default sources, where the demo rule applies. */
function setup(): { home: string; project: string } {
  const home = tempDir('skill-search-key-');
  const project = path.join(home, 'project');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  cpSync(SKILLS, path.join(home, '.claude', 'skills'), { recursive: true });
  mkdirSync(project);
  dirs.push(home);
  return { home, project };
}

const run = (argv: readonly string[], home: string, stdin?: string) => spawnCli(argv, home, { entry: BIN, ...(stdin === undefined ? {} : { stdin }) });

/** The catalogs saved in `home`'s store: each one's stamp. */
function savedCatalogs(home: string): string[] {
  const db = new Database(path.join(home, 'store.sqlite'), { readonly: true });
  try {
    return db.prepare<[], string>('SELECT stamp FROM catalogs ORDER BY id').pluck().all();
  } finally {
    db.close();
  }
}

/** The `.snapshot` markers beside index folders: a hook that searched a catalog not saved as it is leaves one, and starts an index run. */
const snapshotMarkers = (home: string) => readdirSync(home).filter((name) => name.endsWith('.snapshot'));

/** One hook for a PDF prompt from `project`: it answers, from the saved catalog, writing nothing and starting no index run. */
async function expectHookReadsSaved(home: string, project: string): Promise<void> {
  const saved = savedCatalogs(home);
  expect(saved).toHaveLength(1);
  const stdin = JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'fill in the fields of a PDF form', transcript_path: '/dev/null', cwd: project });
  const hook = await run(['hook', 'claude-code', '--model', 'hash'], home, stdin);
  expect([hook.code, hook.stderr]).toEqual([0, '']);
  expect(hook.stdout).toContain('pdf-forms');
  expect(snapshotMarkers(home)).toEqual([]);
  expect(savedCatalogs(home)).toEqual(saved);
}

/** `watch` until it has indexed and saved, then stopped (so the hook that follows finds no server). */
async function watchOnce(home: string, project: string): Promise<void> {
  const child = spawn(process.execPath, [BIN, 'watch', '--cwd', project, '--model', 'hash'], {
    cwd: ROOT,
    env: { ...process.env, HOME: home, SKILL_SEARCH_CACHE_DIR: home, EXPERIMENTAL_SKILL_SEARCH: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  // Its first line comes once the first sync is indexed and saved.
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('indexed') && resolve());
    void exited.then(() => reject(new Error(`watch exited before indexing: ${stderr}`)));
  });
  child.kill('SIGTERM');
  await exited;
}

describe.skipIf(!built)('one catalog key whatever command saved the skills (built bin, real store)', () => {
  it('after `index`, the first hook answers from the saved catalog', async () => {
    const { home, project } = setup();
    expect((await run(['index', '--quiet', '--cwd', project, '--model', 'hash'], home)).code).toBe(0);
    await expectHookReadsSaved(home, project);
  });

  it("after `watch`'s save, the first hook answers from the saved catalog", async () => {
    const { home, project } = setup();
    await watchOnce(home, project);
    await expectHookReadsSaved(home, project);
  });

  it('after `query`, the first hook answers from the saved catalog', async () => {
    const { home, project } = setup();
    const query = await run(['query', '--quiet', '--cwd', project, '--model', 'hash', 'fill in the fields of a PDF form'], home);
    expect([query.code, query.stdout.includes('pdf-forms')]).toEqual([0, true]);
    await expectHookReadsSaved(home, project);
  });

  it("after the MCP server's save, `query` answers from the saved catalog, writing nothing", async () => {
    const { home, project } = setup();
    const call = (id: number, method: string, params: object) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
    const stdin = [
      call(1, 'initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'test', version: '1' } }),
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      call(2, 'tools/call', { name: 'search_skills', arguments: { query: 'fill in the fields of a PDF form' } }),
    ].join('\n');
    const mcp = await run(['mcp', '--cwd', project, '--model', 'hash'], home, `${stdin}\n`);
    expect(mcp.stdout).toContain('pdf-forms');
    const saved = savedCatalogs(home);
    expect(saved).toHaveLength(1);
    const query = await run(['query', '--cwd', project, '--model', 'hash', 'fill in the fields of a PDF form'], home);
    expect([query.code, query.stderr, query.stdout.includes('pdf-forms')]).toEqual([0, '', true]);
    expect(savedCatalogs(home)).toEqual(saved);
    await expectHookReadsSaved(home, project);
  });
});
