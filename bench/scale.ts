/**
 * Scale and cold start at 1k / 10k / 24k registry skills, each figure beside the same figure
 * for the code before the scale work (a build of `SCALE_BASELINE_COMMIT`) measured in the same
 * run on the same catalog, so a loaded machine still yields honest ratios:
 *
 * - the Claude Code hook without a server, as a user runs it: the installed bin, wall time;
 * - index load: open + sync of an unchanged catalog (what every cold process pays first);
 * - reindex after one skill changed;
 * - lexical p50 (and its growth against the smallest size), hybrid p50 / p99, each both for a
 *   query's first sight (nothing about it cached: what a new message costs) and for the same
 *   queries repeated (per-word caches warm: a long-lived server's recurring words);
 * - long messages (250–600 characters, first sight), hybrid p50 / p99;
 * - `npx skill-search` against the installed bin (process start to exit, smallest size);
 * - cold build: skills per second through the model, on a sample (median of alternated builds).
 *
 * Both sides search the same skills with the same cached embeddings; the top-10 lists of
 * every timed query are compared, so a speed-up that changed a ranking shows as a note.
 */
import { randomUUID } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Skill } from '../src/types.js';
import { SkillCatalog } from '../src/load/index.js';
import { besideIndex } from '../src/cli/builder-lease.js';
import type { BenchContext, Suite } from './context.js';
import { NO_QUERY_CACHE, sizeLabel } from './context.js';
import { POOL_FILE, sample } from './corpus.js';
import { REPO_ROOT } from './options.js';
import { compare, type Measurement } from './results.js';
import { edited } from './scaling.js';
import { buildDist } from '../scripts/ensure-built.js';

/** The code this suite compares against: the main branch before the scale work. */
export const SCALE_BASELINE_COMMIT = '13099e8';
/**
 * Skills embedded through the model for the cold-build rate. The rate is per skill, so a sample
 * does, but a build's fixed costs (its bulk session, index writes) weigh on a small one; 1,000 as
 * in scripts/measure-build-rate.ts.
 */
const COLD_BUILD_SAMPLE = 1000;
/** Builds per side for the cold-build row, alternated; the row is each side's median. */
const COLD_BUILD_ROUNDS = 3;
/** Unseen messages per block of the lexical growth's alternation (see `measureSides`). */
const GROWTH_BLOCK = 20;
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
  const archive = execFileSync(
    'git',
    ['archive', SCALE_BASELINE_COMMIT, 'src', 'bin', 'models', 'skills', 'package.json', 'tsconfig.json', 'tsconfig.build.json'],
    {
      cwd: REPO_ROOT,
      maxBuffer: 1 << 30,
    },
  );
  execFileSync('tar', ['-x', '-C', root], { input: archive });
  if (!existsSync(path.join(root, 'node_modules'))) symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'));
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  return root;
}

/**
 * This checkout's dist/, rebuilt as `npm run build` does, so the bin runs the code under test
 * (after tsc alone it would pass over the older bundle and run the modules instead).
 */
function currentRoot(context: BenchContext): string {
  context.log('scale: building dist/ of this checkout');
  buildDist('inherit');
  return REPO_ROOT;
}

async function loadSide(name: Side['name'], root: string): Promise<Side> {
  const engines = (await import(pathToFileURL(path.join(root, 'dist', 'search', 'index.js')).href)) as EngineModule;
  return { name, root, engines };
}

/** The first `size` pool lines as a tools file, loaded by the library's own loader (as the bin loads it). */
async function catalogOf(context: BenchContext, size: number, dir: string): Promise<{ file: string; skills: readonly Skill[] }> {
  const lines = readFileSync(path.join(context.options.evalDir!, POOL_FILE), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  const file = path.join(dir, `tools-${size}.jsonl`);
  writeFileSync(file, `${lines.slice(0, size).join('\n')}\n`);
  const catalog = new SkillCatalog({ cwd: dir, toolsFiles: [file], skillsDirs: [], home: dir, addDirs: [] } as never);
  const skills = (await catalog.get()).skills;
  await catalog.close();
  return { file, skills };
}

/** `items` in order on even rounds and reversed on odd ones, so each goes first as often (a drifting machine reaches all alike). */
function inTurn<T>(items: readonly T[], round: number): readonly T[] {
  return round % 2 === 0 ? items : [...items].reverse();
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
      input: JSON.stringify({ prompt, cwd: path.dirname(tools), session_id: randomUUID(), hook_event_name: 'UserPromptSubmit' }),
      env: { ...process.env, SKILL_SEARCH_CACHE_DIR: cacheDir },
      encoding: 'utf8',
    },
  );
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`hook (${side.name}) exited ${String(run.status)}: ${run.stderr}`);
  return { ms, stdout: run.stdout };
}

/** How long a hook call's detached snapshot writer is given before the bench moves on without it. */
const SNAPSHOT_WAIT_MS = 60_000;

/** The catalog stamp of the search snapshot the index folder's manifest names, if any. */
function snapshotStamp(indexDir: string): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(path.join(indexDir, 'index.json'), 'utf8')) as { artefacts?: { search?: { meta?: { sourceStamp?: string } } } };
    return manifest.artefacts?.search?.meta?.sourceStamp;
  } catch {
    return undefined;
  }
}

/**
 * When the hook call made at `called` started a snapshot writer (its marker beside the index
 * folder is that recent), waits until the manifest names a snapshot other than `before`; false
 * when none came within {@link SNAPSHOT_WAIT_MS}. True at once when no writer was started.
 */
async function snapshotWritten(indexDir: string, before: string | undefined, called: number): Promise<boolean> {
  const marker = besideIndex(indexDir, 'snapshot');
  // The marker's first line is when the writer was started.
  if (!existsSync(marker) || Date.parse(readFileSync(marker, 'utf8').split('\n', 1)[0]!) < called) return true;
  // Until the snapshot is named and the writer has exited (its last work must not overlap the next call).
  while (snapshotStamp(indexDir) === before || writerRunning(indexDir)) {
    if (Date.now() - called > SNAPSHOT_WAIT_MS) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

/** True while a `skill-search index … --index-dir <indexDir>` process runs (Linux's /proc; false where there is none). */
export function writerRunning(indexDir: string): boolean {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return false;
  }
  return pids.some((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return argv.includes('index') && argv[argv.indexOf('--index-dir') + 1] === indexDir;
    } catch {
      return false;
    }
  });
}

/** The messages one size is timed on: short ones (timed at first sight, then repeated), unseen short ones for the lexical first sight, long ones. */
interface QuerySets {
  readonly short: readonly string[];
  readonly fresh: readonly string[];
  /** Unseen short ones for the lexical growth, searched on the smallest catalog and on this one in alternating blocks. */
  readonly growth: readonly string[];
  readonly long: readonly string[];
}

/** The smallest size's catalog and index folders, reopened at each larger size for the lexical growth. */
interface SmallestSize {
  readonly skills: readonly Skill[];
  readonly dir: string;
}

/** Labelled messages of 250–600 characters: those a hybrid search may embed twice (whole, then per sentence). */
function longQueries(context: BenchContext, n: number): string[] {
  const long = context
    .evalSets()
    .flatMap((set) => set.queries.map((q) => q.query))
    .filter((q) => q.length >= 250 && q.length <= 600);
  return sample(long, n, 7);
}

interface SideFigures {
  build: number;
  load: number;
  reindex: Latency;
  lexical: Latency;
  hybrid: Latency;
  lexicalFirst: Latency;
  hybridFirst: Latency;
  long: Latency;
  /**
   * Lexical first sight on the smallest catalog and on this one, the same unseen messages on
   * both in alternating blocks of one phase (absent at the smallest size): their p50s' ratio is
   * the growth, free of the drift between two phases minutes apart.
   */
  growth?: { readonly smallest: Latency; readonly here: Latency };
  /** Median wall time of the hook with the catalog unchanged since the previous call. */
  hook: number;
  /** Median wall time of the first hook call after the tools file changed. */
  hookAfterChange: number;
  /** The hook's answer on its first call, and once later calls have a search snapshot to read. */
  hookOut: string;
  hookSnapshotOut: string;
  rankings: string[];
}

interface Latency {
  readonly mean: number;
  readonly p50: number;
  readonly p99: number;
  readonly samples: number;
}

function latency(values: readonly number[]): Latency {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { mean: sorted.reduce((sum, v) => sum + v, 0) / sorted.length, p50: at(0.5), p99: at(0.99), samples: sorted.length };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/**
 * Every figure for both sides on one catalog. Each step alternates the sides item by item,
 * first one side first and then the other (the machine's load drifts, and whoever runs second
 * inherits the first one's garbage): builds, cold loads, then both engines open side by side
 * for queries and one-change reindexes, then the hook through each bin.
 */
async function measureSides(
  context: BenchContext,
  sides: readonly Side[],
  skills: readonly Skill[],
  tools: string,
  dir: string,
  sets: QuerySets,
  smallest?: SmallestSize,
): Promise<Map<string, SideFigures>> {
  const queries = sets.short;
  const indexDir = (side: Side, under = dir) => path.join(under, `index-${side.name}`);
  const open = (side: Side, under = dir) =>
    side.engines.SkillSearchEngine.open({ embedder: context.embedder, indexDir: indexDir(side, under), ...NO_QUERY_CACHE });
  const ordered = (round: number) => inTurn(sides, round);
  const samples = new Map(
    sides.map((side) => [
      side.name,
      {
        build: 0,
        loads: [] as number[],
        hybrid: [] as number[],
        lexical: [] as number[],
        hybridFirst: [] as number[],
        lexicalFirst: [] as number[],
        growthSmallest: [] as number[],
        growthHere: [] as number[],
        long: [] as number[],
        reindex: [] as number[],
        hooks: [] as number[],
        hooksAfterChange: [] as number[],
        hookOut: '',
        hookSnapshotOut: '',
        rankings: [] as string[],
      },
    ]),
  );
  const of = (side: Side) => samples.get(side.name)!;

  for (const side of sides) {
    context.log(`scale ${skills.length}: ${side.name} builds its index`);
    of(side).build = await timed(async () => {
      const engine = await open(side);
      await engine.sync(skills);
      await engine.close();
    });
  }
  context.log(`scale ${skills.length}: cold loads`);
  for (let round = 0; round < HOOK_RUNS; round++) {
    for (const side of ordered(round)) {
      of(side).loads.push(
        await timed(async () => {
          const engine = await open(side);
          const resync = await engine.sync(skills);
          await engine.close();
          if (resync.embedded !== 0) context.log(`scale ${side.name}: reopen embedded ${resync.embedded} skills (expected 0)`);
        }),
      );
    }
  }

  context.log(`scale ${skills.length}: queries and one-change reindexes`);
  const engines = new Map<string, EngineLike>();
  for (const side of sides) {
    const engine = await open(side);
    await engine.sync(skills);
    engines.set(side.name, engine);
  }
  // First sight: each message searched once, so no cache holds anything about it yet.
  for (const [i, query] of queries.entries()) {
    for (const side of ordered(i)) {
      const engine = engines.get(side.name)!;
      let ids = '';
      of(side).hybridFirst.push(
        await timed(async () => {
          ids = (await engine.search(query, { k: 10 })).map((hit) => hit.skill.id).join(',');
        }),
      );
      of(side).rankings.push(ids);
    }
  }
  for (const [i, query] of sets.fresh.entries())
    for (const side of ordered(i)) of(side).lexicalFirst.push(await timed(() => engines.get(side.name)!.search(query, { k: 10, mode: 'lexical' })));
  if (smallest !== undefined) {
    // The smallest catalog reopened (nothing cached), then the unseen messages on it and here.
    const small = new Map<string, EngineLike>();
    for (const side of sides) {
      const engine = await open(side, smallest.dir);
      await engine.sync(smallest.skills);
      small.set(side.name, engine);
    }
    // In blocks, so an engine's searches follow its own (as in a process that serves one
    // catalog) rather than another catalog's, whose data would have pushed its own out of the
    // CPU caches; the blocks alternate, so a drift in the machine's speed reaches both sizes.
    for (let block = 0; block * GROWTH_BLOCK < sets.growth.length; block++) {
      const messages = sets.growth.slice(block * GROWTH_BLOCK, (block + 1) * GROWTH_BLOCK);
      for (const side of ordered(block)) {
        const pair = [
          ['growthSmallest', small.get(side.name)!],
          ['growthHere', engines.get(side.name)!],
        ] as const;
        for (const [into, engine] of inTurn(pair, block)) {
          for (const query of messages) of(side)[into].push(await timed(() => engine.search(query, { k: 10, mode: 'lexical' })));
        }
      }
    }
    for (const engine of small.values()) await engine.close();
  }
  for (const [i, query] of sets.long.entries())
    for (const side of ordered(i)) of(side).long.push(await timed(() => engines.get(side.name)!.search(query, { k: 10 })));
  const rounds = context.options.quick ? 20 : 200;
  for (let round = 0; round < rounds; round++) {
    const query = queries[round % queries.length]!;
    for (const side of ordered(round)) {
      const engine = engines.get(side.name)!;
      of(side).hybrid.push(await timed(() => engine.search(query, { k: 10 })));
      of(side).lexical.push(await timed(() => engine.search(query, { k: 10, mode: 'lexical' })));
    }
  }
  const reindexRounds = context.options.quick ? 3 : 8;
  const current = new Map(sides.map((side) => [side.name, [...skills]]));
  for (let round = 1; round <= reindexRounds; round++) {
    const at = (round * 7919) % skills.length;
    for (const side of ordered(round)) {
      const catalog = current.get(side.name)!;
      catalog[at] = edited(skills[at]!, round);
      of(side).reindex.push(await timed(() => engines.get(side.name)!.sync(catalog)));
    }
  }
  for (const engine of engines.values()) {
    await engine.sync(skills);
    await engine.close();
  }

  context.log(`scale ${skills.length}: the hook through each bin`);
  // A call that searched live leaves the search snapshot to a detached `skill-search index`: the
  // next timed call waits until it is written, as a user's next prompt usually does.
  const hook = async (side: Side, prompt: string) => {
    const before = snapshotStamp(indexDir(side));
    const called = Date.now();
    const run = hookWall(side, tools, indexDir(side), path.join(dir, `cache-${side.name}`), prompt);
    context.log(`scale ${skills.length}: hook through ${side.name}'s bin: ${run.ms.toFixed(0)} ms`);
    if (!(await snapshotWritten(indexDir(side), before, called)))
      context.log(`scale ${side.name}: no search snapshot written within ${SNAPSHOT_WAIT_MS} ms of a hook call`);
    return run;
  };
  const firstPrompt = queries[0] ?? 'extract tables from a pdf';
  // Now's first call finds no search snapshot (the engines above do not save one): it searches
  // the live index, and the snapshot it leaves due is what every later call with the catalog unchanged reads.
  for (const side of sides) of(side).hookOut = (await hook(side, firstPrompt)).stdout;
  for (let round = 0; round < HOOK_RUNS; round++) {
    for (const side of ordered(round)) of(side).hooks.push((await hook(side, queries[(round + 1) % queries.length]!)).ms);
  }
  for (const side of sides) of(side).hookSnapshotOut = (await hook(side, firstPrompt)).stdout;
  // A tools file rewritten (here only touched) moves the catalog's stamp: the next call is a first call again.
  for (let round = 0; round < HOOK_RUNS; round++) {
    const later = new Date(Date.now() + (round + 1) * 1000);
    utimesSync(tools, later, later);
    for (const side of ordered(round)) of(side).hooksAfterChange.push((await hook(side, queries[(round + 2) % queries.length]!)).ms);
  }

  return new Map(
    sides.map((side) => {
      const taken = of(side);
      return [
        side.name,
        {
          build: taken.build,
          load: median(taken.loads),
          reindex: latency(taken.reindex),
          lexical: latency(taken.lexical),
          hybrid: latency(taken.hybrid),
          lexicalFirst: latency(taken.lexicalFirst),
          ...(smallest === undefined ? {} : { growth: { smallest: latency(taken.growthSmallest), here: latency(taken.growthHere) } }),
          hybridFirst: latency(taken.hybridFirst),
          long: latency(taken.long),
          hook: median(taken.hooks),
          hookAfterChange: median(taken.hooksAfterChange),
          hookOut: taken.hookOut,
          hookSnapshotOut: taken.hookSnapshotOut,
          rankings: taken.rankings,
        },
      ];
    }),
  );
}

/**
 * Wall time of `skill-search --version` started as the README's hosts start it (the bin) and
 * through `npx`, and of a bare `node -e ''` (the floor under every bin call), median of {@link HOOK_RUNS}.
 */
function startupWalls(): { bin: number; npx: number; node: number } {
  const wall = (command: string, args: readonly string[]): number => {
    const started = performance.now();
    const run = spawnSync(command, args, { cwd: REPO_ROOT, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${String(run.status)}: ${run.stderr}`);
    return performance.now() - started;
  };
  const bin: number[] = [];
  const npx: number[] = [];
  const node: number[] = [];
  wall('npx', ['--no-install', 'skill-search', '--version']);
  for (let round = 0; round < HOOK_RUNS; round++) {
    bin.push(wall(process.execPath, [path.join(REPO_ROOT, 'bin', 'skill-search.js'), '--version']));
    npx.push(wall('npx', ['--no-install', 'skill-search', '--version']));
    node.push(wall(process.execPath, ['-e', '']));
  }
  return { bin: median(bin), npx: median(npx), node: median(node) };
}

/** p50 (and p99) rows of one latency, now against before. */
function latencyRows(group: string, name: string, now: Latency, before: Latency, metrics: readonly ('p50' | 'p99')[]): Measurement[] {
  return metrics.map((metric) =>
    compare({ group, name, metric, value: now[metric], unit: 'ms', samples: now.samples, better: 'lower' }, { name: 'before', value: before[metric] }),
  );
}

/** Skills per second through the side's own model runtime (its threading), index built from nothing (no embedding cache). */
/**
 * Skills per second through a side's own model runtime, in a fresh process per side
 * (scripts/measure-build-rate.ts): the two sides may pin different onnxruntime builds, which
 * crash when one process loads both.
 */
function coldBuildRate(context: BenchContext, side: Side): number {
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(REPO_ROOT, 'scripts', 'measure-build-rate.ts'),
      '--child',
      side.name,
      '--skills',
      String(COLD_BUILD_SAMPLE),
      '--eval-dir',
      context.options.evalDir!,
      '--baseline-root',
      baselineRoot(context),
    ],
    { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 1 << 24 },
  );
  if (run.status !== 0) throw new Error(`cold build (${side.name}) exited ${String(run.status)}: ${run.stderr}`);
  return (JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { rate: number }).rate;
}

export const scaleSuite: Suite = async (context) => {
  if (context.options.evalDir === null || !existsSync(path.join(context.options.evalDir, POOL_FILE))) {
    return { skipped: `needs the registry pool (${POOL_FILE} under the eval folder)` };
  }
  const sides = [await loadSide('before', baselineRoot(context)), await loadSide('now', currentRoot(context))];
  const count = context.options.quick ? 20 : 120;
  const pool = context.queries(count * 3);
  const sets: QuerySets = {
    short: pool.slice(0, count),
    fresh: pool.slice(count, 2 * count),
    growth: pool.slice(2 * count),
    long: longQueries(context, count),
  };
  const queries = sets.short;
  context.embedder.memo = false;
  const measurements: Measurement[] = [];
  const notes: string[] = [];
  let smallest: SmallestSize | undefined;
  for (const requested of context.options.sizes) {
    const dir = context.tempDir(`scale-${requested}`);
    const { file, skills } = await catalogOf(context, requested, dir);
    const group = sizeLabel(skills.length);
    await context.primeSkills(skills, group);
    const figures = await measureSides(context, sides, skills, file, dir, sets, smallest);
    smallest ??= { skills, dir };
    const before = figures.get('before')!;
    const now = figures.get('now')!;
    const vs = (value: number) => ({ name: 'before', value });
    measurements.push(
      compare(
        {
          group,
          name: 'hook without a server (bin, wall)',
          metric: 'median',
          value: now.hook,
          unit: 'ms',
          samples: HOOK_RUNS,
          better: 'lower',
          headline: true,
        },
        vs(before.hook),
      ),
      compare(
        {
          group,
          name: 'hook, first call after the tools file changed (bin, wall)',
          metric: 'median',
          value: now.hookAfterChange,
          unit: 'ms',
          samples: HOOK_RUNS,
          better: 'lower',
        },
        vs(before.hookAfterChange),
      ),
      compare(
        {
          group,
          name: 'index load (open + sync, unchanged)',
          metric: 'median',
          value: now.load,
          unit: 'ms',
          samples: HOOK_RUNS,
          better: 'lower',
          headline: true,
        },
        vs(before.load),
      ),
      compare(
        {
          group,
          name: 'reindex after one change',
          metric: 'mean',
          value: now.reindex.mean,
          unit: 'ms',
          samples: now.reindex.samples,
          better: 'lower',
          headline: true,
        },
        vs(before.reindex.mean),
      ),
      compare({ group, name: 'index build (cached embeddings)', metric: 'once', value: now.build, unit: 'ms', better: 'lower' }, vs(before.build)),
      ...latencyRows(group, 'lexical query, first sight', now.lexicalFirst, before.lexicalFirst, ['p50']),
      ...latencyRows(group, 'hybrid query, first sight', now.hybridFirst, before.hybridFirst, ['p50', 'p99']),
      ...latencyRows(group, 'long message (250-600 chars), first sight', now.long, before.long, ['p50', 'p99']),
      ...latencyRows(group, 'lexical query, repeated', now.lexical, before.lexical, ['p50']),
      ...latencyRows(group, 'hybrid query, repeated', now.hybrid, before.hybrid, ['p50', 'p99']),
    );
    for (const side of sides) {
      const { growth } = figures.get(side.name)!;
      if (growth !== undefined)
        measurements.push(
          compare(
            { group, name: `lexical p50 growth, first sight (${side.name})`, metric: 'p50', value: growth.here.p50, unit: 'ms', better: 'lower' },
            { name: 'smallest size, same phase', value: growth.smallest.p50 },
          ),
        );
    }
    const differing = now.rankings.filter((ranking, i) => ranking !== before.rankings[i]).length;
    notes.push(
      `${group}: ${differing} of ${queries.length} hybrid top-10 lists differ between before and now; hook output ${now.hookOut === before.hookOut ? 'identical' : 'differs'} on the first call, ${now.hookSnapshotOut === before.hookSnapshotOut ? 'identical' : 'differs'} from the search snapshot.`,
    );
    if (requested === context.options.sizes[0]) {
      const start = startupWalls();
      measurements.push(
        compare(
          {
            group,
            name: 'process start to exit: npx skill-search (vs the bin)',
            metric: 'median',
            value: start.npx,
            unit: 'ms',
            samples: HOOK_RUNS,
            better: 'lower',
          },
          { name: 'bin', value: start.bin },
        ),
      );
      notes.push(
        `a bare \`node -e ''\` took ${start.node.toFixed(0)} ms from start to exit here: the floor under every bin call, the hook's included${
          process.env.NODE_EXTRA_CA_CERTS === undefined ? '' : ' (NODE_EXTRA_CA_CERTS is set: node reads those certificates before any JavaScript runs)'
        }.`,
      );
      // Rounds alternate the sides (order flipped each round): one build swings with whatever
      // else holds a core at that moment, so each side's median is reported.
      const rounds = context.options.quick ? 1 : COLD_BUILD_ROUNDS;
      const rates = new Map<string, number[]>(sides.map((side) => [side.name, []]));
      for (let round = 0; round < rounds; round++) {
        for (const side of inTurn(sides, round)) {
          const rate = coldBuildRate(context, side);
          context.log(`scale: cold build through ${side.name}: ${rate.toFixed(0)}/s`);
          rates.get(side.name)!.push(rate);
        }
      }
      measurements.push(
        compare(
          {
            group,
            name: `cold build through the model (${COLD_BUILD_SAMPLE} skills)`,
            metric: 'median rate',
            value: median(rates.get('now')!),
            unit: 'per-s',
            samples: rounds,
            better: 'higher',
            headline: true,
          },
          vs(median(rates.get('before')!)),
        ),
      );
    }
  }
  notes.push(
    `before = ${SCALE_BASELINE_COMMIT} built into bench/.cache/scale-baseline; both sides run in this process (engines) or through their own bin (hook).`,
  );
  return { measurements, notes };
};
