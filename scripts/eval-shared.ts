/**
 * Measures retrieval on the shared corpora in ../shared/eval (skipped when absent).
 *
 *   npx tsx scripts/eval-shared.ts [--suite metatool,seal,skillsbench,library] [--sample 2000]
 *       [--modes hybrid,dense,lexical] [--model use-lite] [--fusion weighted|rrf] [--ann hnsw|exact]
 *       [--weights 0.65,0.35] [--dense-range 0.3,0.75] [--min-score 0.4] [--memo] [--json]
 *
 * Tool lines become Skill objects here (id = line id) so this script depends on nothing but the
 * retrieval core. Vectors are cached under $TMPDIR/skill-search-eval/<suite>, so only the first
 * run pays for embedding the catalog.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveEmbedder } from '../src/embed/index.js';
import { percentile } from '../src/search/eval.js';
import { readEvalQueries, runEval, scoreSuggestions, SkillSearchEngine, type EngineOptions, type EvalQuery, type EvalReport, type QueryOutcome } from '../src/search/index.js';
import type { Embedder, SearchMode, Skill } from '../src/types.js';

const EVAL_DIR = process.env.SKILL_SEARCH_EVAL_DIR ?? join(import.meta.dirname, '..', '..', 'shared', 'eval');

const { values } = parseArgs({
  strict: true,
  options: {
    suite: { type: 'string', default: 'metatool,seal,skillsbench,library' },
    sample: { type: 'string', default: '2000' },
    modes: { type: 'string', default: 'hybrid,dense,lexical' },
    model: { type: 'string', default: 'use-lite' },
    fusion: { type: 'string' },
    ann: { type: 'string' },
    weights: { type: 'string' },
    'dense-range': { type: 'string' },
    'min-score': { type: 'string' },
    json: { type: 'boolean', default: false },
    /** Embed each query once across modes: faster parameter sweeps, but latency then excludes the model. */
    memo: { type: 'boolean', default: false },
    /** Grid over fusion, weights and dense range (hybrid only, memoised queries); prints one line per setting. */
    sweep: { type: 'boolean', default: false },
    /** Abstention grids (minScore, relativeCut): negatives abstained vs positives still answered (top 5), and precision of what is returned. */
    calibrate: { type: 'boolean', default: false },
    /** Warm hybrid latency on the library (~430 skills): total per query and the query-embedding share. */
    latency: { type: 'boolean', default: false },
  },
});

function makeSkill(id: string, name: string, description: string, whenToUse?: string): Skill {
  const text = `${name}\n${description}\n${whenToUse ?? ''}`;
  return {
    id,
    name,
    description,
    ...(whenToUse === undefined ? {} : { whenToUse }),
    source: 'skills',
    rank: 4,
    path: `tools:${id}`,
    body: '',
    tokenEstimate: Math.ceil(text.length / 4),
    contentHash: createHash('sha256').update(text).digest('hex'),
  };
}

function readJsonl(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** `description_for_model` (MetaTool plugins) is the text written for a model to choose the tool: it plays the `whenToUse` role. */
function toolsAsSkills(file: string): Skill[] {
  return readJsonl(file).map((line) => {
    const name = String(line.name ?? line.id);
    const description = typeof line.description === 'string' ? line.description : name;
    const forModel = typeof line.description_for_model === 'string' && line.description_for_model !== description ? line.description_for_model : undefined;
    return makeSkill(String(line.id), name, description, forModel);
  });
}

/** Deterministic sample: every ⌈n/size⌉-th query, so reruns compare like with like. */
function sample<T>(items: readonly T[], size: number): T[] {
  if (items.length <= size) return [...items];
  const step = items.length / size;
  return Array.from({ length: size }, (_, i) => items[Math.floor(i * step)]!);
}

/** Written for this script (not taken from any corpus): requests a user might type, labelled with library skill names. */
const LIBRARY_QUERIES: readonly [string, string[]][] = [
  ['fill in the form fields of this pdf and merge it with the cover page', ['pdf']],
  ['make a slide deck for the quarterly review', ['pptx']],
  ['my test is failing intermittently and I cannot figure out the root cause', ['systematic-debugging', 'debugging-strategies', 'parallel-debugging']],
  ['write the failing test before the implementation', ['test-driven-development']],
  ['set up a separate worktree so I can work on the feature branch', ['using-git-worktrees']],
  ['build an MCP server that exposes our internal API to the model', ['mcp-builder']],
  ['create a new skill for our team', ['skill-creator', 'writing-skills']],
  ['the postgres query takes 30 seconds, help me speed it up', ['sql-optimization-patterns', 'postgresql-table-design']],
  ['design the tables for a multi-tenant postgres schema', ['postgresql-table-design']],
  ['write a helm chart for this service', ['helm-chart-scaffolding']],
  ['generate kubernetes deployment and service yaml', ['k8s-manifest-generator']],
  ['set up prometheus alerts and scrape configs', ['prometheus-configuration']],
  ['build a grafana dashboard for latency', ['grafana-dashboards']],
  ['add stripe checkout and subscriptions to the app', ['stripe-integration']],
  ['scan this solidity contract for reentrancy bugs', ['solidity-security']],
  ['write a semgrep rule that finds this pattern', ['semgrep-rule-creator', 'semgrep']],
  ['fuzz this rust crate', ['cargo-fuzz']],
  ['analyse single-cell RNA-seq data and cluster the cells', ['scanpy', 'scvi-tools', 'anndata']],
  ['parse this protein fasta file and run a blast search', ['biopython']],
  ['compute molecular descriptors from SMILES strings', ['rdkit', 'datamol', 'molfeat']],
  ['plot a heatmap with seaborn', ['seaborn', 'matplotlib', 'scientific-visualization']],
  ['train a gradient boosting classifier and cross-validate it', ['scikit-learn']],
  ['fit a bayesian hierarchical model', ['pymc']],
  ['run a quantum circuit simulation', ['qiskit', 'cirq', 'qutip', 'pennylane']],
  ['deploy my next.js site to vercel', ['deploy-to-vercel', 'vercel-cli-with-tokens']],
  ['make my React components faster and avoid re-renders', ['vercel-react-best-practices', 'react-state-management']],
  ['design a distinctive landing page with good typography', ['frontend-design', 'brand-landingpage']],
  ['write a github actions workflow that runs tests on every push', ['github-actions-templates']],
  ['fix the failing CI checks on my pull request', ['gh-fix-ci']],
  ['respond to the review comments on my PR', ['gh-address-comments', 'receiving-code-review']],
  ['write a postmortem for yesterday outage', ['postmortem-writing']],
  ['build a retrieval augmented generation pipeline over our docs', ['rag-implementation']],
  ['fine-tune a model with LoRA on a single GPU', ['lora-qlora-recipes']],
  ['create generative art with p5.js', ['algorithmic-art']],
  ['edit an Excel spreadsheet and add formulas', ['xlsx']],
  ['write a Word document with tracked changes', ['docx']],
  ['store and query event sourced aggregates', ['event-store-design', 'cqrs-implementation']],
  ['handle GDPR data deletion requests', ['gdpr-data-handling']],
  ['make the python package installable with pyproject', ['python-packaging']],
  ['review this C code for memory safety bugs', ['c-review', 'address-sanitizer']],
  ['帮我把这个 PDF 里的表格提取出来', ['pdf']],
  ['thanks, that is all for today', []],
  ['what time is it in Tokyo?', []],
  ['tell me a joke', []],
  ['good morning!', []],
  ['who won the football match yesterday', []],
];

function librarySkills(): Skill[] {
  const root = join(EVAL_DIR, 'library');
  const seen = new Set<string>();
  const skills: Skill[] = [];
  for (const source of readdirSync(root).sort()) {
    const indexFile = join(root, source, '_index.jsonl');
    if (!existsSync(indexFile)) continue;
    for (const line of readJsonl(indexFile)) {
      const name = String(line.name);
      if (seen.has(name)) continue;
      seen.add(name);
      skills.push(makeSkill(name, name, typeof line.description === 'string' ? line.description : name));
    }
  }
  return skills;
}

interface Suite {
  readonly name: string;
  readonly skills: Skill[];
  readonly queries: EvalQuery[];
}

async function loadSuite(name: string, size: number): Promise<Suite | undefined> {
  const dir = (folder: string): string => join(EVAL_DIR, folder);
  switch (name) {
    case 'metatool': {
      if (!existsSync(dir('metatool'))) return undefined;
      const labelled = sample(await readEvalQueries(join(dir('metatool'), 'queries.jsonl')), size);
      const negatives = sample(await readEvalQueries(join(dir('metatool'), 'queries_no_tool.jsonl')), Math.min(size, 520));
      return { name, skills: toolsAsSkills(join(dir('metatool'), 'tools.jsonl')), queries: [...labelled, ...negatives] };
    }
    case 'seal':
      if (!existsSync(dir('seal-tools'))) return undefined;
      return { name, skills: toolsAsSkills(join(dir('seal-tools'), 'tools.jsonl')), queries: sample(await readEvalQueries(join(dir('seal-tools'), 'queries.jsonl')), size) };
    case 'skillsbench':
      if (!existsSync(dir('skillsbench'))) return undefined;
      return { name, skills: toolsAsSkills(join(dir('skillsbench'), 'tools.jsonl')), queries: await readEvalQueries(join(dir('skillsbench'), 'queries.jsonl')) };
    case 'library':
      if (!existsSync(dir('library'))) return undefined;
      return {
        name,
        skills: librarySkills(),
        queries: LIBRARY_QUERIES.map(([query, relevant], i) => ({ id: `lib-${i}`, query, relevant })),
      };
    default:
      throw new Error(`unknown suite ${name}`);
  }
}

/** Remembers query vectors so several modes/parameter sets over one suite embed each query once. */
function memoise(embedder: Embedder): Embedder {
  const memo = new Map<string, Float32Array>();
  return {
    id: embedder.id,
    get dimensions() {
      return embedder.dimensions;
    },
    async embed(texts, signal, kind) {
      if (texts.length !== 1) return embedder.embed(texts, signal, kind);
      const key = `${kind ?? 'passage'}\0${texts[0]!}`;
      const hit = memo.get(key);
      if (hit) return [hit];
      const [vector] = await embedder.embed(texts, signal, kind);
      memo.set(key, vector!);
      return [vector!];
    },
  };
}

function pair(value: string | undefined): [number, number] | undefined {
  if (value === undefined) return undefined;
  const [a, b] = value.split(',').map(Number);
  return [a!, b!];
}

async function main(): Promise<void> {
  if (!existsSync(EVAL_DIR)) {
    console.error(`eval data not found at ${EVAL_DIR}; skipping`);
    return;
  }
  const base = resolveEmbedder(values.model);
  const weights = pair(values.weights);
  const range = pair(values['dense-range']);
  // Query vectors are shared explicitly (--memo) or not at all, so latency columns stay honest.
  const tuning: Partial<EngineOptions> = {
    queryCacheSize: 0,
    ...(values.fusion === undefined ? {} : { fusion: values.fusion as 'weighted' | 'rrf' }),
    ...(values.ann === undefined ? {} : { ann: values.ann as 'hnsw' | 'exact' }),
    ...(weights === undefined ? {} : { weights: { dense: weights[0], lexical: weights[1] } }),
    ...(range === undefined ? {} : { denseRange: { low: range[0], high: range[1] } }),
    ...(values['min-score'] === undefined ? {} : { minScore: Number(values['min-score']) }),
  };
  if (values.sweep) {
    await sweep(base, tuning);
    return;
  }
  if (values.calibrate) {
    await calibrate(base, tuning);
    return;
  }
  if (values.latency) {
    await latency(base, tuning);
    return;
  }
  const modes = values.modes.split(',') as SearchMode[];
  const rows: (EvalReport & { suite: string; skills: number; warm?: { p50: number; p99: number } })[] = [];
  for (const suiteName of values.suite.split(',')) {
    const suite = await loadSuite(suiteName, Number(values.sample));
    if (suite === undefined) continue;
    const embedder = values.memo ? memoise(base) : base;
    const indexDir = join(tmpdir(), 'skill-search-eval', `${suiteName}-${base.id.replace(/[^\w.@-]+/g, '_')}`);
    const engine = await SkillSearchEngine.open({ embedder, indexDir, ...tuning });
    const started = performance.now();
    const sync = await engine.sync(suite.skills);
    if (!values.json) {
      console.error(`${suiteName}: ${suite.skills.length} skills (${sync.embedded} embedded, ${engine.info.index.state}) in ${Math.round(performance.now() - started)} ms; ${suite.queries.length} queries`);
    }
    for (const mode of modes) {
      rows.push({ suite: suiteName, skills: engine.size, ...(await runEval(engine, suite.queries, { k: 10, mode })) });
    }
    await engine.close();
  }
  if (values.json) {
    console.log(JSON.stringify(rows, null, 2));
    return;
  }
  const header = ['suite', 'skills', 'mode', 'queries', 'hit@1', 'hit@5', 'hit@10', 'MRR', 'nDCG@10', 'abstain', 'p50 ms', 'p99 ms'];
  console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
  for (const row of rows) {
    const cells = [
      row.suite,
      row.skills,
      row.mode,
      row.queries,
      row.hitAt1.toFixed(3),
      row.hitAt5.toFixed(3),
      row.hitAt10.toFixed(3),
      row.mrr.toFixed(3),
      row.ndcgAt10.toFixed(3),
      row.abstain.queries === 0 ? '–' : `${row.abstain.correct}/${row.abstain.queries}`,
      row.latencyMs.p50.toFixed(2),
      row.latencyMs.p99.toFixed(2),
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
}

async function sweep(base: Embedder, tuning: Partial<EngineOptions>): Promise<void> {
  const grid: Partial<EngineOptions>[] = [{ fusion: 'rrf' }];
  for (const denseShare of [0.55, 0.6, 0.65]) {
    for (const terms of [16, 32]) grid.push({ fusion: 'weighted', denseShare, coverageExponent: 0, longQuery: { terms, denseShare: 0.2 } });
  }
  for (const suiteName of values.suite.split(',')) {
    const suite = await loadSuite(suiteName, Number(values.sample));
    if (suite === undefined) continue;
    const embedder = memoise(base);
    const indexDir = join(tmpdir(), 'skill-search-eval', `${suiteName}-${base.id.replace(/[^\w.@-]+/g, '_')}`);
    for (const setting of grid) {
      const engine = await SkillSearchEngine.open({ embedder, indexDir, ...tuning, ...setting });
      await engine.sync(suite.skills);
      const report = await runEval(engine, suite.queries, { k: 10, mode: 'hybrid' });
      await engine.close();
      console.log(
        `${suiteName}\t${JSON.stringify(setting)}\thit@1 ${report.hitAt1.toFixed(3)}\thit@5 ${report.hitAt5.toFixed(3)}\tmrr ${report.mrr.toFixed(3)}\tabstain ${report.abstain.correct}/${report.abstain.queries}`,
      );
    }
  }
}

async function calibrate(base: Embedder, tuning: Partial<EngineOptions>): Promise<void> {
  const settings: Partial<EngineOptions>[] = [
    ...[0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55].map((minScore) => ({ minScore })),
    ...[0, 0.6, 0.7, 0.8, 0.9].map((relativeCut) => ({ relativeCut })),
  ];
  for (const suiteName of values.suite.split(',')) {
    const suite = await loadSuite(suiteName, Number(values.sample));
    if (suite === undefined) continue;
    const embedder = memoise(base);
    const indexDir = join(tmpdir(), 'skill-search-eval', `${suiteName}-${base.id.replace(/[^\w.@-]+/g, '_')}`);
    for (const setting of settings) {
      const engine = await SkillSearchEngine.open({ embedder, indexDir, ...tuning, ...setting });
      await engine.sync(suite.skills);
      const outcomes: QueryOutcome[] = [];
      for (const query of suite.queries) {
        const hits = await engine.search(query.query, { k: 5 });
        outcomes.push({ relevant: query.relevant, ranked: hits.map((hit) => ({ id: hit.skill.id, name: hit.skill.name })) });
      }
      await engine.close();
      const scores = scoreSuggestions(outcomes);
      // precision: share of the returned (abstaining, top 5) hits that are relevant, over labelled queries.
      console.log(
        `${suiteName}\t${JSON.stringify(setting)}\tnegatives abstained ${scores.abstain.correct}/${scores.abstain.queries}\tpositives answered (top 5) ${scores.answered}/${scores.labelled}\tprecision ${scores.precision.toFixed(3)}\tmean returned ${scores.meanSuggested.toFixed(2)}`,
      );
    }
  }
}

async function latency(base: Embedder, tuning: Partial<EngineOptions>): Promise<void> {
  const suite = await loadSuite('library', 0);
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
  const indexDir = join(tmpdir(), 'skill-search-eval', `library-${base.id.replace(/[^\w.@-]+/g, '_')}`);
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
  const pct = (values: number[], p: number): string => percentile([...values].sort((a, b) => a - b), p).toFixed(2);
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
