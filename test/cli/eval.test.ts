import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { QUERIES, SKILLS, removeDir, runCli, tempDir } from './helpers.js';

const cache = tempDir();
afterAll(() => removeDir(cache));

describe('eval', () => {
  it('--json prints exactly the SPEC §7 object', async () => {
    const result = await runCli(['eval', '--queries', QUERIES, '--skills-dir', SKILLS, '--model', 'hash', '--json'], cache);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(report)).toEqual([
      'queries',
      'k',
      'mode',
      'hitAt1',
      'hitAt5',
      'hitAt10',
      'recallAt5',
      'recallAt10',
      'mrr',
      'ndcgAt10',
      'abstain',
      'latencyMs',
      'byLanguage',
    ]);
    expect(Object.keys(report.abstain as object)).toEqual(['queries', 'correct']);
    // Every fixture query is English; the one "no skill" query is not a labelled query.
    const byLanguage = report.byLanguage as Record<string, Record<string, number>>;
    expect(Object.keys(byLanguage)).toEqual(['en']);
    expect(Object.keys(byLanguage.en!)).toEqual(['queries', 'hitAt1', 'hitAt5', 'mrr']);
    expect(byLanguage.en!.queries).toBe((report.queries as number) - 1);
    expect(Object.keys(report.latencyMs as object)).toEqual(['p50', 'p95', 'p99']);
    expect(report).toMatchObject({ k: 10, mode: 'hybrid', abstain: { queries: 1 } });
  });

  it('passes --k and --mode through', async () => {
    const result = await runCli(
      ['eval', '--queries', QUERIES, '--skills-dir', SKILLS, '--model', 'hash', '--k', '3', '--mode', 'lexical', '--json'],
      cache,
    );
    expect(JSON.parse(result.stdout)).toMatchObject({ k: 3, mode: 'lexical' });
  });

  it('prints a readable table by default', async () => {
    const result = await runCli(['eval', '--queries', QUERIES, '--skills-dir', SKILLS, '--model', 'hash'], cache);
    expect(result.code).toBe(0);
    const labels = result.stdout.trimEnd().split('\n').map((row) => row.split(/\s{2,}/)[0]);
    expect(labels).toEqual(['queries', 'k', 'mode', 'hit@1', 'hit@5', 'hit@10', 'recall@5', 'recall@10', 'MRR', 'nDCG@10', 'abstain', 'latency']);
    expect(result.stdout).toMatch(/^abstain +\d\/1 correct$/m);
  });

  it('exits 1 naming the file and line of a bad query', async () => {
    const dir = tempDir();
    try {
      const file = path.join(dir, 'q.jsonl');
      writeFileSync(file, '{"id":"a","query":"x","relevant":[]}\n{"id":"b","relevant":["pdf-forms"]}\n');
      const result = await runCli(['eval', '--queries', file, '--skills-dir', SKILLS, '--model', 'hash'], cache);
      expect(result).toEqual({ code: 1, stdout: '', stderr: `skill-search: ${file}:2: "query" must be a non-empty string\n` });
    } finally {
      removeDir(dir);
    }
  });
});
