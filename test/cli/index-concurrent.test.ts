import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, manySkills, removeDir, tempDir } from './helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));
/** One home for every run: a catalog's stamp names it, and two stores are compared. */
const home = tempDir();
dirs.push(home);

const TOTAL = 300;

interface Run {
  readonly child: ChildProcess;
  readonly done: Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>;
  /** Resolves once stderr holds `text`. */
  said(text: string): Promise<void>;
}

/** `skill-search index --json` over `skills` as a process of its own, with its cache in `cache`. */
function index(skills: string, cache: string): Run {
  const argv = ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'index', '--skills-dir', skills, '--model', 'hash', '--json'];
  const child = spawn(process.execPath, [...argv, '--index-dir', path.join(cache, 'index')], {
    cwd: ROOT,
    env: { ...process.env, HOME: home, SKILL_SEARCH_CACHE_DIR: cache },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const waiter of waiters) if (stderr.includes(waiter.text)) waiter.resolve();
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  const said = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (stderr.includes(text)) resolve();
      else waiters.push({ text, resolve });
      void done.then(() => reject(new Error(`exited without saying ${JSON.stringify(text)}; stderr: ${stderr}`)));
    });
  return { child, done, said };
}

/** Resolves once the builder lease of the index in `cache` names `pid`. */
async function leaseHeldBy(cache: string, pid: number): Promise<void> {
  const dir = path.join(cache, 'index.builder');
  for (let i = 0; i < 1200; i += 1) {
    try {
      if (readdirSync(dir).some((name) => /^\d+$/.test(name) && readFileSync(path.join(dir, name), 'utf8').split('\n')[0] === String(pid))) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`process ${pid} never took the builder lease`);
}

/** What a store holds for a catalog: its vectors, its catalogs and their skills (no times, no row numbers). */
function storeContent(cache: string): unknown {
  const db = new Database(path.join(cache, 'store.sqlite'), { readonly: true });
  try {
    return {
      vectors: db.prepare('SELECT model, key, hex(vector) AS vector FROM vectors ORDER BY model, key').all(),
      catalogs: db.prepare('SELECT stamp, model, format, source_stamp, diagnostics, size FROM catalogs ORDER BY stamp').all(),
      skills: db.prepare('SELECT doc, id, name, lexical_key, vector_key, record FROM catalog_skills ORDER BY catalog, doc').all(),
    };
  } finally {
    db.close();
  }
}

const embedded = (stdout: string): number => (JSON.parse(stdout) as { embedded: number }).embedded;

/**
 * Two runs over one fresh cache: the first held still (SIGSTOP) once it has the lease, so the second surely starts while the first
 * builds; once the second says it waits, the first is sent `then` (SIGCONT: it goes on; SIGKILL: it dies).
 */
async function secondWaiting(then: 'SIGCONT' | 'SIGKILL') {
  const skills = manySkills(TOTAL);
  const [cache, clean] = [tempDir(), tempDir()];
  dirs.push(skills, cache, clean);
  const first = index(skills, cache);
  await leaseHeldBy(cache, first.child.pid!);
  first.child.kill('SIGSTOP');
  const second = index(skills, cache);
  try {
    await second.said(`index: waiting for the build of this index by process ${first.child.pid}, then taking its vectors from the store`);
  } finally {
    first.child.kill(then);
  }
  return { skills, cache, clean, first, second };
}

describe('two `skill-search index` runs at once over a fresh cache', () => {
  it('the second waits for the first and embeds nothing; the store is what one clean build makes', async () => {
    const { skills, cache, clean, first, second } = await secondWaiting('SIGCONT');
    const [a, b] = await Promise.all([first.done, second.done]);
    expect([a.code, b.code], a.stderr + b.stderr).toEqual([0, 0]);
    expect([embedded(a.stdout), embedded(b.stdout)]).toEqual([TOTAL, 0]);
    const one = await index(skills, clean).done;
    expect(one.code).toBe(0);
    expect(storeContent(cache)).toEqual(storeContent(clean));
  }, 180_000);

  it('a first run killed while the second waits does not block it: the second builds everything', async () => {
    const { skills, cache, clean, second } = await secondWaiting('SIGKILL');
    const b = await second.done;
    expect(b.code, b.stderr).toBe(0);
    expect(embedded(b.stdout)).toBe(TOTAL);
    await index(skills, clean).done;
    expect(storeContent(cache)).toEqual(storeContent(clean));
  }, 180_000);
});
