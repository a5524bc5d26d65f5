/**
 * The fit's replay against the engine, request by request (issue #31, docs/retrieval.md, "The fit's replay against the
 * engine"): for each request of a suite, the first place `fit-rerank.ts` replays from the cached ranking cases
 * (`ranking-cases.ts`: `asEngineSees`, then `reorder` with the engine's fusion and the shipped per-kind re-rankers) against the first place the engine itself ranks (`engine.rank`, hybrid, the eval's options). With
 * `--trace`, each disagreeing request's pool on both sides: every candidate's evidence, fused order and re-ranked
 * order, the first value that differs marked.
 *
 *   SKILL_SEARCH_EVAL_DIR=/work/shared/eval npx tsx scripts/replay-agreement.ts --suite library-r19 --split test \
 *     [--sample 500] [--trace] [--json FILE]
 *
 * Deterministic: no randomness (seeded split, remembered query vectors).
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resolveEmbedder } from '../src/embed/resolve.js';
import { ENGINE_DEFAULTS, SkillSearchEngine } from '../src/search/index.js';
import type { RankedEvidence } from '../src/search/relevance.js';
import { BUNDLED_RERANKERS } from '../src/search/rerank.js';
import { catalogOf, evalIndexDir, loadSuite, queryVectorsFile, sample as sampleOf, type Split, type SuiteName } from './eval-suites.js';
import { rememberVectors } from './query-vectors.js';
import { asEngineSees, fusedOrders, metricsOf, rankingCases, reorder, type RankingCase, type Reordering } from './ranking-cases.js';

/** One request's first place on each side; `named` requests (the engine shows the named skill first on both sides) are not compared. */
export interface Agreement {
  readonly id: string;
  readonly query: string;
  readonly named: boolean;
  readonly engine: string | undefined;
  readonly replay: string | undefined;
  /** Relevant ids of the request (empty: a no-skill message). */
  readonly relevant: readonly string[];
  /** Each side's first ten, with their evidence (for `--trace`). */
  readonly engineRanked: readonly RankedEvidence[];
  readonly replayRanked: readonly RankedEvidence[];
  readonly replayCase: RankingCase;
}

/**
 * Both sides' first places for the requests of `suite` × `split` (`requests` of them, every n-th; all by default), each with
 * the bundled re-rankers (`rerank-model.json`); the cases are `fit-rerank.ts`'s (`sample` per split).
 */
export async function replayAgreement(
  suite: SuiteName,
  split: Split,
  { sample = 500, requests, model = 'use-lite' }: { sample?: number; requests?: number; model?: string } = {},
): Promise<Agreement[]> {
  const rerankers = BUNDLED_RERANKERS;
  const loaded = await loadSuite(suite, { splits: [split], sample });
  if (loaded === undefined) throw new Error(`${suite}: no data; set SKILL_SEARCH_EVAL_DIR`);
  const cases = new Map((await rankingCases([suite], [split], sample, model)).map((c) => [c.id, c]));
  const ordering: Reordering = { ...ENGINE_DEFAULTS, rerank: rerankers };
  const base = resolveEmbedder(model);
  const embedder = rememberVectors(base, queryVectorsFile(base));
  const engine = await SkillSearchEngine.open({ embedder, indexDir: evalIndexDir(catalogOf(suite), base), queryCacheSize: 0 });
  await engine.sync(loaded.skills);
  const out: Agreement[] = [];
  try {
    for (const query of requests === undefined ? loaded.queries : sampleOf(loaded.queries, requests)) {
      const c = cases.get(query.id);
      if (c === undefined) throw new Error(`${suite} ${query.id}: no cached ranking case`);
      const { ranked, exact } = await engine.rank(query.query, { mode: 'hybrid', k: 10 });
      const replayed = reorder(asEngineSees(c), ordering).slice(0, 10);
      out.push({
        id: query.id,
        query: query.query,
        named: exact.length > 0 || c.named,
        engine: exact[0] ?? ranked.ranked[0]?.id,
        replay: replayed[0]?.id,
        relevant: query.relevant,
        engineRanked: ranked.ranked,
        replayRanked: replayed,
        replayCase: c,
      });
    }
  } finally {
    embedder.save();
    await engine.close();
  }
  return out;
}

/** The requests whose first place differs. */
export const disagreements = (rows: readonly Agreement[]): Agreement[] => rows.filter((row) => !row.named && row.engine !== row.replay);

/**
 * Hit@1 over the answerable requests as each side reads it: the engine's first place (a named skill first), as the eval
 * counts it; the replay's as `fit-rerank.ts` counts it (`metricsOf`).
 */
export function replayedMetrics(rows: readonly Agreement[]): { engine: number; replay: number } {
  const answerable = rows.filter((row) => row.relevant.length > 0);
  const engine = answerable.filter((row) => row.engine !== undefined && row.relevant.includes(row.engine)).length / Math.max(1, answerable.length);
  const cases = new Map(rows.map((row) => [row.replayCase, row]));
  const relevantIds = (c: RankingCase): Set<string> => new Set(c.candidates.filter((_, i) => c.labels[i]).map((hit) => hit.id));
  const firstRelevant = (c: RankingCase): number => {
    const relevant = relevantIds(c);
    return cases.get(c)!.replayRanked.findIndex((hit) => relevant.has(hit.id));
  };
  const replay = metricsOf([...cases.keys()], firstRelevant).hit1;
  return { engine, replay };
}

const EVIDENCE = ['lexical', 'coverage', 'weightedCoverage', 'rarest', 'centered', 'plain'] as const;

/** One disagreeing request on both sides: its candidates' evidence, each side's order; the first value that differs. */
function trace(row: Agreement): string {
  const lines = [`${row.id}  engine ${row.engine}  replay ${row.replay}  relevant ${row.relevant.join(',') || '(none)'}`, `  "${row.query}"`];
  const cached = new Map(row.replayCase.candidates.map((hit) => [hit.id, hit]));
  const seen = asEngineSees(row.replayCase);
  const fused = fusedOrders(seen, { ...ENGINE_DEFAULTS });
  const fusedOf = new Map(seen.candidates.map((hit, i) => [hit.id, fused[i]!]));
  const ids = [...new Set([...row.engineRanked.slice(0, 6).map((hit) => hit.id), ...row.replayRanked.slice(0, 6).map((hit) => hit.id)])];
  const fmt = (value: number | undefined): string => (value === undefined ? '—' : value.toFixed(4));
  let first: string | undefined;
  for (const id of ids) {
    const live = row.engineRanked.find((hit) => hit.id === id);
    const replay = row.replayRanked.find((hit) => hit.id === id);
    const stored = cached.get(id);
    const cells = EVIDENCE.map((field) => {
      const a = live?.[field];
      const b = stored?.[field];
      const same = a === undefined || b === undefined || Math.abs(a - b) < 1e-6;
      if (!same && first === undefined) first = `${id}.${field}: engine ${fmt(a)} cached ${fmt(b)}`;
      return `${field} ${fmt(a)}${same ? '' : `≠${fmt(b)}`}`;
    });
    lines.push(
      `  ${id.padEnd(34)} engine #${row.engineRanked.indexOf(live!) + 1 || '—'} order ${fmt(live?.order)} | replay #${row.replayRanked.indexOf(replay!) + 1 || '—'} fused ${fmt(fusedOf.get(id))} order ${fmt(replay?.order)} | ${cells.join(' ')}`,
    );
    if (live !== undefined && stored === undefined && first === undefined) first = `${id}: in the engine's list, not among the cached candidates`;
  }
  lines.push(`  first differing value: ${first ?? 'none among the evidence of these candidates'}`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    strict: true,
    options: {
      suite: { type: 'string', default: 'library-r19' },
      split: { type: 'string', default: 'test' },
      sample: { type: 'string', default: '500' },
      trace: { type: 'boolean', default: false },
      json: { type: 'string' },
    },
  });
  const rows = await replayAgreement(values.suite as SuiteName, values.split as Split, { sample: Number(values.sample) });
  const differ = disagreements(rows);
  const m = replayedMetrics(rows);
  console.log(
    `${values.suite} ${values.split}: ${rows.length} requests, ${differ.length} with another first place; hit@1 (any relevant first) engine ${m.engine.toFixed(3)}, replay ${m.replay.toFixed(3)}`,
  );
  for (const row of differ)
    console.log(values.trace ? trace(row) : `${row.id}\tengine ${row.engine}\treplay ${row.replay}\trelevant ${row.relevant.join(',')}`);
  if (values.json !== undefined)
    writeFileSync(
      values.json,
      rows.map(({ id, named, engine, replay, relevant }) => JSON.stringify({ id, named, engine, replay, relevant })).join('\n') + '\n',
    );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
