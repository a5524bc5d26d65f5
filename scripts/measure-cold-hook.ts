/**
 * The hook without a server, as a host runs it (`skill-search hook claude-code` through a built
 * bin, a real UserPromptSubmit JSON on stdin, the default budget), for one or more builds of the
 * package side by side, against `node -e 0` sampled in the same run: what `bench/cold-hook.ts`
 * times, for comparing a change against the code before it. The catalog is the first `--size`
 * lines of the registry pool (../shared/eval) as one tools file; `skill-search index` of the
 * first build saves it once (under the stamp every build's hook computes), so every build
 * answers from the same saved catalog; each build then runs `index` too, as an install would
 * before its first prompt (the bin's code caches, bin/skill-search.js: remove `<cache>/code-cache`
 * before a run for that state; a cache V8 accepts is kept as it is). Rounds alternate the
 * builds; each prompt is a new session (a first sight).
 *
 * Usage: npx tsx scripts/measure-cold-hook.ts --cache DIR [--size 4000] [--rounds 9] [--cache-per-build] [PACKAGE …]
 * Each PACKAGE is a folder holding a built package (`bin/`, `dist/`, its `node_modules`),
 * default this repository; e.g. `git archive <commit> | tar -x -C DIR`, a `node_modules`
 * link, `npm run build` there. `--cache` is the cache root every run shares (its store keeps
 * the vectors: a first run at 24k embeds them once, minutes). `--cache-per-build` gives the
 * N-th build its own copy, `DIR-N` (copied from DIR when missing). Use it to compare builds: in
 * one cache their graph caches replace each other's (another `USE_LITE_GRAPH_FORMAT`), and the
 * weights' hash memo names the model folder, so with two `node_modules` a hook after the other
 * build's hashes the weights again (docs/cold-start.md, fourth round).
 * Prints the median wall time and CPU time (user + system, from bash's `time` when present)
 * per build, and each as a ratio to `node -e 0`'s.
 *
 * With `--change`, what `bench/cold-change.ts` times: each build gets its own tools file and
 * index folder, and each round times, per build, a hook with the catalog unchanged, then rewrites
 * one line's description and times the first hook after it (then waits for the detached indexer
 * it may leave); it prints the changed hook's median as a ratio to the unchanged one's.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PROMPTS } from '../bench/cold-paths.js';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { writerRunning } from '../bench/scale.js';
import { ensureBuilt, ROOT } from './ensure-built.js';
import { writePoolTools } from './eval-suites.js';
import { timedNode, type TimedRun } from './timed-node.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    cache: { type: 'string' },
    size: { type: 'string', default: '4000' },
    rounds: { type: 'string', default: '9' },
    'cache-per-build': { type: 'boolean', default: false },
    change: { type: 'boolean', default: false },
  },
});
if (values.cache === undefined) throw new Error('--cache DIR is required (a cache root whose store the runs share)');
const cache = path.resolve(values.cache);
const size = Number(values.size);
const packages = (positionals.length === 0 ? [ROOT] : positionals).map((dir) => path.resolve(dir));
if (packages.includes(path.resolve(ROOT))) ensureBuilt();

const dir = mkdtempSync(path.join(os.tmpdir(), 'skill-search-cold-hook-'));
const tools = path.join(dir, `tools-${size}.jsonl`);
writePoolTools(tools, size);
const cwd = path.join(dir, 'project');
mkdirSync(cwd);
const home = path.join(dir, 'home');
mkdirSync(home);
const baseEnv: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
delete baseEnv.SKILL_SEARCH_LIBRARY;
delete baseEnv.XDG_CACHE_HOME;
const cacheOf = (pkg: string): string => {
  if (!values['cache-per-build']) return cache;
  const own = `${cache}-${packages.indexOf(pkg)}`;
  if (!existsSync(own) && existsSync(cache)) cpSync(cache, own, { recursive: true });
  return own;
};
const envOf = (pkg?: string): NodeJS.ProcessEnv => ({ ...baseEnv, SKILL_SEARCH_CACHE_DIR: pkg === undefined ? cache : cacheOf(pkg) });

/** `node args…` timed; `pkg` picks its cache root. */
const timed = (args: readonly string[], input?: string, pkg?: string): TimedRun => timedNode(args, envOf(pkg), input);

const bin = (pkg: string) => path.join(pkg, 'bin', 'skill-search.js');
/** Each build's tools file and index folder: one for all, or (`--change`, whose edits each build must see alone) one each. */
const filesOf = new Map(
  packages.map((pkg, i) => {
    if (!values.change) return [pkg, { tools, indexDir: path.join(dir, 'index') }];
    const own = path.join(dir, `tools-${size}-${i}.jsonl`);
    cpSync(tools, own);
    return [pkg, { tools: own, indexDir: path.join(dir, `index-${i}`) }];
  }),
);
const sourcesOf = (pkg: string) => ['--tools', filesOf.get(pkg)!.tools, '--index-dir', filesOf.get(pkg)!.indexDir];
// Every build runs `index` once, the first saving the catalog: a build's first command writes
// its code cache, so each starts its hooks from the state an install leaves.
for (const pkg of packages) {
  console.log(`indexing ${size} pool lines into ${cacheOf(pkg)} with ${pkg}`);
  const indexed = timed([bin(pkg), 'index', '--quiet', ...sourcesOf(pkg)], undefined, pkg);
  if (!/indexed/.test(indexed.stdout + indexed.stderr)) throw new Error(`index failed: ${indexed.stderr}`);
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const floor: TimedRun[] = [];
/** Per build: the hooks timed (with `--change`, those with the catalog unchanged), and the first ones after a change. */
const runs = new Map<string, TimedRun[]>(packages.map((pkg) => [pkg, []]));
const changedRuns = new Map<string, TimedRun[]>(packages.map((pkg) => [pkg, []]));
const outcomes = new Map<string, Map<string, number>>(packages.map((pkg) => [pkg, new Map()]));
let prompt = 0;
const hook = (pkg: string): TimedRun => {
  const session = randomUUID();
  const input = JSON.stringify({
    session_id: session,
    transcript_path: path.join(cwd, '.transcripts', `${session}.jsonl`),
    cwd,
    permission_mode: 'default',
    hook_event_name: 'UserPromptSubmit',
    prompt: PROMPTS[prompt++ % PROMPTS.length],
  });
  const sample = timed([bin(pkg), 'hook', 'claude-code', ...sourcesOf(pkg)], input, pkg);
  const outcome = sample.stdout.includes('additionalContext')
    ? 'suggested'
    : sample.stderr.trim() === ''
      ? 'silent'
      : `"${sample.stderr.trim().split('\n')[0]}"`;
  outcomes.get(pkg)!.set(outcome, (outcomes.get(pkg)!.get(outcome) ?? 0) + 1);
  return sample;
};
/** Waits until no indexer a hook left runs over `pkg`'s index folder. */
const indexerDone = (pkg: string): void => {
  while (writerRunning(filesOf.get(pkg)!.indexDir)) spawnSync('sleep', ['0.1']);
};
/** Line `at` of `pkg`'s tools file with its description changed, the file rewritten (as `bench/cold-paths.ts` edits it). */
const changeDescription = (pkg: string, at: number, round: number): void => {
  const file = filesOf.get(pkg)!.tools;
  const lines = readFileSync(file, 'utf8').split('\n');
  const record = JSON.parse(lines[at]!) as { description?: string };
  record.description = `${record.description ?? ''} (revised ${round})`;
  lines[at] = JSON.stringify(record);
  writeFileSync(file, lines.join('\n'));
};
if (values.change) for (const pkg of packages) indexerDone(pkg);
for (let round = 0; round < Number(values.rounds); round += 1) {
  floor.push(timed(['-e', '0']));
  for (const pkg of round % 2 === 0 ? packages : [...packages].reverse()) {
    runs.get(pkg)!.push(hook(pkg));
    if (!values.change) continue;
    indexerDone(pkg);
    changeDescription(pkg, ((round + 1) * 7919) % size, round);
    changedRuns.get(pkg)!.push(hook(pkg));
    indexerDone(pkg);
  }
}
const floorMs = median(floor.map((s) => s.ms));
const floorCpu = median(floor.map((s) => s.cpuMs));
console.log(`${size} lines, ${values.rounds} rounds; node -e 0: ${floorMs.toFixed(0)} ms wall, ${floorCpu.toFixed(0)} ms CPU (medians)`);
for (const pkg of packages) {
  const samples = runs.get(pkg)!;
  const ms = median(samples.map((s) => s.ms));
  const cpu = median(samples.map((s) => s.cpuMs));
  const seen = [...outcomes.get(pkg)!].map(([outcome, n]) => `${n} ${outcome}`).join(', ');
  console.log(
    `${pkg}: ${ms.toFixed(0)} ms (${(ms / floorMs).toFixed(2)}x), CPU ${cpu.toFixed(0)} ms (${(cpu / floorCpu).toFixed(2)}x); ${seen}; wall ${samples.map((s) => s.ms.toFixed(0)).join(' ')}`,
  );
  const changed = changedRuns.get(pkg)!;
  if (changed.length === 0) continue;
  const changedMs = median(changed.map((s) => s.ms));
  const changedCpu = median(changed.map((s) => s.cpuMs));
  console.log(
    `  first hook after a change: ${changedMs.toFixed(0)} ms (${(changedMs / ms).toFixed(2)}x the unchanged), CPU ${changedCpu.toFixed(0)} ms (${(changedCpu / cpu).toFixed(2)}x); wall ${changed.map((s) => s.ms.toFixed(0)).join(' ')}; per-round ratios ${changed.map((s, i) => (s.ms / samples[i]!.ms).toFixed(2)).join(' ')}`,
  );
}
