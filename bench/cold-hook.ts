/**
 * The hook without a server, as the host runs it (the built bin, a real UserPromptSubmit JSON
 * on stdin, the default budget), at 4k and 24k registry skills as a tools file, and at 24k as
 * SKILL.md folders in a home's `~/.claude/skills` (the default sources, no source flag), over an index built by each of
 * the ways a user gets one: `skill-search index`, `skill-search watch` (stopped before the
 * hooks), and an earlier hook (whose budget may run out while it leaves the build to a detached
 * indexer). Each figure is the median of {@link ROUNDS} calls, the three builds alternated call
 * by call, against `node -e 0` sampled between them. `cold-build` ({@link coldBuildSuite}), its
 * own suite so it can be run alone: hooks while a `skill-search index` builds.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import type { Suite } from './context.js';
import {
  BIN,
  ColdRun,
  PROMPTS,
  againstTarget,
  inTurn,
  indexerDone,
  median,
  outcomeOf,
  outcomes,
  runHook,
  sleep,
  sourceArgs,
  suggestionsOf,
  type BinRun,
  type Catalog,
  type CatalogKind,
} from './cold-paths.js';
import type { Measurement } from './results.js';

/** Timed hook calls per build and size. */
const ROUNDS = 3;
/** Hooks fired while a build runs. */
const DURING_BUILD = 3;
/** Targets from issue 28: hook without a server against `node -e 0`, ≤ 2.5× up to 4k skills and ≤ 4× above (24k). */
const TARGET = { upTo4k: 2.5, above: 4 } as const;
const targetFor = (size: number): number => (size <= 4000 ? TARGET.upTo4k : TARGET.above);

type Builder = 'index' | 'watch' | 'hook';
const BUILDERS: readonly Builder[] = ['index', 'watch', 'hook'];

/** `skill-search watch` until its first sync is done and its socket is up, then stopped (Ctrl-C). */
async function watchBuild(cold: ColdRun, catalog: Catalog): Promise<void> {
  const child = spawn(process.execPath, [BIN, 'watch', ...sourceArgs(catalog)], {
    env: cold.envOf(catalog),
    cwd: catalog.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await watchReady(child);
  await stop(child);
}

/** Resolves once `watch` says it is watching (its stderr line, printed after the first sync and the socket). */
export function watchReady(child: ChildProcess, limitMs = 600_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`watch not ready within ${limitMs} ms: ${stderr}`)), limitMs);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.includes('watching for skill changes')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`watch exited ${String(code)} before it was ready: ${stderr}`));
    });
  });
}

export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}

async function build(cold: ColdRun, size: number, kind: CatalogKind, builder: Builder): Promise<Catalog> {
  if (builder === 'index') return cold.indexed(size, kind);
  const catalog = kind === 'tools' ? cold.catalog(size, builder) : cold.skillsCatalog(size, builder);
  if (builder === 'watch') await watchBuild(cold, catalog);
  else {
    // The first prompt ever: whatever it answers, it leaves the index to the detached indexer it starts.
    const first = await runHook(catalog, cold.envOf(catalog), PROMPTS[0]);
    cold.context.log(`cold-hook ${size} ${kind}: first hook (builds): ${first.ms.toFixed(0)} ms, ${outcomeOf(first)}`);
    if (!(await indexerDone(catalog.indexDir))) throw new Error(`the index a hook started for ${catalog.indexDir} was not done within 3 min`);
  }
  return catalog;
}

/** A hook, then the wait for any detached indexer it left (as a user's next prompt, seconds later, would find it done). */
async function timedHook(cold: ColdRun, catalog: Catalog, prompt: string): Promise<BinRun> {
  const run = await runHook(catalog, cold.envOf(catalog), prompt);
  await indexerDone(catalog.indexDir);
  return run;
}

/** Hooks while `skill-search index` builds a fresh index of `size` skills. */
async function duringBuild(cold: ColdRun, size: number): Promise<{ runs: BinRun[]; overlapped: number }> {
  const catalog = cold.catalog(size, 'during-build');
  const indexing = cold.index(catalog);
  let done = false;
  void indexing.finally(() => (done = true));
  await sleep(1000);
  const runs: BinRun[] = [];
  let overlapped = 0;
  for (let i = 0; i < DURING_BUILD; i++) {
    const before = done;
    runs.push(await runHook(catalog, cold.envOf(catalog), PROMPTS[(i + 1) % PROMPTS.length]!));
    if (!before) overlapped += 1;
  }
  await indexing;
  await indexerDone(catalog.indexDir);
  return { runs, overlapped };
}

/** The group a size and kind of catalog are reported under. */
const groupOf = (size: number, kind: CatalogKind): string => (kind === 'tools' ? `${size} lines` : `${size} SKILL.md folders`);

/** Each builder's index of one catalog, then {@link ROUNDS} hooks over each, the builders alternated; rows against `node -e 0`. */
async function timeBuilders(cold: ColdRun, size: number, kind: CatalogKind): Promise<{ measurements: Measurement[]; notes: string[] }> {
  const { context } = cold;
  const group = groupOf(size, kind);
  const catalogs = new Map<Builder, Catalog>();
  for (const builder of BUILDERS) {
    const started = performance.now();
    catalogs.set(builder, await build(cold, size, kind, builder));
    context.log(`cold-hook ${group}: built by ${builder} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const runs = new Map<Builder, BinRun[]>(BUILDERS.map((builder) => [builder, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const builder of inTurn(BUILDERS, round)) {
      const run = await timedHook(cold, catalogs.get(builder)!, PROMPTS[round % PROMPTS.length]!);
      context.log(`cold-hook ${group}: built by ${builder}: ${run.ms.toFixed(0)} ms, ${outcomeOf(run)} (${suggestionsOf(run)} suggestions)`);
      runs.get(builder)!.push(run);
      cold.floor.sample();
    }
  }
  const measurements: Measurement[] = [];
  const notes: string[] = [];
  for (const builder of BUILDERS) {
    const taken = runs.get(builder)!;
    measurements.push(
      againstTarget(
        {
          group,
          name: `hook without a server, index built by ${builder === 'hook' ? 'an earlier hook' : `\`${builder}\``}`,
          metric: 'median',
          value: median(taken.map((run) => run.ms)),
          unit: 'ms',
          samples: taken.length,
          better: 'lower',
          headline: builder === 'index',
        },
        { name: 'node -e 0', value: cold.floor.median },
        targetFor(size),
        taken,
      ),
    );
    notes.push(`${group}, built by ${builder}: ${outcomes(taken)}; suggestions per hook ${taken.map(suggestionsOf).join(', ')}`);
  }
  return { measurements, notes };
}

export const coldHookSuite: Suite = async (context) => {
  const cold = await ColdRun.start(context);
  if (cold === undefined) return { skipped: 'needs the registry pool under the eval folder' };
  const measurements: Measurement[] = [];
  const notes: string[] = [];
  const { small, large } = cold.sizes;
  const cases: readonly [number, CatalogKind][] = [
    [small, 'tools'],
    [large, 'tools'],
    [large, 'skills'],
  ];
  for (const [size, kind] of cases) {
    const timed = await timeBuilders(cold, size, kind);
    measurements.push(...timed.measurements);
    notes.push(...timed.notes);
  }
  notes.push(
    `node -e 0 median ${cold.floor.median.toFixed(0)} ms over ${cold.floor.samples} runs; each hook row is the median of ${ROUNDS} calls, the three builds alternated; SKILL.md folders: a home's ~/.claude/skills, no source flag`,
  );
  return { measurements, notes };
};

/**
 * `cold-build`: hooks while `skill-search index` builds a fresh index of the large size, over a
 * tools file at a path no saved catalog has (the same skills indexed before at another path, as
 * `cold-hook` leaves them): each must answer, never "no answer" because a build is running.
 */
export const coldBuildSuite: Suite = async (context) => {
  const cold = await ColdRun.start(context);
  if (cold === undefined) return { skipped: 'needs the registry pool under the eval folder' };
  const size = cold.sizes.large;
  // The same skills indexed before by this user (this run's home), elsewhere: as after `cold-hook`, whose index this reuses.
  await cold.indexed(size);
  const during = await duringBuild(cold, size);
  const answered = during.runs.filter((run) => outcomeOf(run) === 'suggested' || outcomeOf(run) === 'silent').length;
  const times = during.runs.map((run) => `${run.ms.toFixed(0)} ms`).join(', ');
  context.log(`cold-build ${size}: ${outcomes(during.runs)} (${times})`);
  return {
    measurements: [
      {
        group: `${size} lines`,
        name: 'hooks that answered while `skill-search index` built',
        metric: 'count',
        value: answered,
        unit: 'count',
        samples: during.runs.length,
        better: 'higher',
        target: { text: `${during.runs.length} of ${during.runs.length}`, met: answered === during.runs.length },
      },
    ],
    notes: [`during a build at ${size} lines: ${outcomes(during.runs)} (${during.overlapped} of ${during.runs.length} started while the build ran; ${times})`],
  };
};
