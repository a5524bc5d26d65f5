/**
 * Chooses the long-message gate (`queryChunks` in src/search/options.ts): when a hybrid search may
 * skip the per-sentence embedding of a long message because BM25 has already singled a skill out.
 *
 *   npx tsx scripts/choose-chunk-gate.ts [--split dev] [--sample 2000] [--suite metatool,seal,library]
 *   npx tsx scripts/choose-chunk-gate.ts --latency 300 [--split dev] [--suite seal]
 *
 * Each query of the split is searched twice (hybrid, both views, as scripts/eval-shared.ts does):
 * with the sentence vectors always embedded (`lexicalMargin: 0`) and never (`max: 0`), and its
 * BM25 evidence is recorded. A gate only chooses, per query, which of the two results the user
 * gets, so every candidate rule is scored exactly from these two runs without searching again.
 * Per rule it prints the share of the messages that embed sentences which the rule spares (the
 * speed proxy) and each suite's ranked and shown hit@1 / hit@5 against always-embedding. The
 * choice rule is at the bottom (`choose`). Deterministic: seeded split, every-n-th sampling, no
 * randomness. Query vectors are remembered under the eval cache root, so reruns embed nothing.
 * With `--latency N`, it instead times N messages of the split with at least `minTerms` distinct
 * terms through `search` (the real model, nothing remembered) with the gate off, at the earlier
 * margin 1.75 alone, and at the defaults, the three alternated message by message.
 * Decision and numbers: docs/retrieval.md (Long messages).
 */
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveEmbedder } from '../src/embed/resolve.js';
import { relevantRanks } from '../src/eval/metrics.js';
import { runEval, type QueryRecord } from '../src/eval/run.js';
import { LexicalIndex } from '../src/lexical/lexical-index.js';
import { tokenize } from '../src/lexical/tokenize.js';
import { loadToolsJsonl } from '../src/load/index.js';
import { denseShareFor } from '../src/search/fusion.js';
import { ENGINE_DEFAULTS, SkillSearchEngine, type EngineOptions } from '../src/search/index.js';
import { lexicallySettled, queryChunks } from '../src/search/query-chunks.js';
import type { QueryChunkOptions } from '../src/search/options.js';
import type { Embedder } from '../src/types.js';
import { EVAL_DIR, evalIndexDir, loadSuite, queryVectorsFile, SPLITS, SUITE_NAMES, type Split, type SuiteName } from './eval-suites.js';
import { rememberVectors } from './query-vectors.js';

const { values } = parseArgs({
  strict: true,
  options: {
    split: { type: 'string', default: 'dev' },
    suite: { type: 'string', default: 'metatool,seal,library' },
    sample: { type: 'string', default: '2000' },
    model: { type: 'string', default: 'use-lite' },
    /** Instead of the sweep: time this many long messages per suite through `search` under the compared gates. */
    latency: { type: 'string' },
  },
});

/** One query as both runs saw it. */
interface Case {
  readonly relevant: readonly string[];
  /** Ranked (abstention off) and shown (abstention on) results, sentence vectors always embedded. */
  readonly always: QueryRecord;
  /** The same, sentence vectors never embedded. */
  readonly never: QueryRecord;
  /** Whether the always-run embedded sentence vectors for it (what a gate can spare). */
  readonly chunked: boolean;
  /** BM25 scores and coverages of the lexical ranker's first two hits (what the gate reads). */
  readonly lexical: readonly { readonly id: string; readonly score: number; readonly coverage: number }[];
}

/** Counts embedder calls of more than one text: the engine embeds a message's sentences in one such call. */
function countingChunkCalls(embedder: Embedder): { embedder: Embedder; take(): number } {
  let calls = 0;
  return {
    embedder: {
      id: embedder.id,
      get dimensions() {
        return embedder.dimensions;
      },
      embed(texts, signal, kind) {
        if (texts.length > 1) calls += 1;
        return embedder.embed(texts, signal, kind);
      },
    },
    take() {
      const taken = calls;
      calls = 0;
      return taken;
    },
  };
}

async function records(
  suiteName: SuiteName,
  split: Split,
  tuning: Partial<EngineOptions>,
): Promise<{ records: QueryRecord[]; chunked: boolean[]; lexical: Case['lexical'][] }> {
  const suite = (await loadSuite(suiteName, { splits: [split], sample: Number(values.sample) }))!;
  const base = resolveEmbedder(values.model);
  const remembered = rememberVectors(base, queryVectorsFile(base));
  const counting = countingChunkCalls(remembered);
  const engine = await SkillSearchEngine.open({ embedder: counting.embedder, indexDir: evalIndexDir(suiteName, base), queryCacheSize: 0, ...tuning });
  await engine.sync(suite.skills);
  counting.take();
  const out: QueryRecord[] = [];
  const chunked: boolean[] = [];
  await runEval(engine, suite.queries, {
    k: 10,
    mode: 'hybrid',
    threshold: engine.threshold('hybrid'),
    onRecord: (record) => {
      out.push(record);
      chunked.push(counting.take() > 0);
    },
  });
  const lexical: Case['lexical'][] = [];
  for (const query of suite.queries) {
    const { explanation } = await engine.rank(query.query, { mode: 'lexical', explain: true });
    lexical.push([...(explanation?.lexical.values() ?? [])].slice(0, 2).map(({ id, score, coverage }) => ({ id, score, coverage })));
  }
  remembered.save();
  await engine.close();
  return { records: out, chunked, lexical };
}

async function collect(suiteName: SuiteName, split: Split): Promise<Case[] | undefined> {
  if ((await loadSuite(suiteName, { splits: [split], sample: Number(values.sample) })) === undefined) return undefined;
  const always = await records(suiteName, split, { queryChunks: { lexicalMargin: 0 } });
  const never = await records(suiteName, split, { queryChunks: { max: 0 } });
  return always.records.map((record, i) => ({
    relevant: record.relevant,
    always: record,
    never: never.records[i]!,
    chunked: always.chunked[i]!,
    lexical: always.lexical[i]!,
  }));
}

/** The registry pool the scale bench searches at 24k (bench/corpus.ts), and its long-message band (bench/scale.ts). */
const POOL = join(EVAL_DIR, 'pools', 'skill-registry-metadata', 'tools.jsonl');
const LONG = { min: 250, max: 600 };

/**
 * The second speed proxy: the split's messages in the scale bench's long-message band that would
 * embed sentences, each with its two best BM25 hits over the ~24k registry skills (the catalog the
 * bench times them on). Undefined without the pool.
 */
async function registryEvidence(messages: readonly string[]): Promise<Case['lexical'][] | undefined> {
  if (!existsSync(POOL)) return undefined;
  const index = new LexicalIndex();
  for (const skill of (await loadToolsJsonl(POOL)).skills) index.upsert(skill);
  const { minTerms, max } = ENGINE_DEFAULTS.queryChunks;
  // A skill registry, as the gate was chosen for skill libraries: the skills kind's long-query ramp.
  const ramp = { denseShare: ENGINE_DEFAULTS.denseShare, longQuery: ENGINE_DEFAULTS.longQuery.skills };
  const search = { boost: ENGINE_DEFAULTS.fieldBoosts, fuzzy: ENGINE_DEFAULTS.fuzzy, prefixMinLength: ENGINE_DEFAULTS.prefixMinLength };
  return messages
    .filter((message) => message.length >= LONG.min && message.length <= LONG.max)
    .filter((message) => {
      const terms = new Set(tokenize(message)).size;
      return terms >= minTerms && denseShareFor(terms, ramp) > 0 && queryChunks(message, max).length > 0;
    })
    .map((message) => index.search(message, ENGINE_DEFAULTS.candidates, search).slice(0, 2));
}

/** A candidate gate: the `queryChunks` knobs it sets. */
type Gate = Pick<QueryChunkOptions, 'lexicalMargin' | 'lexicalCoverage'>;

/** The four hit indicators the gate must leave alone: ranked hit@1, hit@5, shown hit@1, hit@5. */
const INDICATORS = ['hit@1', 'hit@5', 'shown hit@1', 'shown hit@5'] as const;

function indicators(record: QueryRecord): boolean[] {
  const first = (hits: QueryRecord['ranked']): number => Math.min(Number.POSITIVE_INFINITY, ...relevantRanks(hits, record.relevant));
  return [first(record.ranked) <= 1, first(record.ranked) <= 5, first(record.shown) <= 1, first(record.shown) <= 5];
}

/** One suite under one gate: per indicator the hit rate, and the queries it turned from hit to miss and back. */
interface SuiteEffect {
  readonly rates: number[];
  readonly lost: number[];
  readonly gained: number[];
  readonly labelled: number;
}

function effectOf(cases: readonly Case[], skip: (c: Case) => boolean): SuiteEffect {
  const labelled = cases.filter((c) => c.relevant.length > 0);
  const hits = INDICATORS.map(() => 0);
  const lost = INDICATORS.map(() => 0);
  const gained = INDICATORS.map(() => 0);
  for (const c of labelled) {
    const always = indicators(c.always);
    const got = c.chunked && skip(c) ? indicators(c.never) : always;
    got.forEach((hit, i) => {
      if (hit) hits[i]! += 1;
      if (always[i] && !hit) lost[i]! += 1;
      if (!always[i] && hit) gained[i]! += 1;
    });
  }
  return { rates: hits.map((count) => count / Math.max(1, labelled.length)), lost, gained, labelled: labelled.length };
}

/**
 * The largest change a gate makes on one suite, in points, with one standard error of the paired
 * difference added (√(lost + gained) / n): a change of one query in a few hundred is then not
 * taken as evidence that the gate is harmless.
 */
function guardedChange(effect: SuiteEffect): number {
  return Math.max(
    ...INDICATORS.map((_, i) => {
      const n = Math.max(1, effect.labelled);
      const net = (effect.gained[i]! - effect.lost[i]!) / n;
      return 100 * (Math.abs(net) + Math.sqrt(effect.gained[i]! + effect.lost[i]!) / n);
    }),
  );
}

const skipsWith = (gate: Gate) => (c: Case) => lexicallySettled(c.lexical, gate);

const MARGINS = [0, 1.5, 1.75, 2, 2.25, 2.5, 3, 4, 5, 8];
const COVERAGES = [0, 0.1, 0.2, 0.3, 0.4, 0.5];
/** Largest change in points a gate may make on any suite's ranked or shown hit@1 / hit@5 (issue 17). */
const TOLERANCE = 0.3;

/** The gates `--latency` compares: off, the first margin-only gate, the defaults. */
const TIMED: readonly (readonly [string, Gate])[] = [
  ['off', { lexicalMargin: 0, lexicalCoverage: 0 }],
  ['margin 1.75', { lexicalMargin: 1.75, lexicalCoverage: 0 }],
  ['defaults', { lexicalMargin: ENGINE_DEFAULTS.queryChunks.lexicalMargin, lexicalCoverage: ENGINE_DEFAULTS.queryChunks.lexicalCoverage }],
];

async function timeGates(suiteName: SuiteName, split: Split, count: number): Promise<void> {
  const suite = await loadSuite(suiteName, { splits: [split], sample: Number(values.sample) });
  if (suite === undefined) return;
  const base = resolveEmbedder(values.model);
  const engines: SkillSearchEngine[] = [];
  for (const [, gate] of TIMED) {
    const engine = await SkillSearchEngine.open({ embedder: base, indexDir: evalIndexDir(suiteName, base), queryCacheSize: 0, queryChunks: gate });
    await engine.sync(suite.skills);
    engines.push(engine);
  }
  const long = suite.queries.map((query) => query.query).filter((query) => new Set(tokenize(query)).size >= ENGINE_DEFAULTS.queryChunks.minTerms);
  const messages = long.filter((_, i) => i % Math.max(1, Math.floor(long.length / count)) === 0).slice(0, count);
  for (const message of messages.slice(0, 10)) for (const engine of engines) await engine.search(message);
  const times: number[][] = TIMED.map(() => []);
  for (const [n, message] of messages.entries()) {
    for (let turn = 0; turn < engines.length; turn += 1) {
      const i = (n + turn) % engines.length;
      const started = performance.now();
      await engines[i]!.search(message, { k: 10 });
      times[i]!.push(performance.now() - started);
    }
  }
  for (const engine of engines) await engine.close();
  const at = (sorted: number[], p: number): string => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!.toFixed(1);
  console.log(`${suiteName} ${split}: ${messages.length} messages of ${ENGINE_DEFAULTS.queryChunks.minTerms}+ terms, load ${loadavg()[0]!.toFixed(1)}`);
  TIMED.forEach(([label], i) => {
    const sorted = [...times[i]!].sort((a, b) => a - b);
    const mean = sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length;
    console.log(`  ${label.padEnd(12)} p50 ${at(sorted, 50)} ms  p90 ${at(sorted, 90)} ms  p99 ${at(sorted, 99)} ms  mean ${mean.toFixed(1)} ms`);
  });
}

const split = values.split as Split;
if (!SPLITS.includes(split)) throw new Error(`--split: one of ${SPLITS.join(', ')}`);
const suites = values.suite.split(',') as SuiteName[];
if (suites.some((name) => !SUITE_NAMES.includes(name))) throw new Error(`--suite: some of ${SUITE_NAMES.join(', ')}`);
if (values.latency !== undefined) {
  const count = Number(values.latency);
  if (!Number.isInteger(count) || count < 1) throw new Error('--latency: a positive number of messages');
  for (const name of suites) await timeGates(name, split, count);
  process.exit(0);
}
const bySuite = new Map<SuiteName, Case[]>();
for (const name of suites) {
  const cases = await collect(name, split);
  if (cases === undefined) continue;
  bySuite.set(name, cases);
  console.error(`${name} ${split}: ${cases.length} queries, ${cases.filter((c) => c.chunked).length} embed sentences`);
}
const registry = await registryEvidence([...bySuite.values()].flatMap((cases) => cases.map((c) => c.always.query)));
const chunkedTotal = [...bySuite.values()].reduce((sum, cases) => sum + cases.filter((c) => c.chunked).length, 0);

interface Row {
  readonly gate: Gate;
  /** Of the split's messages that embed sentences. */
  readonly skipped: number;
  /** Of the registry's long messages (undefined without the pool). */
  readonly registrySkipped?: number;
  /** Largest |change| in points over every suite and indicator. */
  readonly worst: number;
  /** The same with one standard error added ({@link guardedChange}). */
  readonly guarded: number;
  readonly effects: SuiteEffect[];
}

const rows: Row[] = [];
for (const lexicalMargin of MARGINS) {
  for (const lexicalCoverage of COVERAGES) {
    if (lexicalMargin === 0 && lexicalCoverage > 0) continue;
    const gate: Gate = { lexicalMargin, lexicalCoverage };
    const skip = skipsWith(gate);
    const effects = [...bySuite.values()].map((cases) => effectOf(cases, skip));
    const skipped = [...bySuite.values()].reduce((sum, cases) => sum + cases.filter((c) => c.chunked && skip(c)).length, 0);
    const worst = Math.max(
      ...effects.map((effect) => 100 * Math.max(...effect.gained.map((g, i) => Math.abs(g - effect.lost[i]!) / Math.max(1, effect.labelled)))),
    );
    const registrySkipped = registry?.filter((lexical) => lexicallySettled(lexical, gate)).length;
    rows.push({
      gate,
      skipped,
      worst,
      guarded: Math.max(...effects.map(guardedChange)),
      effects,
      ...(registrySkipped === undefined ? {} : { registrySkipped }),
    });
  }
}

/**
 * The choice: among gates whose every change, one standard error included, stays within the
 * tolerance on every suite, the one that spares the most sentence embeddings; ties go to no
 * coverage condition (one knob fewer), then to the higher margin.
 */
function choose(): Row | undefined {
  const candidates = rows.filter((row) => row.gate.lexicalMargin > 0 && row.guarded <= TOLERANCE + 1e-9);
  candidates.sort((a, b) => b.skipped - a.skipped || a.gate.lexicalCoverage - b.gate.lexicalCoverage || b.gate.lexicalMargin - a.gate.lexicalMargin);
  return candidates[0];
}

const percent = (part: number, whole: number): string => `${part} (${whole === 0 ? 0 : Math.round((100 * part) / whole)}%)`;
const points = (value: number): string => (100 * value).toFixed(1);
const header = [
  'margin',
  'coverage',
  `skipped of ${chunkedTotal}`,
  `registry 24k: of ${registry?.length ?? '–'}`,
  'worst Δ pt',
  '+1 SE',
  ...[...bySuite.keys()].map((name) => `${name} hit@1 / hit@5 · shown (lost/gained)`),
];
console.log(`${split} split; baseline = sentence vectors always embedded (lexicalMargin 0)\n`);
console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
for (const row of rows) {
  const registryCell = row.registrySkipped === undefined ? '–' : percent(row.registrySkipped, registry!.length);
  const suiteCells = row.effects.map((effect) => {
    const [hit1, hit5, shown1, shown5] = effect.rates.map(points);
    const swaps = effect.lost.reduce((sum, lost) => sum + lost, 0) + effect.gained.reduce((sum, gained) => sum + gained, 0);
    return `${hit1} / ${hit5} · ${shown1} / ${shown5}${swaps === 0 ? '' : ` (${effect.lost.join(',')}/${effect.gained.join(',')})`}`;
  });
  console.log(
    `| ${row.gate.lexicalMargin} | ${row.gate.lexicalCoverage} | ${percent(row.skipped, chunkedTotal)} | ${registryCell} | ${row.worst.toFixed(2)} | ${row.guarded.toFixed(2)} | ${suiteCells.join(' | ')} |`,
  );
}
const chosen = choose();
console.log(
  chosen === undefined
    ? `\nno gate keeps every ${split} hit rate within ±${TOLERANCE} points (one standard error included)`
    : `\nchosen: lexicalMargin ${chosen.gate.lexicalMargin}, lexicalCoverage ${chosen.gate.lexicalCoverage}: skips ${percent(chosen.skipped, chunkedTotal)} here, ${chosen.registrySkipped ?? '–'} of ${registry?.length ?? '–'} over the registry; worst change ${chosen.worst.toFixed(2)} points, ${chosen.guarded.toFixed(2)} with one standard error (defaults: ${JSON.stringify(ENGINE_DEFAULTS.queryChunks)})`,
);
