/**
 * Measures retrieval on the shared corpora in ../shared/eval (skipped when absent), both views
 * in one run: ranking (abstention off) and what a user is shown (abstention on).
 *
 *   npx tsx scripts/eval-shared.ts [--suite metatool,seal,skillsbench,library] [--split test]
 *       [--sample 2000] [--modes hybrid,dense,lexical] [--model use-lite] [--ann hnsw|exact]
 *       [--abstain balanced] [--cross-lingual on|off] [--lexical-margin 1.5] [--lexical-coverage 0.2]
 *       [--config knobs.json] [--memo] [--json] [--per-query DIR]
 *
 * Suites and the train/dev/test split come from scripts/eval-suites.ts. Catalog vectors are
 * cached under $TMPDIR/skill-search-eval/<suite>; with --memo query vectors are remembered on
 * disk there too (faster reruns, but latency then excludes the model).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveEmbedder } from '../src/embed/resolve.js';
import { readEngineConfig } from '../src/eval/engine-config.js';
import { percentile } from '../src/eval/metrics.js';
import { blankExplainer, runEval, type EvalReport, type QueryRecord } from '../src/eval/run.js';
import { ENGINE_DEFAULTS, SkillSearchEngine, type EngineOptions } from '../src/search/index.js';
import { assertAbstainSetting } from '../src/search/abstention.js';
import type { Embedder, SearchMode } from '../src/types.js';
import { catalogOf, EVAL_DIR, evalIndexDir, loadSuite, queryVectorsFile, SPLITS, type Split, type SuiteName } from './eval-suites.js';
import { rememberVectors } from './query-vectors.js';

const { values } = parseArgs({
  strict: true,
  options: {
    suite: { type: 'string', default: 'metatool,seal,skillsbench,library' },
    split: { type: 'string' },
    sample: { type: 'string', default: '2000' },
    modes: { type: 'string', default: 'hybrid,dense,lexical' },
    model: { type: 'string', default: 'use-lite' },
    ann: { type: 'string' },
    abstain: { type: 'string' },
    /** BM25 weight of the SKILL.md body field (0: body not searched). */
    'body-boost': { type: 'string' },
    /** The long-message gate (`queryChunks.lexicalMargin`, `lexicalCoverage`; 0 margin: sentences always embedded). */
    'lexical-margin': { type: 'string' },
    'lexical-coverage': { type: 'string' },
    /** `off`: no language step (to check that English results do not depend on it). */
    'cross-lingual': { type: 'string', default: 'on' },
    /** A JSON file of engine knobs (as `skill-search eval --config`), applied over the flags above. */
    config: { type: 'string' },
    json: { type: 'boolean', default: false },
    memo: { type: 'boolean', default: false },
    'per-query': { type: 'string' },
    /** Warm hybrid latency on the library (~430 skills): total per query and the query-embedding share. */
    latency: { type: 'boolean', default: false },
  },
});

async function main(): Promise<void> {
  if (!(await import('node:fs')).existsSync(EVAL_DIR)) {
    console.error(`eval data not found at ${EVAL_DIR}; skipping`);
    return;
  }
  const base = resolveEmbedder(values.model);
  const abstainRaw = values.abstain;
  const abstain = abstainRaw === undefined ? undefined : assertAbstainSetting('--abstain', Number.isNaN(Number(abstainRaw)) ? abstainRaw : Number(abstainRaw));
  const tuning: Partial<{ -readonly [K in keyof EngineOptions]: EngineOptions[K] }> = {
    queryCacheSize: 0,
    ...(values.ann === undefined ? {} : { ann: values.ann as 'hnsw' | 'exact' }),
    ...(abstain === undefined ? {} : { abstain }),
    ...(values['body-boost'] === undefined ? {} : { fieldBoosts: { body: Number(values['body-boost']) } }),
    ...(values['cross-lingual'] === 'off' ? { crossLingual: { enabled: false } } : {}),
    queryChunks: {
      ...(values['lexical-margin'] === undefined ? {} : { lexicalMargin: Number(values['lexical-margin']) }),
      ...(values['lexical-coverage'] === undefined ? {} : { lexicalCoverage: Number(values['lexical-coverage']) }),
    },
  };
  if (values.config !== undefined) Object.assign(tuning, readEngineConfig(values.config));
  if (!['on', 'off'].includes(values['cross-lingual'])) throw new Error('--cross-lingual: on or off');
  if (values.latency) {
    await latency(base, tuning);
    return;
  }
  const splits = values.split === undefined ? undefined : (values.split.split(',') as Split[]);
  if (splits?.some((split) => !SPLITS.includes(split))) throw new Error(`--split: one or more of ${SPLITS.join(', ')}`);
  const modes = values.modes.split(',') as SearchMode[];
  const rows: (EvalReport & { suite: string; skills: number; shownLength: number })[] = [];
  for (const suiteName of values.suite.split(',') as SuiteName[]) {
    const suite = await loadSuite(suiteName, { sample: Number(values.sample), ...(splits === undefined ? {} : { splits }) });
    if (suite === undefined) continue;
    const embedder = values.memo ? rememberVectors(base, queryVectorsFile(base)) : base;
    const engine = await SkillSearchEngine.open({ embedder, indexDir: evalIndexDir(catalogOf(suiteName), base), ...tuning });
    const started = performance.now();
    const sync = await engine.sync(suite.skills);
    if (!values.json) {
      console.error(
        `${suiteName}: ${suite.skills.length} skills (${sync.embedded} embedded) in ${Math.round(performance.now() - started)} ms; ${suite.queries.length} queries${splits === undefined ? '' : ` (${splits.join('+')})`}`,
      );
    }
    for (const mode of modes) {
      const records: QueryRecord[] = [];
      const threshold = 'threshold' in engine ? { threshold: engine.threshold(mode), explainBlank: blankExplainer(engine, { mode, k: 10 }) } : {};
      const report = await runEval(engine, suite.queries, { k: 10, mode, ...threshold, onRecord: (record) => records.push(record) });
      rows.push({ suite: suiteName, skills: engine.size, ...report, shownLength: shownLength(records) });
      if (values['per-query'] !== undefined) {
        mkdirSync(values['per-query'], { recursive: true });
        writeFileSync(join(values['per-query'], `${suiteName}-${mode}.jsonl`), records.map((record) => JSON.stringify(record)).join('\n') + '\n');
      }
    }
    if ('save' in embedder) (embedder as { save(): void }).save();
    await engine.close();
  }
  if (values.json) {
    console.log(JSON.stringify(rows, null, 2));
    return;
  }
  const header = [
    'suite',
    'skills',
    'mode',
    'queries',
    'hit@1',
    'hit@5',
    'MRR',
    'shown hit@1',
    'shown hit@5',
    'shown length',
    'blank',
    'abstain',
    'p50 ms',
    'p99 ms',
  ];
  console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
  for (const row of rows) {
    const cells = [
      row.suite,
      row.skills,
      row.mode,
      row.queries,
      row.hitAt1.toFixed(3),
      row.hitAt5.toFixed(3),
      row.mrr.toFixed(3),
      row.shown.hitAt1.toFixed(3),
      row.shown.hitAt5.toFixed(3),
      row.shownLength.toFixed(2),
      row.shown.blank.toFixed(3),
      row.abstain.queries === 0 ? '–' : `${row.abstain.correct}/${row.abstain.queries}`,
      row.latencyMs.p50.toFixed(2),
      row.latencyMs.p99.toFixed(2),
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
}

/** Mean number of hits shown (at most the product's default k) per answerable message. */
function shownLength(records: readonly QueryRecord[]): number {
  const answerable = records.filter((record) => record.relevant.length > 0);
  return answerable.reduce((sum, record) => sum + Math.min(ENGINE_DEFAULTS.k, record.shown.length), 0) / Math.max(1, answerable.length);
}

async function latency(base: Embedder, tuning: Partial<EngineOptions>): Promise<void> {
  const suite = await loadSuite('library');
  if (suite === undefined) return;
  let embedMs = 0;
  const timed: Embedder = {
    id: base.id,
    get dimensions() {
      return base.dimensions;
    },
    async embed(texts, signal, kind) {
      const started = performance.now();
      const vectors = await base.embed(texts, signal, kind);
      embedMs = performance.now() - started;
      return vectors;
    },
  };
  const indexDir = evalIndexDir('library', base);
  const engine = await SkillSearchEngine.open({ embedder: timed, indexDir, ...tuning });
  await engine.sync(suite.skills);
  const queries = suite.queries.map((query) => query.query);
  for (const query of queries.slice(0, 20)) await engine.search(query);
  const totals: number[] = [];
  const rest: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    for (const query of queries) {
      const started = performance.now();
      await engine.search(query);
      const total = performance.now() - started;
      totals.push(total);
      rest.push(total - embedMs);
    }
  }
  const pct = (values: number[], p: number): string =>
    percentile(
      [...values].sort((a, b) => a - b),
      p,
    ).toFixed(2);
  await engine.close();
  // The same messages again through the engine's query cache (a hook and a prefetch on one turn).
  const cached = await SkillSearchEngine.open({ embedder: base, indexDir, ...tuning, queryCacheSize: 256 });
  await cached.sync(suite.skills);
  for (const query of queries) await cached.search(query);
  const repeated: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    for (const query of queries) {
      const started = performance.now();
      await cached.search(query);
      repeated.push(performance.now() - started);
    }
  }
  await cached.close();
  console.log(`library ${suite.skills.length} skills, ${totals.length} warm hybrid searches (${engine.info.ann}); load ${loadavg()[0]!.toFixed(2)}`);
  console.log(`total        p50 ${pct(totals, 50)} ms  p95 ${pct(totals, 95)} ms  p99 ${pct(totals, 99)} ms`);
  console.log(`minus embed  p50 ${pct(rest, 50)} ms  p95 ${pct(rest, 95)} ms  p99 ${pct(rest, 99)} ms`);
  console.log(`repeated     p50 ${pct(repeated, 50)} ms  p95 ${pct(repeated, 95)} ms  p99 ${pct(repeated, 99)} ms  (query vector from the engine's LRU)`);
}

await main();
