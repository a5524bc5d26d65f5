/**
 * The hook without a server, as a host runs it (`skill-search hook claude-code` through a built
 * bin, a real UserPromptSubmit JSON on stdin, the default budget), for one or more builds of the
 * package side by side, against `node -e 0` sampled in the same run: what `bench/cold-hook.ts`
 * times, for comparing a change against the code before it. The catalog is the first `--size`
 * lines of the registry pool (../shared/eval) as one tools file; `skill-search index --no-demo`
 * of the first build saves it once (the stamp every build's hook computes), so every build
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
 * Prints the median wall time and CPU time (user + system, from /usr/bin/time when present)
 * per build, and each as a ratio to `node -e 0`'s.
 */
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PROMPTS } from '../bench/cold-paths.js';
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
const indexDir = path.join(dir, 'index');
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
const sources = ['--tools', tools, '--index-dir', indexDir];
// Every build runs `index` once, the first saving the catalog: a build's first command writes
// its code cache, so each starts its hooks from the state an install leaves.
for (const pkg of packages) {
  console.log(`indexing ${size} pool lines into ${cacheOf(pkg)} with ${pkg}`);
  const indexed = timed([bin(pkg), 'index', '--quiet', '--no-demo', ...sources], undefined, pkg);
  if (!/indexed/.test(indexed.stdout + indexed.stderr)) throw new Error(`index failed: ${indexed.stderr}`);
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const floor: TimedRun[] = [];
const runs = new Map<string, TimedRun[]>(packages.map((pkg) => [pkg, []]));
const outcomes = new Map<string, Map<string, number>>(packages.map((pkg) => [pkg, new Map()]));
for (let round = 0; round < Number(values.rounds); round += 1) {
  floor.push(timed(['-e', '0']));
  for (const pkg of round % 2 === 0 ? packages : [...packages].reverse()) {
    const session = randomUUID();
    const input = JSON.stringify({
      session_id: session,
      transcript_path: path.join(cwd, '.transcripts', `${session}.jsonl`),
      cwd,
      permission_mode: 'default',
      hook_event_name: 'UserPromptSubmit',
      prompt: PROMPTS[round % PROMPTS.length],
    });
    const sample = timed([bin(pkg), 'hook', 'claude-code', ...sources], input, pkg);
    runs.get(pkg)!.push(sample);
    const outcome = sample.stdout.includes('additionalContext')
      ? 'suggested'
      : sample.stderr.trim() === ''
        ? 'silent'
        : `"${sample.stderr.trim().split('\n')[0]}"`;
    outcomes.get(pkg)!.set(outcome, (outcomes.get(pkg)!.get(outcome) ?? 0) + 1);
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
}
