/**
 * The fit's replay (`scripts/ranking-cases.ts`, what `fit-rerank.ts` scores models by) against the engine on a small
 * development sample: the same first place and first five per request, the same hit@1, the same evidence for every candidate the engine
 * ranks. Fails when the cached ranking cases are stale (delete $TMPDIR/skill-search-eval/ranking-cache) or when the replay's
 * arithmetic drifts from `candidates.ts`. Runs only with SKILL_SEARCH_EVAL_DIR set (docs/retrieval.md, "The fit's replay
 * against the engine").
 */
import { describe, expect, it } from 'vitest';
import { disagreements, replayAgreement, replayedMetrics, type Agreement } from '../../scripts/replay-agreement.js';

const EVIDENCE = ['lexical', 'coverage', 'weightedCoverage', 'rarest', 'centered', 'plain'] as const;

/** Evidence values of the engine's ranked candidates that differ from the cached case's (or are missing from it). */
function evidenceDrift(row: Agreement): string[] {
  const cached = new Map(row.replayCase.candidates.map((hit) => [hit.id, hit]));
  return row.engineRanked.flatMap((hit) => {
    const stored = cached.get(hit.id);
    if (stored === undefined) return [`${row.id} ${hit.id}: not cached`];
    return EVIDENCE.filter((field) => Math.abs((hit[field] ?? 0) - (stored[field] ?? 0)) > 1e-6).map((field) => `${row.id} ${hit.id}.${field}`);
  });
}

describe.skipIf(process.env.SKILL_SEARCH_EVAL_DIR === undefined)('the fit replay agrees with the engine (needs SKILL_SEARCH_EVAL_DIR)', () => {
  it('on 100 r19 requests (one names a skill that is not its answer): first places, hit@1, top five, evidence', { timeout: 300_000 }, async () => {
    const rows = await replayAgreement('library-r19', 'test', { requests: 100 });
    expect(rows.length).toBe(100);
    expect(disagreements(rows).map((row) => `${row.id}: engine ${row.engine}, replay ${row.replay}`)).toEqual([]);
    const { engine, replay } = replayedMetrics(rows);
    expect(replay).toBeCloseTo(engine, 10);
    const top5 = (ranked: Agreement['engineRanked']): string[] => ranked.slice(0, 5).map((hit) => hit.id);
    expect(rows.filter((row) => top5(row.engineRanked).join() !== top5(row.replayRanked).join()).map((row) => row.id)).toEqual([]);
    expect(rows.flatMap(evidenceDrift)).toEqual([]);
  });
});
