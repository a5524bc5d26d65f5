import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { percentile, scoreRankings, type RankedItem } from '../../src/eval/metrics.js';
import { readEvalQueries } from '../../src/eval/queries.js';
import { runEval } from '../../src/eval/run.js';
import type { SearchHit, SearchRequest, SkillSearcher } from '../../src/types.js';
import { makeSkill } from '../search/fixtures.js';
import { EVAL_REPORT_KEYS } from '../support/eval-report.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function file(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'skill-search-eval-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'queries.jsonl'), text);
  return join(dir, 'queries.jsonl');
}

/** A searcher with canned answers, recording the requests it got. */
function canned(answers: Record<string, string[]>): SkillSearcher & { requests: SearchRequest[] } {
  const requests: SearchRequest[] = [];
  return {
    requests,
    async search(query, request = {}) {
      requests.push(request);
      const names = answers[query] ?? [];
      return names
        .slice(0, request.k ?? 5)
        .map((name, i): SearchHit => ({ skill: makeSkill({ name, description: name, id: `id-${name}` }), score: 1 - i / 10, via: ['dense'] }));
    },
  };
}

describe('readEvalQueries', () => {
  it('reads JSONL, skipping blank lines', async () => {
    const path = file('{"id":"q1","query":"merge pdfs","relevant":["pdf"]}\n\n{"id":2,"query":"thanks","relevant":[]}\n');
    expect(await readEvalQueries(path)).toEqual([
      { id: 'q1', query: 'merge pdfs', relevant: ['pdf'] },
      { id: '2', query: 'thanks', relevant: [] },
    ]);
  });

  it('names the file and line of a bad entry', async () => {
    const path = file('{"id":"q1","query":"ok","relevant":[]}\n{"id":"q2","query":"x","relevant":"pdf"}\n');
    await expect(readEvalQueries(path)).rejects.toThrow(`skill-search: ${path}:2: "relevant" must be an array of skill names or ids`);
    await expect(readEvalQueries(file('{"query": '))).rejects.toThrow(/queries\.jsonl:1: not valid JSON/);
    await expect(readEvalQueries(file('[1]'))).rejects.toMatchObject({ code: 'BAD_FILE' });
  });

  it('reports a missing file as BAD_FILE', async () => {
    await expect(readEvalQueries('/nonexistent/q.jsonl')).rejects.toThrow('skill-search: /nonexistent/q.jsonl: cannot read (ENOENT)');
  });
});

describe('runEval', () => {
  it('scores hit@k, recall, MRR and nDCG over labelled queries and abstention over relevant: []', async () => {
    const searcher = canned({
      first: ['pdf', 'docx'],
      third: ['a', 'b', 'xlsx', 'c'],
      missed: ['a', 'b'],
      two: ['pdf', 'x', 'docx'],
      chitchat: [],
      noisy: ['a'],
    });
    const report = await runEval(
      searcher,
      [
        { id: '1', query: 'first', relevant: ['pdf'] },
        { id: '2', query: 'third', relevant: ['id-xlsx'] },
        { id: '3', query: 'missed', relevant: ['pdf'] },
        { id: '4', query: 'two', relevant: ['pdf', 'docx'] },
        { id: '5', query: 'chitchat', relevant: [] },
        { id: '6', query: 'noisy', relevant: [] },
      ],
      { k: 5, mode: 'dense' },
    );
    expect(Object.keys(report)).toEqual([...EVAL_REPORT_KEYS]);
    // All six queries are English; the two negatives add nothing to a language's ranking scores.
    expect(report.byLanguage).toEqual({ en: { queries: 4, hitAt1: 0.5, hitAt5: 0.75, mrr: report.mrr } });
    expect(report).toMatchObject({
      queries: 6,
      k: 5,
      mode: 'dense',
      hitAt1: 0.5,
      hitAt5: 0.75,
      hitAt10: 0.75,
      recallAt5: 0.75,
      mrr: Number(((1 + 1 / 3 + 0 + 1) / 4).toFixed(4)),
      abstain: { queries: 2, correct: 1 },
    });
    // nDCG: q1 1, q2 1/log2(4)=0.5, q3 0, q4 (1 + 1/log2(4)) / (1 + 1/log2(3)).
    const q4 = (1 + 0.5) / (1 + 1 / Math.log2(3));
    expect(report.ndcgAt10).toBeCloseTo((1 + 0.5 + 0 + q4) / 4, 4);
    expect(Object.keys(report.latencyMs)).toEqual(['p50', 'p95', 'p99']);
  });

  it('searches every query as a user would (abstention on) and again with abstention off', async () => {
    const searcher = canned({});
    await runEval(
      searcher,
      [
        { id: '1', query: 'a', relevant: ['pdf'] },
        { id: '2', query: 'b', relevant: [] },
      ],
      { k: 3, abstain: 'strict' },
    );
    expect(searcher.requests).toEqual([
      { k: 10, mode: 'hybrid', abstain: 'strict' },
      { k: 10, mode: 'hybrid', abstain: false },
      { k: 10, mode: 'hybrid', abstain: 'strict' },
      { k: 10, mode: 'hybrid', abstain: false },
    ]);
  });

  it('scores the shown view on answerable queries and writes one record per query', async () => {
    // Ranked (abstention off) vs shown (abstention on): `blank` shows nothing though pdf ranks first.
    const ranked: Record<string, string[]> = { hit: ['pdf', 'x'], blank: ['pdf'], late: ['x', 'pdf'], none: ['x'] };
    const shown: Record<string, string[]> = { hit: ['pdf'], blank: [], late: ['x', 'pdf'], none: [] };
    const searcher: SkillSearcher = {
      async search(query, request = {}) {
        const names = (request.abstain === false ? ranked : shown)[query] ?? [];
        return names.map((name, i): SearchHit => ({ skill: makeSkill({ name, description: name, id: `id-${name}` }), score: 0.9 - i / 10, via: ['dense'] }));
      },
    };
    const records: unknown[] = [];
    const report = await runEval(
      searcher,
      [
        { id: '1', query: 'hit', relevant: ['pdf'] },
        { id: '2', query: 'blank', relevant: ['pdf'] },
        { id: '3', query: 'late', relevant: ['pdf'] },
        { id: '4', query: 'none', relevant: [] },
      ],
      { threshold: 0.95, onRecord: (record) => records.push(record) },
    );
    expect(report.hitAt1).toBe(0.6667);
    expect(report.shown).toEqual({ hitAt1: 0.3333, hitAt5: 0.6667, blank: 0.3333, answerable: 3 });
    expect(report.abstain).toEqual({ queries: 1, correct: 1 });
    expect(records[1]).toEqual({
      id: '2',
      query: 'blank',
      relevant: ['pdf'],
      ranked: [{ name: 'pdf', id: 'id-pdf', score: 0.9 }],
      shown: [],
      abstained: 'best score 0.900 < threshold 0.950',
    });
    expect(records[0]).not.toHaveProperty('abstained');
  });

  it('stops with an AbortError', async () => {
    await expect(runEval(canned({}), [{ id: '1', query: 'a', relevant: [] }], { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
  });
});

const items = (...names: string[]): RankedItem[] => names.map((name) => ({ id: `id-${name}`, name }));

describe('scoreRankings', () => {
  it('computes the SPEC §7 metrics as unrounded means over labelled queries', () => {
    const scores = scoreRankings([
      // First relevant at rank 2 (by id), the second relevant entry at rank 4.
      { relevant: ['id-b', 'd'], ranked: items('a', 'b', 'c', 'd') },
      // A shadowed duplicate of the relevant name counts once.
      { relevant: ['x'], ranked: items('x', 'x', 'y') },
      { relevant: ['gone'], ranked: items('a', 'b') },
      { relevant: [], ranked: [], suggested: 0 },
      { relevant: [], ranked: items('a') },
    ]);
    const ndcgFirst = (1 / Math.log2(3) + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3));
    expect(scores).toEqual({
      labelled: 3,
      hitAt1: 1 / 3,
      hitAt5: 2 / 3,
      hitAt10: 2 / 3,
      recallAt5: 2 / 3,
      recallAt10: 2 / 3,
      mrr: (1 / 2 + 1) / 3,
      ndcgAt10: (ndcgFirst + 1) / 3,
      abstain: { queries: 2, correct: 1 },
    });
  });

  it('is all zeros with no labelled query', () => {
    expect(scoreRankings([{ relevant: [], ranked: items('a'), suggested: 0 }])).toMatchObject({
      labelled: 0,
      hitAt1: 0,
      mrr: 0,
      abstain: { queries: 1, correct: 1 },
    });
  });
});

describe('percentile', () => {
  it('takes the nearest rank of a sorted list', () => {
    expect([50, 95, 99, 100].map((p) => percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], p))).toEqual([5, 10, 10, 10]);
    expect(percentile([], 50)).toBe(0);
  });
});
