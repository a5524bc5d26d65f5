/**
 * Abuse soak: the hostile inputs of the security review, each run against the real code and
 * checked for the bounded behaviour the fixes promise.
 *
 * - alias bomb: a 561-byte SKILL.md whose hooks expand to 387M strings loads, hooks dropped;
 * - FIFO transcript: the hook answers and exits with a FIFO as `transcript_path`;
 * - 20 MB prompt: the hook answers within its budget;
 * - never-reading client: the server drops it, and its memory stays bounded;
 * - foreign socket owner: the client refuses a socket of another uid without connecting;
 * - glob backtracking bomb: a project's `exclude` of `*a*a…(20×)…c` and a 60-character skill
 *   name; the hook still answers within its budget;
 * - watch loops: six `ln -s . loopN` and a link to `/` under a watched skills folder; the
 *   watcher is ready quickly with bounded memory, each loop skipped and the folder cap named.
 * - empty index, then skills: an index saved with no skills, then one skill added at a time
 *   (20 rounds, `index` and `query` through the CLI); every process exits 0 and finds the newest;
 * - 100k Skill calls: a transcript holding 100,000 Skill tool calls; the hook answers and exits 0
 *   within its budget.
 *
 *   npx tsx scripts/soak-abuse.ts [--requests 5000]
 *
 * Prints one PASS/FAIL line per scenario with what it measured; exits 1 on any failure.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SkillSocketClient } from '../src/integrations/socket-client.js';
import { socketPathFor } from '../src/integrations/socket-protocol.js';
import { SkillSocketServer } from '../src/integrations/socket-server.js';
import { CATALOG_EVENTS, SkillCatalog } from '../src/load/index.js';
import { MAX_WATCHED_DIRS } from '../src/load/watcher.js';
import type { SearchHit, Skill } from '../src/types.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SKILLS = path.join(ROOT, 'test/cli/fixtures/skills');
const { values } = parseArgs({ options: { requests: { type: 'string', default: '5000' } } });
const requests = Number(values.requests);
if (!Number.isInteger(requests) || requests <= 0) throw new Error(`Expected \`--requests\` to be a positive integer, got \`${values.requests}\``);

const work = mkdtempSync(path.join(os.tmpdir(), 'skill-search-soak-abuse-'));
let failed = false;
function report(name: string, pass: boolean, details: string): void {
  if (!pass) failed = true;
  console.log(`soak-abuse ${pass ? 'PASS' : 'FAIL'} ${name} ${details}`);
}

/** One CLI command in a process of its own (`src/cli/main.ts` through tsx), as the soak's hook runs. */
function runCli(args: readonly string[], killAfterMs: number): Promise<{ code: number | null; stdout: string; stderr: string; signal: string | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, HOME: work, SKILL_SEARCH_CACHE_DIR: work },
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, signal });
    });
  });
}

function runHook(
  prompt: string,
  transcript: string,
  killAfterMs: number,
  where: { cwd: string; skills: string } = { cwd: ROOT, skills: SKILLS },
): Promise<{ code: number | null; stdout: string; ms: number; killed: boolean }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(ROOT, 'src/cli/main.ts'),
        'hook',
        'claude-code',
        '--skills-dir',
        where.skills,
        '--model',
        'hash',
        '--index-dir',
        path.join(work, 'index'),
        '--timeout-ms',
        '5000',
      ],
      { cwd: ROOT, env: { ...process.env, HOME: work, SKILL_SEARCH_CACHE_DIR: work } },
    );
    let stdout = '';
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, killAfterMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.resume();
    child.stdin.on('error', () => undefined);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, ms: Math.round(performance.now() - started), killed });
    });
    child.stdin.end(JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt, transcript_path: transcript, cwd: where.cwd }));
  });
}

try {
  {
    const started = performance.now();
    const catalog = new SkillCatalog({ skillsDirs: [path.join(ROOT, 'fixtures/broken/alias-bomb/skills')], bundledDir: null, managedDir: null });
    const snapshot = await catalog.get();
    await catalog.close();
    const laughs = snapshot.skills.find((skill) => skill.name === 'laughs');
    const ms = Math.round(performance.now() - started);
    report(
      'alias-bomb',
      laughs !== undefined && laughs.hooks === undefined,
      `loadMs=${ms} skills=${snapshot.skills.length} diagnostics=${snapshot.diagnostics.length}`,
    );
  }
  {
    await runHook('warm up the index', '/dev/null', 60_000);
    const fifo = path.join(work, 'transcript.fifo');
    execFileSync('mkfifo', [fifo]);
    const result = await runHook('fill a pdf form', fifo, 20_000);
    report('fifo-transcript', !result.killed && result.code === 0 && result.stdout.includes('pdf-forms'), `exit=${result.code} ms=${result.ms}`);
  }
  {
    const prompt = `why does filling this pdf form fail?\n${'WARN acroform field left empty while filling the PDF form\n'.repeat(350_000)}`;
    const result = await runHook(prompt, '/dev/null', 20_000);
    report('20mb-prompt', !result.killed && result.code === 0, `promptMB=${(prompt.length / 1e6).toFixed(1)} exit=${result.code} ms=${result.ms}`);
  }
  {
    const skill = (i: number): Skill => ({
      name: `s${i}`,
      description: 'd'.repeat(4000),
      source: 'skills',
      rank: 5,
      path: `/s/${i}`,
      id: `s${i}`,
      body: '',
      tokenEstimate: 1,
      contentHash: `${i}`,
    });
    const hits: SearchHit[] = Array.from({ length: 20 }, (_, i) => ({ skill: skill(i), score: 0.5, via: ['lexical'] }));
    const server = await SkillSocketServer.listen({
      path: socketPathFor(path.join(work, 'server')),
      searcher: { search: async () => hits },
      size: () => 20,
      version: 'soak',
    });
    global.gc?.();
    const before = process.memoryUsage().rss;
    const client = net.connect(server.path);
    await new Promise((resolve) => client.once('connect', resolve));
    client.pause();
    client.on('error', () => undefined);
    const line = '{"id":1,"op":"search","query":"q","k":20}\n';
    for (let sent = 0; sent < requests && !client.destroyed; sent += 100) client.write(line.repeat(100));
    const deadline = Date.now() + 20_000;
    while (server.stats.dropped === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const grewMB = (process.memoryUsage().rss - before) / 1e6;
    client.destroy();
    await server.close();
    report(
      'never-reading-client',
      server.stats.dropped === 1 && grewMB < 200,
      `requests=${requests} answered=${server.stats.requests} dropped=${server.stats.dropped} rssGrowthMB=${grewMB.toFixed(0)}`,
    );
  }
  {
    // The project sits below HOME so the hook reads its .claude/skill-search.json.
    const project = path.join(work, 'project');
    const skills = path.join(work, 'bomb-skills');
    const name = 'a'.repeat(60);
    mkdirSync(path.join(project, '.claude'), { recursive: true });
    mkdirSync(path.join(skills, name), { recursive: true });
    writeFileSync(path.join(project, '.claude', 'skill-search.json'), JSON.stringify({ exclude: [`${'*a'.repeat(20)}*c`] }));
    writeFileSync(path.join(skills, name, 'SKILL.md'), '---\ndescription: Fill in PDF forms\n---\nSteps.\n');
    const result = await runHook('fill a pdf form', '/dev/null', 30_000, { cwd: project, skills });
    report('glob-redos', !result.killed && result.code === 0 && result.stdout.includes(name), `exit=${result.code} ms=${result.ms} killed=${result.killed}`);
  }
  {
    const skills = path.join(work, 'loop-skills');
    mkdirSync(path.join(skills, 'keep'), { recursive: true });
    writeFileSync(path.join(skills, 'keep', 'SKILL.md'), '---\ndescription: Kept\n---\nSteps.\n');
    for (let i = 0; i < 6; i++) symlinkSync('.', path.join(skills, `loop${i}`));
    symlinkSync('/', path.join(skills, 'root'));
    global.gc?.();
    const before = process.memoryUsage().rss;
    const started = performance.now();
    const catalog = new SkillCatalog({ skillsDirs: [skills], bundledDir: null, managedDir: null, claudePlugins: false });
    const errors: string[] = [];
    catalog.on(CATALOG_EVENTS.error, (error) => errors.push(error.message));
    await catalog.watch();
    const settle = Date.now() + 10_000;
    while (errors.filter((message) => message.includes('loop')).length < 6 && Date.now() < settle) await new Promise((resolve) => setTimeout(resolve, 50));
    const ms = Math.round(performance.now() - started);
    const grewMB = (process.memoryUsage().rss - before) / 1e6;
    await catalog.close();
    const loops = errors.filter((message) => message.includes('a symbolic link loop')).length;
    const capped = errors.some((message) => message.startsWith(`watching at most ${MAX_WATCHED_DIRS} folders`));
    report(
      'watch-loops',
      loops >= 6 && ms < 60_000 && grewMB < 500,
      `readyMs=${ms} rssGrowthMB=${grewMB.toFixed(0)} loopsSkipped=${loops} folderCapReached=${capped}`,
    );
  }
  {
    // #29.1: a graph saved empty used to abort every later process (double free in hnswlib).
    const skills = path.join(work, 'growing-skills');
    const indexDir = path.join(work, 'growing-index');
    mkdirSync(skills, { recursive: true });
    const flags = ['--skills-dir', skills, '--model', 'hash', '--index-dir', indexDir];
    const first = await runCli(['index', ...flags], 60_000);
    const crashes: string[] = [];
    let found = 0;
    const rounds = 20;
    for (let i = 0; i < rounds; i++) {
      mkdirSync(path.join(skills, `grown-${i}`), { recursive: true });
      writeFileSync(path.join(skills, `grown-${i}`, 'SKILL.md'), `---\ndescription: Convert ${i}-th ledger files to parquet\n---\nSteps.\n`);
      // Every other round the index command grows the saved graph; the others, a query does.
      const step = i % 2 === 0 ? await runCli(['index', ...flags], 60_000) : undefined;
      const query = await runCli(['query', '--mode', 'lexical', ...flags, '--json', `convert ${i}-th ledger files`], 60_000);
      for (const run of [step, query]) if (run && run.code !== 0) crashes.push(`exit=${run.code} signal=${run.signal} ${run.stderr.trim().split('\n')[0]}`);
      if (query.code === 0 && (JSON.parse(query.stdout) as { hits: { name: string }[] }).hits.some((hit) => hit.name === `grown-${i}`)) found += 1;
    }
    report(
      'empty-index-growth',
      crashes.length === 0 && found === rounds,
      `emptyIndexExit=${first.code} rounds=${rounds} found=${found} crashes=${crashes.length}${crashes.length > 0 ? ` first: ${crashes[0]}` : ''}`,
    );
  }
  {
    // #29.13: the hook's usage bookkeeping over a long session was quadratic (100k calls: killed).
    const transcript = path.join(work, 'skill-calls.jsonl');
    const lines: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      lines.push(
        JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', id: `t${i}`, name: 'Skill', input: { skill: `skill-${i}` } }] } }),
      );
    }
    writeFileSync(transcript, `${lines.join('\n')}\n`);
    const result = await runHook('fill a pdf form', transcript, 30_000);
    report(
      '100k-skill-calls',
      !result.killed && result.code === 0 && result.stdout.includes('pdf-forms'),
      `exit=${result.code} ms=${result.ms} killed=${result.killed}`,
    );
  }
  {
    const uid = process.getuid?.();
    const server = await SkillSocketServer.listen({
      path: socketPathFor(path.join(work, 'foreign')),
      searcher: { search: async () => [] },
      size: () => 0,
      version: 'soak',
    });
    // As root the socket really changes hands; otherwise the client is told to expect another uid.
    const asRoot = uid === 0;
    if (asRoot) chownSync(server.path, 65534, 65534);
    const refused = await SkillSocketClient.connect(server.path, asRoot ? {} : { uid: (uid ?? 0) + 1 }).then(
      (client) => {
        client.close();
        return false;
      },
      (error: { code?: string }) => error.code === 'UNTRUSTED',
    );
    report('foreign-socket-owner', refused && server.stats.connections === 0, `refused=${refused} connections=${server.stats.connections} chowned=${asRoot}`);
    await server.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
