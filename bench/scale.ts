/**
 * Scale and cold start at 1k / 10k / 24k registry skills, each figure beside the same figure
 * for the code before the scale work (a build of `SCALE_BASELINE_COMMIT`) measured in the same
 * run on the same catalog, so a loaded machine still yields honest ratios:
 *
 * - the Claude Code hook without a server, as a user runs it: the installed bin, wall time;
 * - index load: open + sync of an unchanged catalog (what every cold process pays first);
 * - reindex after one skill changed;
 * - lexical p50 (and its growth against the smallest size), hybrid p50 / p99;
 * - cold build: skills per second through the model, on a sample.
 *
 * Both sides search the same skills with the same cached embeddings; the top-10 lists of
 * every timed query are compared, so a speed-up that changed a ranking shows as a note.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Embedder, Skill } from '../src/types.js';
import { SkillCatalog } from '../src/load/index.js';
import type { BenchContext, Suite } from './context.js';
import { cycle, NO_QUERY_CACHE, sizeLabel } from './context.js';
import { POOL_FILE } from './corpus.js';
import { REPO_ROOT } from './options.js';
import { compare, runBench, type Measurement, type TaskStats } from './results.js';
import { edited } from './scaling.js';

/** The code this suite compares against: the main branch before the scale work. */
export const SCALE_BASELINE_COMMIT = '13099e8';
/** Skills embedded through the model for the cold-build rate (the rate is per skill, so a sample does). */
const COLD_BUILD_SAMPLE = 256;
/** Hook runs per side and size, after one warm-up run (model graph cache, page cache). */
const HOOK_RUNS = 3;

/** The engine surface both sides share (the baseline is loaded from its own build). */
interface EngineLike {
  sync(skills: readonly Skill[]): Promise<{ embedded: number }>;
  search(query: string, request?: { k?: number; mode?: 'lexical' | 'dense' | 'hybrid' }): Promise<readonly { skill: { id: string } }[]>;
  close(): Promise<void>;
}
interface EngineModule {
  SkillSearchEngine: { open(options: Record<string, unknown>): Promise<EngineLike> };
}
interface Side {
  readonly name: 'before' | 'now';
  readonly root: string;
  readonly engines: EngineModule;
}

/** The baseline's sources built once into `bench/.cache/scale-baseline/<commit>` (dist/ and bin/ like an install). */
function baselineRoot(context: BenchContext): string {
  const root = path.join(context.options.cacheDir, 'scale-baseline', SCALE_BASELINE_COMMIT);
  if (existsSync(path.join(root, 'dist', 'cli', 'main.js'))) return root;
  context.log(`scale: building the baseline ${SCALE_BASELINE_COMMIT} into ${root}`);
  mkdirSync(root, { recursive: true });
  const archive = execFileSync('git', ['archive', SCALE_BASELINE_COMMIT, 'src', 'bin', 'models', 'skills', 'package.json', 'tsconfig.json', 'tsconfig.build.json'], {
    cwd: REPO_ROOT,
    maxBuffer: 1 << 30,
  });
  execFileSync('tar', ['-x', '-C', root], { input: archive });
  if (!existsSync(path.join(root, 'node_modules'))) symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'));
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  return root;
}

/** This checkout's dist/, rebuilt so the bin runs the code under test. */
function currentRoot(context: BenchContext): string {
  context.log('scale: building dist/ of this checkout');
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT, stdio: 'inherit' });
  return REPO_ROOT;
}

async function loadSide(name: Side['name'], root: string): Promise<Side> {
  const engines = (await import(pathToFileURL(path.join(root, 'dist', 'search', 'index.js')).href)) as EngineModule;
  return { name, root, engines };
}

/** The first `size` pool lines as a tools file, loaded by the library's own loader (as the bin loads it). */
async function catalogOf(context: BenchContext, size: number, dir: string): Promise<{ file: string; skills: readonly Skill[] }> {
  const lines = readFileSync(path.join(context.options.evalDir!, POOL_FILE), 'utf8').split('\n').filter((line) => line.trim() !== '');
  const file = path.join(dir, `tools-${size}.jsonl`);
  writeFileSync(file, `${lines.slice(0, size).join('\n')}\n`);
  const catalog = new SkillCatalog({ cwd: dir, toolsFiles: [file], skillsDirs: [], home: dir, addDirs: [] } as never);
  const skills = (await catalog.get()).skills;
  await catalog.close();
  return { file, skills };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Wall time of `skill-search hook claude-code` through the side's bin, no server running. */
function hookWall(side: Side, tools: string, indexDir: string, cacheDir: string, prompt: string): { ms: number; stdout: string } {
  const started = performance.now();
  const run = spawnSync(
    process.execPath,
    [path.join(side.root, 'bin', 'skill-search.js'), 'hook', 'claude-code', '--tools', tools, '--index-dir', indexDir, '--timeout-ms', '30000'],
    {
      input: JSON.stringify({ prompt, cwd: path.dirname(tools), session_id: 'bench', hook_event_name: 'UserPromptSubmit' }),
      env: { ...process.env, SKILL_SEARCH_CACHE_DIR: cacheDir },
      encoding: 'utf8',
    },
  );
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`hook (${side.name}) exited ${String(run.status)}: ${run.stderr}`);
  return { ms, stdout: run.stdout };
}

interface SideFigures {
  build: number;
  reindex: TaskStats;
  lexical: TaskStats;
  hybrid: TaskStats;
  rankings: string[];
}

async function measureSide(context: BenchContext, side: Side, skills: readonly Skill[], dir: string, queries: readonly string[]): Promise<SideFigures> {
  const indexDir = path.join(dir, `index-${side.name}`);
  const open = () => side.engines.SkillSearchEngine.open({ embedder: context.embedder, indexDir, ...NO_QUERY_CACHE });
  const started = performance.now();
  const builder = await open();
  await builder.sync(skills);
  const build = performance.now() - started;
  await builder.close();

  const engine = await open();
  await engine.sync(skills);

  const rankings: string[] = [];
  for (const query of queries) rankings.push((await engine.search(query, { k: 10 })).map((hit) => hit.skill.id).join(','));

  const next = cycle(queries);
  const bench = context.bench({ iterations: context.options.quick ? 10 : 60 });
  bench.add('hybrid', async () => {
    await engine.search(next(), { k: 10 });
  });
  bench.add('lexical', async () => {
    await engine.search(next(), { k: 10, mode: 'lexical' });
  });
  const stats = await runBench(bench);

  const current = [...skills];
  let round = 0;
  const reindexBench = context.bench({ iterations: context.options.quick ? 3 : 8, time: 1, warmupIterations: 1 });
  reindexBench.add('reindex', async () => {
    round++;
    const at = (round * 7919) % current.length;
    current[at] = edited(skills[at]!, round);
    await engine.sync(current);
  });
  const reindex = (await runBench(reindexBench)).get('reindex')!;
  await engine.sync(skills);
  await engine.close();
  return { build, reindex, lexical: stats.get('lexical')!, hybrid: stats.get('hybrid')!, rankings };
}

/** Open + sync of the unchanged catalog in a fresh engine: what every cold process pays first. */
async function loadTime(context: BenchContext, side: Side, skills: readonly Skill[], dir: string): Promise<number> {
  const started = performance.now();
  const engine = await side.engines.SkillSearchEngine.open({ embedder: context.embedder, indexDir: path.join(dir, `index-${side.name}`), ...NO_QUERY_CACHE });
  const resync = await engine.sync(skills);
  const ms = performance.now() - started;
  await engine.close();
  if (resync.embedded !== 0) context.log(`scale ${side.name}: reopen embedded ${resync.embedded} skills (expected 0)`);
  return ms;
}

/**
 * Index load and the hook, the two sides alternated run by run (the machine's load drifts),
 * after one untimed hook run each (model graph cache, page cache). Medians.
 */
async function coldFigures(context: BenchContext, sides: readonly Side[], skills: readonly Skill[], tools: string, dir: string, queries: readonly string[]): Promise<Map<string, { load: number; hook: number; hookOut: string }>> {
  const loads = new Map<string, number[]>(sides.map((side) => [side.name, []]));
  const walls = new Map<string, number[]>(sides.map((side) => [side.name, []]));
  const outs = new Map<string, string>();
  const hook = (side: Side, prompt: string) => hookWall(side, tools, path.join(dir, `index-${side.name}`), path.join(dir, `cache-${side.name}`), prompt);
  for (const side of sides) outs.set(side.name, hook(side, queries[0] ?? 'extract tables from a pdf').stdout);
  for (let run = 0; run < HOOK_RUNS; run++) {
    for (const side of sides) {
      loads.get(side.name)!.push(await loadTime(context, side, skills, dir));
      walls.get(side.name)!.push(hook(side, queries[(run + 1) % queries.length]!).ms);
    }
  }
  return new Map(sides.map((side) => [side.name, { load: median(loads.get(side.name)!), hook: median(walls.get(side.name)!), hookOut: outs.get(side.name)! }]));
}

/** Skills per second through the model, index built from nothing (no embedding cache). */
async function coldBuildRate(context: BenchContext, side: Side, skills: readonly Skill[], dir: string): Promise<number> {
  const sample = skills.slice(0, COLD_BUILD_SAMPLE);
  const engine = await side.engines.SkillSearchEngine.open({ embedder: context.embedder.inner as Embedder, indexDir: path.join(dir, `cold-${side.name}`), ...NO_QUERY_CACHE });
  const started = performance.now();
  await engine.sync(sample);
  const seconds = (performance.now() - started) / 1000;
  await engine.close();
  return sample.length / seconds;
}

export const scaleSuite: Suite = async (context) => {
  if (context.options.evalDir === null || !existsSync(path.join(context.options.evalDir, POOL_FILE))) {
    return { skipped: `needs the registry pool (${POOL_FILE} under the eval folder)` };
  }
  const sides = [await loadSide('before', baselineRoot(context)), await loadSide('now', currentRoot(context))];
  const queries = context.queries(context.options.quick ? 20 : 120);
  context.embedder.memo = false;
  const measurements: Measurement[] = [];
  const notes: string[] = [];
  const lexicalAtSmallest = new Map<string, number>();
  for (const requested of context.options.sizes) {
    const dir = context.tempDir(`scale-${requested}`);
    const { file, skills } = await catalogOf(context, requested, dir);
    const group = sizeLabel(skills.length);
    await context.primeSkills(skills, group);
    const figures = new Map<string, SideFigures>();
    for (const side of sides) {
      context.log(`scale ${group}: ${side.name}`);
      figures.set(side.name, await measureSide(context, side, skills, dir, queries));
    }
    context.log(`scale ${group}: index load and hook, alternating`);
    const cold = await coldFigures(context, sides, skills, file, dir, queries);
    const coldBefore = cold.get('before')!;
    const coldNow = cold.get('now')!;
    const before = figures.get('before')!;
    const now = figures.get('now')!;
    const vs = (value: number) => ({ name: 'before', value });
    measurements.push(
      compare({ group, name: 'hook without a server (bin, wall)', metric: 'median', value: coldNow.hook, unit: 'ms', samples: HOOK_RUNS, better: 'lower', headline: true }, vs(coldBefore.hook)),
      compare({ group, name: 'index load (open + sync, unchanged)', metric: 'median', value: coldNow.load, unit: 'ms', samples: HOOK_RUNS, better: 'lower', headline: true }, vs(coldBefore.load)),
      compare({ group, name: 'reindex after one change', metric: 'mean', value: now.reindex.meanMs, unit: 'ms', samples: now.reindex.samples, better: 'lower', headline: true }, vs(before.reindex.meanMs)),
      compare({ group, name: 'index build (cached embeddings)', metric: 'once', value: now.build, unit: 'ms', better: 'lower' }, vs(before.build)),
      compare({ group, name: 'lexical query', metric: 'p50', value: now.lexical.p50Ms, unit: 'ms', samples: now.lexical.samples, better: 'lower' }, vs(before.lexical.p50Ms)),
      compare({ group, name: 'hybrid query', metric: 'p50', value: now.hybrid.p50Ms, unit: 'ms', samples: now.hybrid.samples, better: 'lower' }, vs(before.hybrid.p50Ms)),
      compare({ group, name: 'hybrid query', metric: 'p99', value: now.hybrid.p99Ms, unit: 'ms', samples: now.hybrid.samples, better: 'lower' }, vs(before.hybrid.p99Ms)),
    );
    for (const side of sides) {
      const figure = figures.get(side.name)!;
      const smallest = lexicalAtSmallest.get(side.name);
      if (smallest === undefined) lexicalAtSmallest.set(side.name, figure.lexical.p50Ms);
      else measurements.push(compare({ group, name: `lexical p50 growth (${side.name})`, metric: 'p50', value: figure.lexical.p50Ms, unit: 'ms', better: 'lower' }, { name: 'smallest size', value: smallest }));
    }
    const differing = now.rankings.filter((ranking, i) => ranking !== before.rankings[i]).length;
    notes.push(`${group}: ${differing} of ${queries.length} hybrid top-10 lists differ between before and now; hook output ${coldNow.hookOut === coldBefore.hookOut ? 'identical' : 'differs'}.`);
    if (requested === context.options.sizes[0]) {
      const rates = new Map<string, number>();
      for (const side of sides) rates.set(side.name, await coldBuildRate(context, side, skills, dir));
      measurements.push(
        compare({ group, name: `cold build through the model (${COLD_BUILD_SAMPLE} skills)`, metric: 'rate', value: rates.get('now')!, unit: 'per-s', better: 'higher', headline: true }, vs(rates.get('before')!)),
      );
    }
  }
  notes.push(`before = ${SCALE_BASELINE_COMMIT} built into bench/.cache/scale-baseline; both sides run in this process (engines) or through their own bin (hook).`);
  return { measurements, notes };
};
