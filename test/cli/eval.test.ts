import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { QUERIES, SKILLS, removeDir, runCli, tempDir } from './helpers.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { EVAL_REPORT_KEYS } from '../support/eval-report.js';

const cache = tempDir();
afterAll(() => removeDir(cache));

describe('eval', () => {
  it('--json prints exactly the SPEC §7 object', async () => {
    const result = await runCli(['eval', '--queries', QUERIES, '--skills-dir', SKILLS, '--model', 'hash', '--json'], cache);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(report)).toEqual([...EVAL_REPORT_KEYS]);
    expect(Object.keys(report.abstain as object)).toEqual(['queries', 'correct']);
    // Every fixture query is English; the one "no skill" query is not a labelled query.
    const byLanguage = report.byLanguage as Record<string, Record<string, number>>;
    expect(Object.keys(byLanguage)).toEqual(['en']);
    expect(Object.keys(byLanguage.en!)).toEqual(['queries', 'hitAt1', 'hitAt5', 'mrr']);
    expect(byLanguage.en!.queries).toBe((report.queries as number) - 1);
    expect(Object.keys(report.shown as object)).toEqual(['hitAt1', 'hitAt5', 'blank', 'answerable']);
    expect(Object.keys(report.latencyMs as object)).toEqual(['p50', 'p95', 'p99']);
    expect(report).toMatchObject({ k: 10, mode: 'hybrid', abstain: { queries: 1 } });
  });

  it('says on stderr when a relevant label names no skill loaded (it can only count as a miss)', async () => {
    const dir = tempDir();
    try {
      const queries = path.join(dir, 'typo.jsonl');
      writeFileSync(
        queries,
        '{"id":"q1","query":"fill in a pdf form","relevant":["pdf-forms"]}\n{"id":"q2","query":"resize images","relevant":["image-resise"]}\n',
      );
      const result = await runCli(['eval', '--queries', queries, '--skills-dir', SKILLS, '--model', 'hash', '--json'], cache);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(`skill-search: ${queries}: 1 relevant label matching no skill loaded (counted as misses), the first: q2: "image-resise"\n`);
      const clean = await runCli(['eval', '--queries', QUERIES, '--skills-dir', SKILLS, '--model', 'hash', '--json'], cache);
      expect(clean.stderr).toBe('');
    } finally {
      removeDir(dir);
    }
  });

  it('passes --k and --mode through', async () => {
    const result = await runCli(['eval', '--queries', QUERIES, '--skills-dir', SKILLS, '--model', 'hash', '--k', '3', '--mode', 'lexical', '--json'], cache);
    expect(JSON.parse(result.stdout)).toMatchObject({ k: 3, mode: 'lexical' });
  });

  it('prints the ranking and the shown view side by side', async () => {
    const result = await runCli(['eval', '--queries', QUERIES, '--skills-dir', SKILLS, '--model', 'hash', '--abstain', 'strict'], cache);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\d+ queries, mode hybrid, k 10, abstention strict$/);
    expect(lines.slice(2, -1).map((row) => row.split(/\s{2,}/)[0])).toEqual([
      'hit@1',
      'hit@5',
      'hit@10',
      'recall@5',
      'recall@10',
      'MRR',
      'nDCG@10',
      'blank',
      'abstain',
    ]);
    expect(lines.at(-1)).toMatch(/^latency p50 [\d.]+ ms, p95 [\d.]+ ms, p99 [\d.]+ ms$/);
    expect(lines[1]).toMatch(/ranked \(abstention off\) +shown \(abstention on\)$/);
    expect(result.stdout).toMatch(/^abstain +\d\/1 correct$/m);
    expect(result.stdout).toMatch(/^blank +\d+\.\d% of \d+ answerable$/m);
  });

  it('--per-query writes one JSONL line per query with what was ranked and shown', async () => {
    const dir = tempDir();
    try {
      const file = path.join(dir, 'per-query.jsonl');
      const result = await runCli(['eval', '--queries', QUERIES, '--skills-dir', SKILLS, '--model', 'hash', '--per-query', file, '--json'], cache);
      expect(result.code).toBe(0);
      const records = readFileSync(file, 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records).toHaveLength((JSON.parse(result.stdout) as { queries: number }).queries);
      expect(Object.keys(records[0]!).slice(0, 5)).toEqual(['id', 'query', 'relevant', 'ranked', 'shown']);
      // The fixture's "relevant": [] message is abstained on, and says why.
      expect(records.filter((record) => 'abstained' in record)).toHaveLength(1);
      for (const record of records)
        if ((record.shown as unknown[]).length === 0)
          expect(record.abstained).toMatch(/^P\(answerable\) [\d.]+ × P\(fits\) [\d.]+ for ".+" = [\d.]+ < threshold [\d.]+$|^no skill matched at all$/);
    } finally {
      removeDir(dir);
    }
  });

  it('rejects a bad --abstain naming the flag', async () => {
    const result = await runCli(['eval', '--queries', QUERIES, '--skills-dir', SKILLS, '--model', 'hash', '--abstain', 'sometimes'], cache);
    expect(result).toMatchObject({ code: 1, stderr: "skill-search: --abstain expects strict, balanced, off or a number from 0 to 1, got 'sometimes'\n" });
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

  describe('--config', () => {
    const write = (dir: string, content: unknown): string => {
      const file = path.join(dir, 'knobs.json');
      writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
      return file;
    };
    const lexicalRun = (extra: string[]) =>
      runCli(['eval', '--queries', QUERIES, '--skills-dir', SKILLS, '--model', 'hash', '--mode', 'lexical', '--json', ...extra], cache);

    it('overrides engine knobs for the run and echoes them', async () => {
      const dir = tempDir();
      try {
        // Names alone: only the two requests that share a word with their skill's name (pdf, test) still find it.
        const knobs = { fieldBoosts: { whenToUse: 0, keywords: 0, description: 0, body: 0, glosses: 0 }, k: 4 };
        const [plain, overridden] = [await lexicalRun([]), await lexicalRun(['--config', write(dir, knobs)])];
        expect(overridden.code).toBe(0);
        const before = JSON.parse(plain.stdout) as { hitAt5: number; overrides?: unknown };
        const after = JSON.parse(overridden.stdout) as { hitAt5: number; k: number; overrides?: unknown };
        expect(before.hitAt5).toBe(1);
        expect(after.hitAt5).toBe(0.5);
        expect(after.k).toBe(4);
        expect(after.overrides).toEqual(knobs);
        expect(before.overrides).toBeUndefined();
        const text = await runCli(
          ['eval', '--queries', QUERIES, '--skills-dir', SKILLS, '--model', 'hash', '--mode', 'lexical', '--k', '3', '--config', path.join(dir, 'knobs.json')],
          cache,
        );
        expect(text.stdout.split('\n').slice(0, 2)).toEqual([
          '5 queries, mode lexical, k 3, abstention balanced',
          `overrides from ${path.join(dir, 'knobs.json')}: fieldBoosts.whenToUse=0, fieldBoosts.keywords=0, fieldBoosts.description=0, fieldBoosts.body=0, fieldBoosts.glosses=0`,
        ]);
      } finally {
        removeDir(dir);
      }
    });

    it('saves the catalog a graph knob asks for under a key of its own, leaving the default one alone', async () => {
      const dir = tempDir();
      const own = tempDir();
      try {
        const run = (extra: string[]) => runCli(['eval', '--queries', QUERIES, '--skills-dir', SKILLS, '--model', 'hash', '--json', ...extra], own);
        const catalogs = (): string[] => {
          const store = SqliteStore.open(path.join(own, 'store.sqlite'));
          try {
            return store.database.prepare('SELECT model FROM catalogs ORDER BY id').pluck().all() as string[];
          } finally {
            store.close();
          }
        };
        const plain = JSON.parse((await run([])).stdout) as Record<string, unknown>;
        expect(catalogs()).toEqual(['hash-256#t2|hnsw:m16:ef200']);
        const exact = JSON.parse((await run(['--config', write(dir, { ann: 'exact', hnsw: { m: 8 } })])).stdout) as Record<string, unknown>;
        expect(catalogs()).toEqual(['hash-256#t2|hnsw:m16:ef200', 'hash-256#t2|exact']);
        // Six skills: the exact scan and the graph rank alike.
        const { overrides, latencyMs: _a, ...rest } = exact;
        const { latencyMs: _b, ...plainRest } = plain;
        expect(rest).toEqual(plainRest);
        expect(overrides).toEqual({ ann: 'exact', hnsw: { m: 8 } });
      } finally {
        removeDir(dir);
        removeDir(own);
      }
    });

    it.each([
      [
        { fieldBoost: { body: 0 } },
        '"fieldBoost": unknown key (known: ann, hnsw, k, mode, abstain, shownCut, everydayGate, denseShare, longQuery, coverageShare, lexicalEvidence, boundaries, evidenceRerank, fieldBoosts, fuzzy, prefixMinLength, keepLexical, keepLexicalWithin, queryChunks, candidates, batchSize, queryCacheSize, centring, crossLingual)',
      ],
      [{ hnsw: { ef: 64 } }, '"hnsw.ef": unknown key'],
      [{ denseShare: '0.5' }, '"denseShare": Invalid input: expected number, received string'],
      [{ fieldBoosts: { body: -1 } }, 'Expected `fieldBoosts.body` to be a number from 0 to 100, got `-1`'],
      [{ mode: 'semantic' }, 'Expected `mode` to be one of hybrid, dense, lexical, got `"semantic"`'],
      ['{"k": 3,', /^not valid JSON \(.+\)$/],
    ])('refuses %j in one line naming the file and the key', async (content, message) => {
      const dir = tempDir();
      try {
        const file = write(dir, content);
        const result = await lexicalRun(['--config', file]);
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        const prefix = `skill-search: ${file}: `;
        expect(result.stderr.startsWith(prefix) && result.stderr.endsWith('\n') && result.stderr.split('\n').length === 2).toBe(true);
        const rest = result.stderr.slice(prefix.length, -1);
        if (typeof message === 'string') expect(rest).toBe(message);
        else expect(rest).toMatch(message);
      } finally {
        removeDir(dir);
      }
    });

    it('names the flag when the file does not exist', async () => {
      const result = await lexicalRun(['--config', 'no-such-knobs.json']);
      expect(result).toMatchObject({ code: 1, stderr: "skill-search: --config 'no-such-knobs.json': no such file\n" });
    });
  });
});
