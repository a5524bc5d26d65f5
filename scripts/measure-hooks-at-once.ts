/**
 * Several cold hooks started at once, as a user trial found them: a fresh home whose
 * `~/.claude/skills` holds the first `--skills` SKILL.md folders of `--library` (e.g.
 * ../shared/eval/library), no store, no graph cache, each hook fed a UserPromptSubmit JSON on
 * stdin with the default budget. Prints each hook's exit code, wall time, CPU time (user +
 * system, through /usr/bin/time when the machine has it) and stderr, then the count per exit code
 * and the medians: every hook must exit 0 (docs/cold-start.md, "Calls a timer can get
 * between"). For a build before and after a change, pass each package folder (`bin/`, `dist/`,
 * its `node_modules`), e.g. `git archive <commit> | tar -x -C DIR` and `npm run build` there.
 *
 * Rounds alternate the builds' order. `--model hash` leaves the encoder out (no graph cache to
 * build, no vectors to embed): what is left is the catalog's load, SKILL.md parsing among it.
 *
 * Usage: npx tsx scripts/measure-hooks-at-once.ts --library DIR [--skills 312] [--hooks 5] [--rounds 1] [--model ID] [PACKAGE …]
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './ensure-built.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    library: { type: 'string' },
    skills: { type: 'string', default: '312' },
    hooks: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '1' },
    model: { type: 'string' },
  },
});
if (values.library === undefined) throw new Error('--library DIR is required (a folder of skill folders, searched for SKILL.md)');

/** Folders holding a SKILL.md under `dir`, in path order. */
function skillFolders(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const child = path.join(dir, name);
    if (!statSync(child).isDirectory()) continue;
    if (readdirSync(child).includes('SKILL.md')) found.push(child);
    else found.push(...skillFolders(child));
  }
  return found;
}

const library = path.resolve(values.library);
const folders = skillFolders(library).slice(0, Number(values.skills));

const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

function hook(bin: string, home: string, project: string, session: string): Promise<{ code: number | string; ms: number; cpuMs: number; stderr: string }> {
  const started = performance.now();
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  for (const name of ['XDG_CACHE_HOME', 'XDG_CONFIG_HOME', 'SKILL_SEARCH_CACHE_DIR', 'SKILL_SEARCH_LIBRARY']) delete env[name];
  const args = [bin, 'hook', 'claude-code', ...(values.model === undefined ? [] : ['--model', values.model])];
  const [command, argv] = TIME === undefined ? [process.execPath, args] : [TIME, ['-f', 'cpu %U %S %x', process.execPath, ...args]];
  const child = spawn(command, argv, { cwd: project, env, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(
    JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: 'help me write a pytest fixture for a flask app', session_id: session, cwd: project }),
  );
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      const ms = Math.round(performance.now() - started);
      // /usr/bin/time's line (its own exit is the hook's; a signal shows as `Command terminated by signal N` before it).
      const cpu = /(?:Command terminated by signal (\d+)\n)?cpu ([\d.]+) ([\d.]+) (-?\d+)\s*$/.exec(stderr);
      if (cpu === null) return resolve({ code: code ?? String(signal), ms, cpuMs: Number.NaN, stderr });
      const exit = cpu[1] === undefined ? Number(cpu[4]) : `signal ${cpu[1]}`;
      resolve({ code: exit, ms, cpuMs: Math.round(1000 * (Number(cpu[2]) + Number(cpu[3]))), stderr: stderr.slice(0, cpu.index) });
    }),
  );
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const all = new Map<string, { ms: number[]; cpuMs: number[] }>();

for (let round = 0; round < Number(values.rounds); round += 1) {
  const packages = positionals.length > 0 ? positionals : [ROOT];
  // Alternated: the first build of a round leaves its background builders running into the next.
  for (const pkg of round % 2 === 0 ? packages : [...packages].reverse()) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hooks-at-once-'));
    const skills = path.join(dir, 'home', '.claude', 'skills');
    mkdirSync(path.join(dir, 'project'), { recursive: true });
    for (const folder of folders) cpSync(folder, path.join(skills, path.relative(library, folder).replaceAll(path.sep, '-')), { recursive: true });
    const bin = path.join(path.resolve(pkg), 'bin', 'skill-search.js');
    const runs = await Promise.all(
      Array.from({ length: Number(values.hooks) }, (_, i) => hook(bin, path.join(dir, 'home'), path.join(dir, 'project'), `s${i}`)),
    );
    console.log(`${pkg} (${folders.length} skills, ${runs.length} hooks, load ${os.loadavg()[0]!.toFixed(1)}, ${dir})`);
    for (const run of runs) console.log(`  exit ${run.code} ${run.ms} ms CPU ${run.cpuMs} ms ${run.stderr.trim().split('\n').join(' | ')}`);
    const seen = all.get(pkg) ?? { ms: [], cpuMs: [] };
    all.set(pkg, { ms: [...seen.ms, ...runs.map((run) => run.ms)], cpuMs: [...seen.cpuMs, ...runs.map((run) => run.cpuMs)] });
    const counts = new Map<string, number>();
    for (const run of runs) counts.set(String(run.code), (counts.get(String(run.code)) ?? 0) + 1);
    console.log(`  exits: ${[...counts].map(([code, n]) => `${n}× ${code}`).join(', ')}`);
  }
}
for (const [pkg, { ms, cpuMs }] of all)
  console.log(`${pkg}: ${ms.length} hooks, median ${median(ms)} ms wall (max ${Math.max(...ms)}), CPU median ${median(cpuMs)} ms`);
