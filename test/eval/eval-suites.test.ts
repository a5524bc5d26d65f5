import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEvalQueries } from '../../src/eval/queries.js';
import { catalogOf, EVAL_DIR, librarySkills, LIBRARY_QUERIES, LIBRARY_REQUESTS, loadSuite, splitOf } from '../../scripts/eval-suites.js';

const share = (ids: readonly string[], suite: 'library' | 'library-r2', split: string): number =>
  ids.filter((id) => splitOf(suite, id) === split).length / ids.length;

/** A fresh request set's shape: unique ids of `prefix`-NNN, at most two requests per skill, its share of no-skill messages. */
async function checkWellFormed(file: string, prefix: string): Promise<number> {
  const queries = await readEvalQueries(file);
  const ids = queries.map((query) => query.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.every((id) => new RegExp(`^${prefix}-\\d{3}$`).test(id))).toBe(true);
  const perSkill = new Map<string, number>();
  for (const name of queries.flatMap((query) => query.relevant)) perSkill.set(name, (perSkill.get(name) ?? 0) + 1);
  expect(Math.max(...perSkill.values())).toBeLessThanOrEqual(2);
  return queries.filter((query) => query.relevant.length === 0).length / queries.length;
}

describe('the fresh library requests (library-r2)', () => {
  it('are well-formed: unique lib2-NNN ids, at most two requests per skill, some with no skill', async () => {
    const empty = await checkWellFormed(LIBRARY_REQUESTS['library-r2'], 'lib2');
    expect(empty).toBeGreaterThan(0.1);
    expect(empty).toBeLessThan(0.2);
  });

  it('split about half into test, by the seeded hash, leaving the first set’s split as it was', async () => {
    const r2 = (await readEvalQueries(LIBRARY_REQUESTS['library-r2'])).map((query) => query.id);
    expect(share(r2, 'library-r2', 'test')).toBeGreaterThan(0.4);
    expect(share(r2, 'library-r2', 'test')).toBeLessThan(0.6);
    expect(share(r2, 'library-r2', 'dev')).toBeGreaterThan(0.15);
    const first = (await readEvalQueries(LIBRARY_QUERIES)).map((query) => query.id);
    expect(share(first, 'library', 'test')).toBeLessThan(0.3);
    expect(catalogOf('library-r2')).toBe('library');
  });

  it.skipIf(!existsSync(join(EVAL_DIR, 'library')))(
    'load over the library’s skills, each label a skill of it, and keep only the splits asked for',
    async () => {
      const names = new Set(librarySkills().map((skill) => skill.name));
      const suite = await loadSuite('library-r2', { splits: ['test'] });
      expect(suite?.skills.length).toBe(names.size);
      expect(suite!.queries.length).toBeGreaterThan(100);
      expect(suite!.queries.every((query) => splitOf('library-r2', query.id) === 'test')).toBe(true);
      expect(suite!.queries.flatMap((query) => query.relevant).every((name) => names.has(name))).toBe(true);
    },
  );
});

describe('the third library set (library-r3), held out whole', () => {
  it('is well-formed: unique lib3-NNN ids, at most two requests per skill, about a third everyday messages', async () => {
    const empty = await checkWellFormed(LIBRARY_REQUESTS['library-r3'], 'lib3');
    expect(empty).toBeGreaterThan(0.25);
    expect(empty).toBeLessThan(0.4);
  });

  it('has no train or dev request: every id is test, and it searches the library', async () => {
    const ids = (await readEvalQueries(LIBRARY_REQUESTS['library-r3'])).map((query) => query.id);
    expect(ids.every((id) => splitOf('library-r3', id) === 'test')).toBe(true);
    expect(catalogOf('library-r3')).toBe('library');
  });

  it.skipIf(!existsSync(join(EVAL_DIR, 'library')))('loads nothing for train or dev, and every label is a library skill', async () => {
    const names = new Set(librarySkills().map((skill) => skill.name));
    expect((await loadSuite('library-r3', { splits: ['train', 'dev'] }))?.queries).toEqual([]);
    const suite = await loadSuite('library-r3', { splits: ['test'] });
    expect(suite!.queries.length).toBe(328);
    expect(suite!.queries.flatMap((query) => query.relevant).every((name) => names.has(name))).toBe(true);
  });
});

describe('the fourth library set (library-r4), pre-registered and held out whole', () => {
  it('is well-formed: unique lib4-NNN ids, at most two requests per skill, about a quarter everyday messages', async () => {
    const empty = await checkWellFormed(LIBRARY_REQUESTS['library-r4'], 'lib4');
    expect(empty).toBeGreaterThan(0.2);
    expect(empty).toBeLessThan(0.3);
  });

  it('has no train or dev request: every id is test, and it searches the library', async () => {
    const ids = (await readEvalQueries(LIBRARY_REQUESTS['library-r4'])).map((query) => query.id);
    expect(ids.every((id) => splitOf('library-r4', id) === 'test')).toBe(true);
    expect(catalogOf('library-r4')).toBe('library');
  });

  it.skipIf(!existsSync(join(EVAL_DIR, 'library')))('loads nothing for train or dev, and every label is a library skill', async () => {
    const names = new Set(librarySkills().map((skill) => skill.name));
    expect((await loadSuite('library-r4', { splits: ['train', 'dev'] }))?.queries).toEqual([]);
    const suite = await loadSuite('library-r4', { splits: ['test'] });
    expect(suite!.queries.length).toBe(331);
    expect(suite!.queries.flatMap((query) => query.relevant).filter((name) => !names.has(name))).toEqual([]);
  });
});

describe('the fifth library set (library-r5), pre-registered and held out whole', () => {
  it('is well-formed: unique lib5-NNN ids, at most one request per skill, a bit under half everyday messages', async () => {
    const empty = await checkWellFormed(LIBRARY_REQUESTS['library-r5'], 'lib5');
    expect(empty).toBeGreaterThan(0.4);
    expect(empty).toBeLessThan(0.5);
    const labels = (await readEvalQueries(LIBRARY_REQUESTS['library-r5'])).flatMap((query) => query.relevant);
    expect(new Set(labels).size).toBe(labels.length);
  });

  it('has no train or dev request: every id is test, and it searches the library', async () => {
    const ids = (await readEvalQueries(LIBRARY_REQUESTS['library-r5'])).map((query) => query.id);
    expect(ids.every((id) => splitOf('library-r5', id) === 'test')).toBe(true);
    expect(catalogOf('library-r5')).toBe('library');
  });

  it.skipIf(!existsSync(join(EVAL_DIR, 'library')))('loads nothing for train or dev, and every label is a library skill', async () => {
    const names = new Set(librarySkills().map((skill) => skill.name));
    expect((await loadSuite('library-r5', { splits: ['train', 'dev'] }))?.queries).toEqual([]);
    const suite = await loadSuite('library-r5', { splits: ['test'] });
    expect(suite!.queries.length).toBe(226);
    expect(suite!.queries.flatMap((query) => query.relevant).filter((name) => !names.has(name))).toEqual([]);
  });
});

describe('the sixth library set (library-r6), pre-registered and held out whole', () => {
  it('is well-formed: unique lib6-NNN ids, at most two requests per skill, at least 220 answerable requests and 80 everyday messages', async () => {
    const empty = await checkWellFormed(LIBRARY_REQUESTS['library-r6'], 'lib6');
    const queries = await readEvalQueries(LIBRARY_REQUESTS['library-r6']);
    expect(Math.round(empty * queries.length)).toBe(80);
    expect(queries.filter((query) => query.relevant.length > 0).length).toBeGreaterThanOrEqual(220);
    expect(new Set(queries.flatMap((query) => query.relevant)).size).toBeGreaterThanOrEqual(150);
  });

  it('has no train or dev request: every id is test, and it searches the library', async () => {
    const ids = (await readEvalQueries(LIBRARY_REQUESTS['library-r6'])).map((query) => query.id);
    expect(ids.every((id) => splitOf('library-r6', id) === 'test')).toBe(true);
    expect(catalogOf('library-r6')).toBe('library');
  });

  it.skipIf(!existsSync(join(EVAL_DIR, 'library')))('loads nothing for train or dev, and every label is a library skill', async () => {
    const names = new Set(librarySkills().map((skill) => skill.name));
    expect((await loadSuite('library-r6', { splits: ['train', 'dev'] }))?.queries).toEqual([]);
    const suite = await loadSuite('library-r6', { splits: ['test'] });
    expect(suite!.queries.length).toBe(511);
    expect(suite!.queries.flatMap((query) => query.relevant).filter((name) => !names.has(name))).toEqual([]);
  });
});

describe('the seventh library set (library-r7), pre-registered and held out whole', () => {
  it('is well-formed: unique lib7-NNN ids, at most two requests per skill, at least 250 answerable requests over 200 skills and 60 everyday messages', async () => {
    const empty = await checkWellFormed(LIBRARY_REQUESTS['library-r7'], 'lib7');
    const queries = await readEvalQueries(LIBRARY_REQUESTS['library-r7']);
    expect(Math.round(empty * queries.length)).toBe(60);
    expect(queries.filter((query) => query.relevant.length > 0).length).toBeGreaterThanOrEqual(250);
    expect(new Set(queries.flatMap((query) => query.relevant)).size).toBeGreaterThanOrEqual(200);
  });

  it('has no train or dev request: every id is test, and it searches the library', async () => {
    const ids = (await readEvalQueries(LIBRARY_REQUESTS['library-r7'])).map((query) => query.id);
    expect(ids.every((id) => splitOf('library-r7', id) === 'test')).toBe(true);
    expect(catalogOf('library-r7')).toBe('library');
  });

  it.skipIf(!existsSync(join(EVAL_DIR, 'library')))('loads nothing for train or dev, and every label is a library skill', async () => {
    const names = new Set(librarySkills().map((skill) => skill.name));
    expect((await loadSuite('library-r7', { splits: ['train', 'dev'] }))?.queries).toEqual([]);
    const suite = await loadSuite('library-r7', { splits: ['test'] });
    expect(suite!.queries.length).toBe(496);
    expect(suite!.queries.flatMap((query) => query.relevant).filter((name) => !names.has(name))).toEqual([]);
  });
});

describe('the eighth library set (library-r8), pre-registered and held out whole', () => {
  it('is well-formed: unique lib8-NNN ids, at most two requests per skill, every library skill labelled and 60 everyday messages', async () => {
    const empty = await checkWellFormed(LIBRARY_REQUESTS['library-r8'], 'lib8');
    const queries = await readEvalQueries(LIBRARY_REQUESTS['library-r8']);
    expect(Math.round(empty * queries.length)).toBe(60);
    expect(queries.filter((query) => query.relevant.length > 0).length).toBeGreaterThanOrEqual(430);
    expect(new Set(queries.flatMap((query) => query.relevant)).size).toBeGreaterThanOrEqual(430);
  });

  it('has no train or dev request: every id is test, and it searches the library', async () => {
    const ids = (await readEvalQueries(LIBRARY_REQUESTS['library-r8'])).map((query) => query.id);
    expect(ids.every((id) => splitOf('library-r8', id) === 'test')).toBe(true);
    expect(catalogOf('library-r8')).toBe('library');
  });

  it.skipIf(!existsSync(join(EVAL_DIR, 'library')))('loads nothing for train or dev, and every label is a library skill', async () => {
    const names = new Set(librarySkills().map((skill) => skill.name));
    expect((await loadSuite('library-r8', { splits: ['train', 'dev'] }))?.queries).toEqual([]);
    const suite = await loadSuite('library-r8', { splits: ['test'] });
    expect(suite!.queries.length).toBe(498);
    expect(suite!.queries.flatMap((query) => query.relevant).filter((name) => !names.has(name))).toEqual([]);
  });
});

describe('the ninth library set (library-r9), pre-registered and held out whole', () => {
  it('is well-formed: unique lib9-NNN ids, at most two requests per skill, every library skill labelled and 60 everyday messages', async () => {
    const empty = await checkWellFormed(LIBRARY_REQUESTS['library-r9'], 'lib9');
    const queries = await readEvalQueries(LIBRARY_REQUESTS['library-r9']);
    expect(Math.round(empty * queries.length)).toBe(60);
    expect(queries.filter((query) => query.relevant.length > 0).length).toBeGreaterThanOrEqual(430);
    expect(new Set(queries.flatMap((query) => query.relevant)).size).toBeGreaterThanOrEqual(430);
  });

  it('has no train or dev request: every id is test, and it searches the library', async () => {
    const ids = (await readEvalQueries(LIBRARY_REQUESTS['library-r9'])).map((query) => query.id);
    expect(ids.every((id) => splitOf('library-r9', id) === 'test')).toBe(true);
    expect(catalogOf('library-r9')).toBe('library');
  });

  it.skipIf(!existsSync(join(EVAL_DIR, 'library')))('loads nothing for train or dev, and every label is a library skill', async () => {
    const names = new Set(librarySkills().map((skill) => skill.name));
    expect((await loadSuite('library-r9', { splits: ['train', 'dev'] }))?.queries).toEqual([]);
    const suite = await loadSuite('library-r9', { splits: ['test'] });
    expect(suite!.queries.length).toBe(498);
    expect(suite!.queries.flatMap((query) => query.relevant).filter((name) => !names.has(name))).toEqual([]);
  });
});

/** The blind sets written whole over the library (r10 on): one request per library skill and 100 everyday messages. */
const WHOLE_LIBRARY_SETS = [
  { suite: 'library-r10', prefix: 'lib10', lines: 539 },
  { suite: 'library-r11', prefix: 'lib11', lines: 540 },
  // From r12 on, answerable requests in four length classes of 110, everyday messages 15/25/35/25.
  { suite: 'library-r12', prefix: 'lib12', lines: 540, lengthClasses: true },
  { suite: 'library-r13', prefix: 'lib13', lines: 540, lengthClasses: true },
  // From r14 on, some very long messages run over 80 words: how many answerable, how many everyday.
  { suite: 'library-r14', prefix: 'lib14', lines: 540, lengthClasses: true, over80: [37, 9] },
  { suite: 'library-r15', prefix: 'lib15', lines: 540, lengthClasses: true, over80: [58, 13] },
  { suite: 'library-r16', prefix: 'lib16', lines: 540, lengthClasses: true, over80: [41, 7] },
  // r17 names 300 skills, not every one: 300 answerable requests in quarters of 75.
  { suite: 'library-r17', prefix: 'lib17', lines: 400, answerable: 300, lengthClasses: true, over80: [31, 7] },
  // r18 has r17's shape, over the 300 skills r1–r17 labelled least.
  { suite: 'library-r18', prefix: 'lib18', lines: 400, answerable: 300, lengthClasses: true, over80: [30, 7] },
  // r19 likewise, over the 300 skills r1–r18 labelled least.
  { suite: 'library-r19', prefix: 'lib19', lines: 400, answerable: 300, lengthClasses: true, over80: [33, 7] },
  // r20 likewise, over the 300 skills r1–r19 labelled least.
  { suite: 'library-r20', prefix: 'lib20', lines: 400, answerable: 300, lengthClasses: true, over80: [29, 7] },
  // r21 likewise, over the 300 skills r1–r20 labelled least.
  { suite: 'library-r21', prefix: 'lib21', lines: 400, answerable: 300, lengthClasses: true, over80: [30, 7] },
] as const satisfies readonly {
  suite: keyof typeof LIBRARY_REQUESTS;
  prefix: string;
  lines: number;
  /** How many requests have a label, when not one for every library skill (440). */
  answerable?: number;
  lengthClasses?: boolean;
  over80?: readonly [number, number];
}[];

const wordCount = (query: string): number => query.split(/\s+/).filter(Boolean).length;
const lengthClass = (query: string): string => {
  const words = wordCount(query);
  return words <= 6 ? 'short' : words <= 12 ? 'medium' : words <= 40 ? 'long' : 'very long';
};
const classCounts = (queries: readonly { query: string }[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const { query } of queries) counts[lengthClass(query)] = (counts[lengthClass(query)] ?? 0) + 1;
  return counts;
};

describe.each(WHOLE_LIBRARY_SETS)('the library set $suite, pre-registered and held out whole', (set) => {
  const { suite, prefix, lines } = set;
  const lengthClasses = 'lengthClasses' in set;
  const over80 = 'over80' in set ? set.over80 : undefined;
  const answerable = 'answerable' in set ? set.answerable : undefined;

  it(`is well-formed: unique ${prefix}-NNN ids, at most two requests per skill, ${answerable ?? 'every library'} skills labelled and 100 everyday messages`, async () => {
    const empty = await checkWellFormed(LIBRARY_REQUESTS[suite], prefix);
    const queries = await readEvalQueries(LIBRARY_REQUESTS[suite]);
    expect(Math.round(empty * queries.length)).toBe(100);
    const labelled = queries.filter((query) => query.relevant.length > 0).length;
    if (answerable === undefined) expect(labelled).toBeGreaterThanOrEqual(430);
    else expect(labelled).toBe(answerable);
    expect(new Set(queries.flatMap((query) => query.relevant)).size).toBeGreaterThanOrEqual(answerable ?? 430);
  });

  it.runIf(lengthClasses)('has its four length classes: answerable requests in quarters, everyday messages 15/25/35/25', async () => {
    const queries = await readEvalQueries(LIBRARY_REQUESTS[suite]);
    const answered = queries.filter((query) => query.relevant.length > 0);
    const everyday = queries.filter((query) => query.relevant.length === 0);
    const quarter = (answerable ?? 440) / 4;
    expect(classCounts(answered)).toEqual({ short: quarter, medium: quarter, long: quarter, 'very long': quarter });
    expect(classCounts(everyday)).toEqual({ short: 15, medium: 25, long: 35, 'very long': 25 });
    if (over80 !== undefined) {
      const longer = (subset: readonly { query: string }[]): number => subset.filter(({ query }) => wordCount(query) > 80).length;
      expect([longer(answered), longer(everyday)]).toEqual(over80);
    }
  });

  it('has no train or dev request: every id is test, and it searches the library', async () => {
    const ids = (await readEvalQueries(LIBRARY_REQUESTS[suite])).map((query) => query.id);
    expect(ids.every((id) => splitOf(suite, id) === 'test')).toBe(true);
    expect(catalogOf(suite)).toBe('library');
  });

  it.skipIf(!existsSync(join(EVAL_DIR, 'library')))('loads nothing for train or dev, and every label is a library skill', async () => {
    const names = new Set(librarySkills().map((skill) => skill.name));
    expect((await loadSuite(suite, { splits: ['train', 'dev'] }))?.queries).toEqual([]);
    const loaded = await loadSuite(suite, { splits: ['test'] });
    expect(loaded!.queries.length).toBe(lines);
    expect(loaded!.queries.flatMap((query) => query.relevant).filter((name) => !names.has(name))).toEqual([]);
  });
});

describe('the task statements over the library (library-tasks), development data whole', () => {
  it('are well-formed: unique libtask-NNN ids, 100 to 300 words each, 15 with no skill, the rest with one to five', async () => {
    const queries = await readEvalQueries(LIBRARY_REQUESTS['library-tasks']);
    const ids = queries.map((query) => query.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => /^libtask-\d{3}$/.test(id))).toBe(true);
    expect(queries.length).toBe(95);
    expect(queries.every(({ query }) => wordCount(query) >= 100 && wordCount(query) <= 300)).toBe(true);
    expect(queries.filter((query) => query.relevant.length === 0).length).toBe(15);
    const answerable = queries.filter((query) => query.relevant.length > 0);
    expect(answerable.every((query) => query.relevant.length <= 5)).toBe(true);
    expect(answerable.filter((query) => query.relevant.length >= 2).length).toBeGreaterThanOrEqual(60);
  });

  it('is all dev: nothing in train or test, and it searches the library', async () => {
    const ids = (await readEvalQueries(LIBRARY_REQUESTS['library-tasks'])).map((query) => query.id);
    expect(ids.every((id) => splitOf('library-tasks', id) === 'dev')).toBe(true);
    expect(catalogOf('library-tasks')).toBe('library');
  });

  it.skipIf(!existsSync(join(EVAL_DIR, 'library')))('loads nothing for train or test, and every label is a library skill', async () => {
    const names = new Set(librarySkills().map((skill) => skill.name));
    expect((await loadSuite('library-tasks', { splits: ['train', 'test'] }))?.queries).toEqual([]);
    const loaded = await loadSuite('library-tasks', { splits: ['dev'] });
    expect(loaded!.queries.length).toBe(95);
    expect(loaded!.queries.flatMap((query) => query.relevant).filter((name) => !names.has(name))).toEqual([]);
  });
});
