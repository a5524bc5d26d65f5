/**
 * What the skills' stored name vectors (`src/search/name-vectors.ts`) cost, one tree against another (main's worktree
 * and this one; the script is copied into each and runs against its own `src/`), in fresh processes alternated round
 * by round with the order flipped every round:
 * - `build`: the library's skills synced into an empty index folder and the catalog saved (searchable), then, where
 *   the tree has them, its names embedded and stored; the time to searchable, the whole build's time and its CPU;
 * - `search`: hybrid search of every request of r2–r11 over the library (remembered query vectors, so the model's time
 *   is left out; the tree's names stored first where it has them), one warm pass then `--passes` timed; p50 and p90.
 * Numbers: docs/retrieval.md, twenty-first round.
 *
 *   SKILL_SEARCH_EVAL_DIR=/work/shared/eval npx tsx scripts/measure-name-cost.ts --what build \
 *     --trees main=/tmp/t-names22/main,candidate=. [--rounds 5]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { resolveEmbedder } from '../src/embed/resolve.js';
import { SkillSearchEngine } from '../src/search/engine.js';
import { freshLibrarySetsThrough, librarySkills, loadSuite, queryVectorsFile } from './eval-suites.js';
import { rememberVectors } from './query-vectors.js';

const { values } = parseArgs({
  options: {
    what: { type: 'string', default: 'build' },
    trees: { type: 'string', default: '' },
    rounds: { type: 'string', default: '5' },
    passes: { type: 'string', default: '3' },
    child: { type: 'boolean', default: false },
  },
});
const quantile = (list: readonly number[], q: number): number => [...list].sort((a, b) => a - b)[Math.floor(q * (list.length - 1))]!;

/** The tree's names step, where it has one (main's engine has none). */
async function completeNames(engine: SkillSearchEngine): Promise<number> {
  const named = engine as SkillSearchEngine & { completeNames?: () => Promise<number> };
  return named.completeNames === undefined ? 0 : await named.completeNames();
}

/** One cold build of the library into an empty index folder, the model warmed first. */
async function build(): Promise<object> {
  const skills = librarySkills();
  const embedder = resolveEmbedder('use-lite');
  await embedder.embed(['warm up the model'], undefined, 'query');
  const work = mkdtempSync(path.join(os.tmpdir(), 'name-cost-'));
  try {
    const engine = await SkillSearchEngine.open({ embedder, indexDir: path.join(work, 'index'), queryCacheSize: 0 });
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const { embedded } = await engine.sync(skills);
    if (!engine.saveCatalog({ sourceStamp: 'measure-name-cost', diagnostics: [] })) throw new Error(`the catalog was not saved: ${engine.saveProblem}`);
    const searchableMs = performance.now() - started;
    const names = await completeNames(engine);
    const totalMs = performance.now() - started;
    const used = process.cpuUsage(cpuBefore);
    await engine.close();
    if (embedded === 0) throw new Error('the index folder was not empty');
    return { searchableMs, totalMs, cpuMs: (used.user + used.system) / 1000, names };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Hybrid searches of r2–r11's requests over the library, its names stored first where the tree has them. */
async function search(): Promise<object> {
  const base = resolveEmbedder('use-lite');
  const embedder = rememberVectors(base, queryVectorsFile(base));
  const queries: string[] = [];
  for (const name of freshLibrarySetsThrough('library-r11')) queries.push(...(await loadSuite(name, { sample: 500 }))!.queries.map((query) => query.query));
  const work = mkdtempSync(path.join(os.tmpdir(), 'name-cost-'));
  try {
    const engine = await SkillSearchEngine.open({ embedder, indexDir: path.join(work, 'index'), queryCacheSize: 0 });
    await engine.sync(librarySkills());
    const names = await completeNames(engine);
    const times: number[] = [];
    for (let pass = 0; pass <= Number(values.passes); pass += 1) {
      for (const query of queries) {
        const started = performance.now();
        await engine.search(query, { mode: 'hybrid', k: 5 });
        if (pass > 0) times.push(performance.now() - started);
      }
    }
    await engine.close();
    return { times, names };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (values.child) {
  console.log(JSON.stringify(values.what === 'search' ? await search() : await build()));
} else {
  const trees = values.trees.split(',').map((entry) => entry.split('=') as [string, string]);
  const results = new Map<string, Record<string, number | number[]>[]>(trees.map(([side]) => [side, []]));
  for (let round = 0; round < Number(values.rounds); round += 1) {
    for (const [side, tree] of round % 2 === 0 ? trees : [...trees].reverse()) {
      const script = path.join(path.resolve(tree), 'scripts', 'measure-name-cost.ts');
      const run = spawnSync(process.execPath, [...process.execArgv, script, '--child', '--what', values.what!, '--passes', values.passes!], {
        cwd: tree,
        encoding: 'utf8',
        env: process.env,
      });
      if (run.status !== 0) throw new Error(`${side}: ${run.stderr}`);
      const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, number | number[]>;
      results.get(side)!.push(result);
      const shown = Object.entries(result).map(
        ([key, value]) => `${key} ${Array.isArray(value) ? `p50 ${quantile(value, 0.5).toFixed(2)}` : value.toFixed(0)}`,
      );
      console.error(`round ${round} ${side}: ${shown.join(', ')} (load ${os.loadavg()[0]!.toFixed(1)})`);
    }
  }
  const [first] = trees[0]!;
  const keys = values.what === 'search' ? ['p50', 'p90'] : ['searchableMs', 'totalMs', 'cpuMs'];
  const summary = (side: string, key: string): { list: number[]; value: number } => {
    const runs = results.get(side)!;
    if (values.what === 'search') {
      const times = runs.flatMap((run) => run['times'] as number[]);
      return { list: runs.map((run) => quantile(run['times'] as number[], key === 'p50' ? 0.5 : 0.9)), value: quantile(times, key === 'p50' ? 0.5 : 0.9) };
    }
    const list = runs.map((run) => run[key] as number);
    return { list, value: quantile(list, 0.5) };
  };
  for (const key of keys) {
    const base = summary(first, key).value;
    for (const [side] of trees) {
      const { list, value } = summary(side, key);
      console.log(
        `${key} ${side}: ${list.map((ms) => ms.toFixed(values.what === 'search' ? 2 : 0)).join(', ')}; ${values.what === 'search' ? 'pooled' : 'median'} ${value.toFixed(values.what === 'search' ? 3 : 0)} (${((value / base - 1) * 100).toFixed(1)}%)`,
      );
    }
  }
}
