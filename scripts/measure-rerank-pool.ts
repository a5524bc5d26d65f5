/**
 * What a skill-library re-ranker costs at search time: hybrid search over the library (the eval
 * engine, use-lite with remembered query vectors, so the model's time is left out) for every
 * request of the fresh library sets r2–r11, with the `kinds.skills` model of each given
 * rerank-model.json swapped in, in alternate passes after one warm pass of each; p50 and p90 per
 * search over all passes of each. Numbers: docs/retrieval.md ("thirteenth round").
 *
 *   SKILL_SEARCH_EVAL_DIR=/work/shared/eval npx tsx scripts/measure-rerank-pool.ts A.json B.json [--passes 5]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resolveEmbedder } from '../src/embed/resolve.js';
import { SkillSearchEngine } from '../src/search/index.js';
import { BUNDLED_RERANKERS, type RerankModel } from '../src/search/rerank.js';
import { catalogOf, evalIndexDir, freshLibrarySetsThrough, loadSuite, queryVectorsFile } from './eval-suites.js';
import { rememberVectors } from './query-vectors.js';

const { values, positionals } = parseArgs({ strict: true, allowPositionals: true, options: { passes: { type: 'string', default: '5' } } });
if (positionals.length !== 2) throw new Error('usage: measure-rerank-pool.ts A.json B.json [--passes 5]');
const models = positionals.map((file) => (JSON.parse(readFileSync(file, 'utf8')) as { kinds: { skills: RerankModel } }).kinds.skills);
const bundled = BUNDLED_RERANKERS as Record<'skills', RerankModel>;

const base = resolveEmbedder('use-lite');
const embedder = rememberVectors(base, queryVectorsFile(base));
const queries: string[] = [];
let skills: Awaited<ReturnType<typeof loadSuite>>;
for (const name of freshLibrarySetsThrough('library-r11')) {
  const suite = (await loadSuite(name, { sample: 500 }))!;
  skills ??= suite;
  queries.push(...suite.queries.map((query) => query.query));
}
const engine = await SkillSearchEngine.open({ embedder, indexDir: evalIndexDir(catalogOf('library'), base), queryCacheSize: 0 });
await engine.sync(skills!.skills);

async function pass(model: RerankModel, times: number[] | undefined): Promise<void> {
  bundled.skills = model;
  for (const query of queries) {
    const started = performance.now();
    await engine.search(query, { mode: 'hybrid', k: 5 });
    times?.push(performance.now() - started);
  }
}
const times = models.map((): number[] => []);
for (const model of models) await pass(model, undefined);
for (let round = 0; round < Number(values.passes); round += 1) for (const [i, model] of models.entries()) await pass(model, times[i]);
embedder.save();
await engine.close();
const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
for (const [i, file] of positionals.entries()) {
  const sorted = [...times[i]!].sort((a, b) => a - b);
  const pool = `${models[i]!.depth} + ${models[i]!.lexicalDepth} + ${models[i]!.weightedDepth ?? 0}`;
  console.log(
    `${file} (pool ${pool}): ${sorted.length} searches, p50 ${(quantile(sorted, 0.5) * 1000).toFixed(0)} µs, p90 ${(quantile(sorted, 0.9) * 1000).toFixed(0)} µs`,
  );
}
