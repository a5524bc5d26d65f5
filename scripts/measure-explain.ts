/**
 * What `SearchRequest.explain` costs: search latency with it off and on, in one process,
 * rounds interleaved, on a synthetic catalog (bench/synthetic.ts, seed 7) with the hash
 * embedder and the exact index, so only the search code is timed. Given the path of another
 * checkout of this repository (e.g. the commit before the option, extracted with `git archive`,
 * its node_modules linked), it times that tree's plain search in the same rounds too.
 *
 * Usage: npx tsx scripts/measure-explain.ts [BASE_TREE]
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { toSkill } from '../bench/corpus.js';
import { generateSynthetic } from '../bench/synthetic.js';
import type { SearchMode, SearchRequest } from '../src/types.js';

const SKILLS = 2000;
const QUERIES = 300;
const ROUNDS = 15;

interface Searcher {
  search(query: string, request: SearchRequest): Promise<unknown>;
}

const corpus = generateSynthetic({ skills: SKILLS, queries: QUERIES, seed: 7 });
const queries = corpus.queries.map((query) => query.query);

async function open(root: string): Promise<Searcher> {
  const { createHashEmbedder } = (await import(path.join(root, 'src/embed/hash-embedder.ts'))) as typeof import('../src/embed/hash-embedder.js');
  const { SkillSearchEngine } = (await import(path.join(root, 'src/search/engine.ts'))) as typeof import('../src/search/engine.js');
  const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann: 'exact' });
  await engine.sync(corpus.tools.map((tool) => toSkill(tool, 'synthetic')));
  return engine;
}

/** Mean milliseconds per query over the query set. */
async function time(searcher: Searcher, mode: SearchMode, explain: boolean): Promise<number> {
  const started = performance.now();
  for (const query of queries) await searcher.search(query, { mode, k: 5, ...(explain ? { explain: true } : {}) });
  return (performance.now() - started) / queries.length;
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const mine = await open(here);
const base = process.argv[2] === undefined ? undefined : await open(path.resolve(process.argv[2]));
for (const mode of ['hybrid', 'lexical'] as const) {
  const runs = { base: [] as number[], off: [] as number[], on: [] as number[] };
  // One warm-up round fills the query-vector cache and JIT for every variant.
  for (let round = 0; round <= ROUNDS; round++) {
    const timed = { base: base === undefined ? 0 : await time(base, mode, false), off: await time(mine, mode, false), on: await time(mine, mode, true) };
    if (round > 0) for (const key of ['base', 'off', 'on'] as const) runs[key].push(timed[key]);
  }
  const [b, off, on] = [median(runs.base), median(runs.off), median(runs.on)];
  const baseText = base === undefined ? '' : `base ${b.toFixed(3)} ms, off/base ${(off / b).toFixed(3)}x; `;
  console.log(
    `${mode} (${SKILLS} skills, ${QUERIES} queries, median of ${ROUNDS} rounds): ${baseText}explain off ${off.toFixed(3)} ms, on ${on.toFixed(3)} ms (${(on / off).toFixed(3)}x off)`,
  );
}
