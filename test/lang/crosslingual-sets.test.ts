import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEvalQueries } from '../../src/eval/queries.js';
import { detectLanguage } from '../../src/lang/detect.js';

const DIR = join(import.meta.dirname, '..', '..', 'eval', 'crosslingual');

/** The round-2 and round-4 request sets (eval/crosslingual/README.md): what the report's figures stand on. */
describe.each([
  { file: 'zh-over-en-r2.jsonl', language: 'zh', prefix: 'zh2', labelled: 60 },
  { file: 'ja-over-en-r2.jsonl', language: 'ja', prefix: 'ja2', labelled: 20 },
  { file: 'ja-over-en-r4.jsonl', language: 'ja', prefix: 'ja4', labelled: 60 },
] as const)('$file', ({ file, language, prefix, labelled }) => {
  it('parses, numbers every request for the split rule, and is written in its language', async () => {
    const queries = await readEvalQueries(join(DIR, file));
    const ids = queries.map((query) => query.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const query of queries) {
      expect(query.id).toMatch(new RegExp(`^${prefix}-\\d{3}$`));
      expect(detectLanguage(query.query), query.query).toBe(language);
    }
    const answerable = queries.filter((query) => query.relevant.length > 0);
    expect(answerable.length).toBeGreaterThanOrEqual(labelled);
    expect(queries.length - answerable.length).toBeGreaterThan(0);
    // Both halves of the even/odd split hold requests of both kinds.
    const even = (id: string): boolean => Number(id.slice(-3)) % 2 === 0;
    for (const half of [true, false]) {
      expect(answerable.filter((query) => even(query.id) === half).length).toBeGreaterThanOrEqual(labelled / 2 - 1);
    }
  });
});
