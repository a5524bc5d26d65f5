/**
 * The SQL lexical searcher (`openCatalogLexical`, src/store/lexical-tables.ts) as a cold process
 * meets it: in fresh Node processes, opening one saved catalog of a store and its first query,
 * then, in one process, queries each seen once (p50 / p99). Module imports are not counted.
 * Queries are the eval suites' query texts (../shared/eval), shuffled with a fixed seed; every
 * build answers the same queries, and the script says whether their answers (ids and scores)
 * are identical.
 *
 * Usage: npx tsx scripts/measure-lexical-read.ts --store FILE [--catalog ID] [--queries 400]
 *          [--cold-runs 7] [DIST …]
 * `--catalog` defaults to the store's largest catalog. Each DIST is a built `dist/` folder whose
 * `node_modules` resolve (default `dist`), e.g. a build of the code before a change beside the
 * current one; their runs are interleaved, so machine load falls on each alike.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { ensureBuilt, ROOT } from './ensure-built.js';
import { evalQueryTexts } from './eval-suites.js';
import { prng } from './prng.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    store: { type: 'string' },
    catalog: { type: 'string' },
    queries: { type: 'string', default: '400' },
    'cold-runs': { type: 'string', default: '7' },
  },
});
if (values.store === undefined) throw new Error('--store FILE is required');
const store = path.resolve(values.store);
const catalog =
  values.catalog === undefined
    ? (new Database(store, { readonly: true }).prepare('SELECT id FROM catalogs ORDER BY size DESC, id DESC LIMIT 1').pluck().get() as number)
    : Number(values.catalog);
const dists = positionals.length === 0 ? ['dist'] : positionals;
if (dists.includes('dist')) ensureBuilt();

const random = prng(28);
const texts = await evalQueryTexts();
for (let i = texts.length - 1; i > 0; i -= 1) {
  const j = Math.floor(random() * (i + 1));
  [texts[i], texts[j]] = [texts[j]!, texts[i]!];
}
const queries = texts.slice(0, Number(values.queries));

interface Run {
  readonly openMs: number;
  readonly firstMs: number;
  readonly warmMs: number[];
  readonly answers: string;
}

/** One fresh process over `dist`: open, first query, then (with `warm`) every query once. */
function run(dist: string, warm: boolean): Run {
  const lexical = pathToFileURL(path.resolve(ROOT, dist, 'store', 'lexical-tables.js')).href;
  const script = `
    import { createRequire } from 'node:module';
    const { openCatalogLexical } = await import(${JSON.stringify(lexical)});
    const Database = createRequire(${JSON.stringify(lexical)})('better-sqlite3');
    const queries = ${JSON.stringify(warm ? queries : queries.slice(0, 1))};
    let t = performance.now();
    const searcher = openCatalogLexical(new Database(${JSON.stringify(store)}, { readonly: true }), ${catalog});
    const openMs = performance.now() - t;
    t = performance.now();
    const answers = [searcher.search(queries[0], 50)];
    const firstMs = performance.now() - t;
    const warmMs = [];
    for (const query of queries.slice(1)) {
      t = performance.now();
      answers.push(searcher.search(query, 50));
      warmMs.push(performance.now() - t);
    }
    const text = JSON.stringify(answers.map((matches) => matches.map((m) => [m.id, m.score, m.coverage])));
    process.stdout.write(JSON.stringify({ openMs, firstMs, warmMs, answers: text }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 })) as Run;
  return { ...out, answers: createHash('sha256').update(out.answers).digest('hex') };
}

const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const cold = new Map<string, Run[]>(dists.map((dist) => [dist, []]));
const warm = new Map<string, Run>();
for (let round = 0; round < Number(values['cold-runs']); round += 1) {
  for (const dist of round % 2 === 0 ? dists : [...dists].reverse()) cold.get(dist)!.push(run(dist, false));
}
for (const dist of dists) warm.set(dist, run(dist, true));
console.log(`catalog ${catalog} of ${store}; ${queries.length} queries; medians of ${values['cold-runs']} fresh processes (ms)`);
for (const dist of dists) {
  const runs = cold.get(dist)!;
  const { warmMs, answers } = warm.get(dist)!;
  console.log(
    `${dist.padEnd(40)} open ${percentile(
      runs.map((r) => r.openMs),
      50,
    ).toFixed(1)}  first query ${percentile(
      runs.map((r) => r.firstMs),
      50,
    ).toFixed(1)}  open + first ${percentile(
      runs.map((r) => r.openMs + r.firstMs),
      50,
    ).toFixed(1)}  warm p50 ${percentile(warmMs, 50).toFixed(2)} p99 ${percentile(warmMs, 99).toFixed(1)}  answers ${answers.slice(0, 12)}`,
  );
}
const distinct = new Set([...warm.values()].map((run) => run.answers));
console.log(distinct.size === 1 ? 'answers identical across builds' : 'ANSWERS DIFFER between builds');
