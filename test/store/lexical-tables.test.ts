import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SkillSearchError } from '../../src/errors.js';
import { lexicalEntry } from '../../src/lexical/lexical-entry.js';
import { LexicalIndex, type LexicalMatch } from '../../src/lexical/lexical-index.js';
import type { LexicalSearcher } from '../../src/lexical/lexical-query.js';
import { compareByteOrder, openCatalogLexical } from '../../src/store/catalog-lexical.js';
import { LEXICAL_TABLES_SQL, putCatalogLexicalStats, putLexicalEntries } from '../../src/store/lexical-tables.js';
import type { Skill } from '../../src/types.js';
import { decodeVocabularyTables, vocabularyTables } from '../../src/lexical/vocabulary-tables.js';
import { EVAL_DIR, librarySkills, LIBRARY_QUERIES } from '../../scripts/eval-suites.js';
import { prng } from '../../scripts/prng.js';
import { makeSkill } from '../attachments/make-skill.js';
import { OPTION_SETS } from '../lexical/helpers.js';
import { useTempDirs } from '../support/temp-dirs.js';

/** The store's membership table (laid out by `store-layout.ts`), as the lexical tables join against it. */
const CATALOG_SKILLS_SQL = `
CREATE TABLE IF NOT EXISTS catalog_skills (catalog INTEGER NOT NULL, doc INTEGER NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL, lexical_key TEXT NOT NULL, vector_key TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (catalog, doc)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS catalog_skills_lexical ON catalog_skills (lexical_key, catalog);`;

interface Member {
  readonly skill: Skill;
  readonly glosses: string;
}

function openDb(): Database.Database {
  const db = new Database(':memory:');
  db.exec(CATALOG_SKILLS_SQL);
  db.exec(LEXICAL_TABLES_SQL);
  return db;
}

/** Writes a catalog as the store would: its entries, its membership, then its statistics. */
function writeCatalog(db: Database.Database, catalog: number, members: readonly Member[]): void {
  const entries = members.map(({ skill, glosses }) => lexicalEntry(skill, glosses));
  putLexicalEntries(db, entries);
  const insert = db.prepare('INSERT INTO catalog_skills (catalog, doc, id, name, lexical_key, vector_key, record) VALUES (?, ?, ?, ?, ?, ?, ?)');
  db.transaction(() => members.forEach(({ skill }, doc) => insert.run(catalog, doc, skill.id, skill.name, entries[doc]!.key, '', '{}')))();
  putCatalogLexicalStats(db, catalog);
}

function memoryIndex(members: readonly Member[]): LexicalIndex {
  const index = new LexicalIndex();
  for (const { skill, glosses } of members) index.upsert(skill, glosses);
  return index;
}

/** Explained fields with each field's terms sorted: the order expansions are reached in may differ (byte order in SQLite, code units in memory). */
function sortedFields(fields: LexicalMatch['fields']): Record<string, string[]> | undefined {
  return fields === undefined ? undefined : Object.fromEntries(Object.entries(fields).map(([field, terms]) => [field, [...terms].sort()]));
}

const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));

/**
 * The same matches with the same scores (to 1e-9), coverage and explained fields, in the same
 * score order; equal scores may come in another order, so matches are paired by id.
 */
function expectSameMatches(got: readonly LexicalMatch[], want: readonly LexicalMatch[], label: string): void {
  const problems: string[] = [];
  if (got.length !== want.length) problems.push(`${got.length} matches, expected ${want.length}`);
  const byId = new Map(got.map((match) => [match.id, match]));
  want.forEach((match, i) => {
    if (got[i] === undefined || !close(got[i].score, match.score)) problems.push(`score ${i}: ${got[i]?.score} vs ${match.score}`);
    const twin = byId.get(match.id);
    if (twin === undefined) problems.push(`${match.id} missing`);
    else if (!close(twin.score, match.score) || twin.coverage !== match.coverage)
      problems.push(`${match.id}: ${twin.score}/${twin.coverage} vs ${match.score}/${match.coverage}`);
    else if (JSON.stringify(sortedFields(twin.fields)) !== JSON.stringify(sortedFields(match.fields)))
      problems.push(`${match.id}: fields ${JSON.stringify(twin.fields)} vs ${JSON.stringify(match.fields)}`);
  });
  expect(problems, label).toEqual([]);
}

/** Every query under every option set, with every match (no cut among ties) and with the top 5. */
function expectSameAnswers(sql: LexicalSearcher, memory: LexicalIndex, queries: readonly string[], size: number): number {
  let matched = 0;
  for (const options of OPTION_SETS) {
    for (const query of queries) {
      const label = `${query} ${JSON.stringify(options)}`;
      const want = memory.search(query, size, options);
      matched += want.length;
      expectSameMatches(sql.search(query, size, options), want, label);
      const top = sql.search(query, 5, options);
      expect(
        top.map((match) => match.score).every((score, i) => close(score, want[i]!.score)),
        `${label} top 5`,
      ).toBe(true);
      expect(top.length, `${label} top 5`).toBe(Math.min(5, want.length));
    }
  }
  return matched;
}

const WORDS = ['deploy', 'deployment', 'deployer', 'depot', 'kubernetes', 'container', 'containers', 'pdf-extract', 'extract', 'invoice', 'spreadsheet'];
const MORE = [
  'release',
  'migrate',
  'migration',
  'database',
  'getUserProfile',
  'profile',
  'café',
  'résumé',
  '部署容器',
  '数据库迁移',
  'テスト自動化',
  '𠮷野家',
  'lint',
];
const VOCABULARY = [...WORDS, ...MORE];
const QUERY_EXTRA = ['kubernets', 'spredsheet', 'relase', 'migrat', 'deplo', 'containr', 'databse', 'cafe', 'unknownword', 'the', '容器', '𠮷田', 'depl'];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function words(random: () => number, max: number): string {
  return Array.from({ length: Math.floor(random() * (max + 1)) }, () => pick(random, VOCABULARY)).join(' ');
}

/** A deterministic catalog: some fields empty, some keywords, some glosses, two skills with equal content. */
function synthetic(seed: number, count: number): Member[] {
  const random = prng(seed);
  const members = Array.from({ length: count }, (_, i): Member => {
    const description = words(random, 10);
    const whenToUse = random() < 0.3 ? undefined : words(random, 6);
    const body = random() < 0.2 ? '' : `# Notes\n\n${words(random, 30)}`;
    const skill = makeSkill(`${pick(random, VOCABULARY)}-${i}`, {
      id: `skill-${seed}-${i}`,
      description,
      body,
      contentHash: `c-${seed}-${i}`,
      ...(whenToUse === undefined ? {} : { whenToUse }),
    });
    const withKeywords = random() < 0.4 ? { ...skill, keywords: [pick(random, VOCABULARY), pick(random, VOCABULARY)] } : skill;
    return { skill: withKeywords, glosses: random() < 0.15 ? 'deploy container invoice' : '' };
  });
  // Equal content under another id: one entry, two documents.
  members.push({ skill: { ...members[0]!.skill, id: `copy-of-${members[0]!.skill.id}` }, glosses: members[0]!.glosses });
  return members;
}

function queries(seed: number, count: number): string[] {
  const random = prng(seed);
  const all = [...VOCABULARY, ...QUERY_EXTRA];
  return Array.from({ length: count }, () => Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(random, all)).join(' '));
}

describe('lexical tables', () => {
  it('answer like the in-memory index over the same skills: matches, scores, coverage, explained fields', () => {
    const members = synthetic(7, 200);
    const db = openDb();
    writeCatalog(db, 1, members);
    const sql = openCatalogLexical(db, 1);
    expect(sql.size).toBe(members.length);
    const matched = expectSameAnswers(sql, memoryIndex(members), queries(11, 60), members.length);
    expect(matched).toBeGreaterThan(1000);
    expect(sql.search('', 10)).toEqual([]);
    expect(sql.search('deploy', 0)).toEqual([]);
  });

  it('weight grouped terms and count coverage per group like the in-memory index', () => {
    const members = synthetic(8, 120);
    const db = openDb();
    writeCatalog(db, 3, members);
    const memory = memoryIndex(members);
    const sql = openCatalogLexical(db, 3);
    const terms = {
      weights: new Map([
        ['deploy', 1],
        ['container', 0.6],
        ['kubernetes', 0.4],
        ['invoice', 0],
      ]),
      groups: [['deploy'], ['container', 'kubernetes'], ['invoice']],
    };
    for (const options of [{ terms }, { terms, explain: true }]) {
      const want = memory.search('deploy container kubernetes invoice', members.length, options);
      expect(want.length).toBeGreaterThan(10);
      expectSameMatches(sql.search('deploy container kubernetes invoice', members.length, options), want, JSON.stringify(options));
    }
  });

  it('keep each catalog’s statistics its own when catalogs share entries', () => {
    const first = synthetic(21, 150);
    const second = [...first.slice(0, 40), ...synthetic(22, 60)];
    const db = openDb();
    writeCatalog(db, 1, first);
    writeCatalog(db, 2, second);
    // Writing a catalog's entries again stores nothing new.
    expect(
      putLexicalEntries(
        db,
        second.map(({ skill, glosses }) => lexicalEntry(skill, glosses)),
      ),
    ).toBe(0);
    const texts = queries(23, 40);
    expectSameAnswers(openCatalogLexical(db, 2), memoryIndex(second), texts, second.length);
    expectSameAnswers(openCatalogLexical(db, 1), memoryIndex(first), texts, first.length);
    // A skill only in the second catalog is never found in the first.
    const only = second.at(-2)!.skill.id;
    expect(
      openCatalogLexical(db, 1)
        .search(VOCABULARY.join(' '), 1000)
        .some((match) => match.id === only),
    ).toBe(false);
  });

  it('report a posting outside the packed read’s bounds (a term frequency of 2^23, which no written store holds) as damage', () => {
    const db = openDb();
    writeCatalog(db, 3, synthetic(24, 80));
    const { term, word } = db
      .prepare('SELECT t.id AS term, t.term AS word FROM lexical_terms t JOIN lexical_postings p ON p.term = t.id ORDER BY t.term LIMIT 1')
      .get() as { term: number; word: string };
    expect(db.prepare('UPDATE lexical_postings SET tf = ? WHERE term = ?').run(2 ** 23 + 5, term).changes).toBeGreaterThan(0);
    expect(() => openCatalogLexical(db, 3).search(word, 1000)).toThrow(expect.objectContaining({ code: 'INDEX_CORRUPT' }));
  });

  it('find typos, of terms beyond the BMP too, as the in-memory index does, reading the vocabulary once, a term holding NUL too', () => {
    // Code units and code points differ beyond the BMP: 𠮷 is two units, one character to SQL, and sorts after U+E000 there.
    const terms = ['a𠮷𠮷b', 'a𠮷𠮷bc', 'x𠮷y', 'xy', 'abc\uE000d', 'abc\uE001', 'spreadsheet', 'spreadsheets', 'sheet', 'sheets', 'shee'];
    const members = terms.map(
      (term, i): Member => ({ skill: makeSkill(`s-${i}`, { id: `s-${i}`, description: `${term} ${terms[(i + 3) % terms.length]}`, body: '' }), glosses: '' }),
    );
    const typos = ['a𠮷𠮷c', 'a𠮷b', 'x𠮷', 'abc\uE000', 'abcd', 'spredsheet', 'shets', 'sheeet'];
    const fuzzy = { fuzzy: { minLength: 2, ratio: 0.4 }, prefixMinLength: 100, explain: true };
    const memory = memoryIndex(members);
    expect(memory.search('spredsheet', 100, fuzzy).length).toBeGreaterThan(0);
    for (const separatorInATerm of [false, true]) {
      const statements: string[] = [];
      const db = new Database(':memory:', { verbose: (sql) => statements.push(String(sql)) });
      db.exec(CATALOG_SKILLS_SQL);
      db.exec(LEXICAL_TABLES_SQL);
      writeCatalog(db, 1, members);
      // A term of another catalog's skills, never a typo's answer here.
      if (separatorInATerm) db.prepare('INSERT INTO lexical_terms (term) VALUES (?)').run('sheet\u0000s');
      const sql = openCatalogLexical(db, 1);
      statements.length = 0;
      for (const typo of typos) expectSameMatches(sql.search(typo, 100, fuzzy), memory.search(typo, 100, fuzzy), `${typo} ${separatorInATerm}`);
      const vocabularyReads = statements.filter((text) => /^SELECT term FROM lexical_terms$/.test(text));
      expect(vocabularyReads.length).toBe(1);
    }
  });

  it('order terms as SQLite orders them (UTF-8 bytes, code points), not by UTF-16 code units', () => {
    const random = prng(31);
    const alphabet = ['a', 'z', '\u00e9', '\u4e00', '\uE000', '\uFFFD', '𠮷', '😀', '\u{10FFFF}'];
    const words = Array.from({ length: 300 }, () => Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(random, alphabet)).join(''));
    const db = new Database(':memory:');
    db.exec('CREATE TABLE w (t TEXT)');
    const insert = db.prepare('INSERT INTO w VALUES (?)');
    for (const word of words) insert.run(word);
    const sqlite = db.prepare('SELECT t FROM w ORDER BY t').pluck().all() as string[];
    expect([...words].sort(compareByteOrder)).toEqual(sqlite);
    expect([...words].sort()).not.toEqual(sqlite);
  });

  it('refuse a catalog without statistics, or whose members name entries never put', () => {
    const db = openDb();
    expect(() => openCatalogLexical(db, 9)).toThrow(/catalog 9 has no lexical statistics/);
    db.prepare('INSERT INTO catalog_skills VALUES (9, 0, ?, ?, ?, ?, ?)').run('a', 'a', 'missing-key', '', '{}');
    expect(() => putCatalogLexicalStats(db, 9)).toThrow(SkillSearchError);
    expect(() => putCatalogLexicalStats(db, 9)).toThrow(/names entry missing-key, which was never put/);
  });

  const library = join(EVAL_DIR, 'library');
  it.skipIf(!existsSync(library))('answer like the in-memory index on the real skill library (434 skills with bodies, library requests)', () => {
    const random = prng(5);
    // A few skills carry glosses, as a translated skill would.
    const members = librarySkills().map((skill) => ({ skill, glosses: random() < 0.1 ? 'review code pull request deploy' : '' }));
    const db = openDb();
    writeCatalog(db, 4, members);
    const requests = readFileSync(LIBRARY_QUERIES, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => String((JSON.parse(line) as { query: unknown }).query))
      .filter((_, i) => i % 4 === 0);
    const typos = ['refactr the databse migrashun', 'debuging flaky tets', 'pdf extrct tabels', 'kubernets deploymnt'];
    const matched = expectSameAnswers(openCatalogLexical(db, 4), memoryIndex(members), [...requests, ...typos], members.length);
    expect(matched).toBeGreaterThan(10_000);
  });
});

describe('the stored typo-lookup vocabulary', () => {
  const temp = useTempDirs('lexical-vocabulary');
  const skill = (name: string, description: string): Member => ({ skill: makeSkill(name, { description, contentHash: `c-${name}` }), glosses: '' });
  const cloud = skill('cloud', 'kubernetes deployment of containers');
  const billing = skill('billing', 'invoice billing reports');
  const infra = skill('infra', 'terraform modules for infrastructure');
  const stored = (db: Database.Database): Buffer | undefined => db.prepare<[], Buffer>('SELECT tables FROM lexical_vocabulary WHERE id = 0').pluck().get();
  const built = (db: Database.Database) => vocabularyTables(db.prepare<[], string>('SELECT term FROM lexical_terms').pluck().all());
  const ids = (db: Database.Database, catalog: number, query: string): string[] =>
    openCatalogLexical(db, catalog)
      .search(query, 5)
      .map((match) => match.id);

  it('is written by the first typo lookup, equal to the tables built from the terms, and dropped whenever the terms change', () => {
    const db = openDb();
    writeCatalog(db, 1, [cloud, billing]);
    expect(stored(db)).toBeUndefined();
    expect(ids(db, 1, 'kubernetis')).toEqual(['cloud']);
    expect(decodeVocabularyTables(stored(db)!)).toEqual(built(db));
    // Entries with new terms: the row goes, and the next lookup sees (and stores) the new vocabulary.
    writeCatalog(db, 2, [cloud, billing, infra]);
    expect(stored(db)).toBeUndefined();
    expect(ids(db, 2, 'terrafrom')).toEqual(['infra']);
    expect(decodeVocabularyTables(stored(db)!)).toEqual(built(db));
    // Terms deleted, and the largest id reused by another term: (count, largest id) unchanged, vocabulary not.
    const [largest, term] = db.prepare<[], [number, string]>('SELECT id, term FROM lexical_terms ORDER BY id DESC LIMIT 1').raw().get()!;
    db.prepare('DELETE FROM lexical_terms WHERE id = ?').run(largest);
    expect(stored(db)).toBeUndefined();
    expect(ids(db, 2, 'kubernetis')).toEqual(['cloud']);
    db.prepare('INSERT INTO lexical_terms (id, term) VALUES (?, ?)').run(largest, `${term}zz`);
    expect(stored(db)).toBeUndefined();
    expect(ids(db, 2, 'kubernetis')).toEqual(['cloud']);
    expect(decodeVocabularyTables(stored(db)!)).toEqual(built(db));
    // A corrupt row is not trusted: the lookup builds (and stores) the tables again.
    db.prepare("UPDATE lexical_vocabulary SET tables = x'00010203'").run();
    expect(ids(db, 2, 'terrafrom')).toEqual(['infra']);
    expect(decodeVocabularyTables(stored(db)!)).toEqual(built(db));
  });

  it('is read by a store that has it and built by one lacking it, the same answers either way', () => {
    const db = openDb();
    writeCatalog(db, 1, [cloud, billing, infra]);
    const want = openCatalogLexical(db, 1).search('kubernetis terrafrom invoise', 5);
    expect(stored(db)).toBeDefined();
    expect(openCatalogLexical(db, 1).search('kubernetis terrafrom invoise', 5)).toEqual(want);
    for (const name of ['lexical_vocabulary_insert', 'lexical_vocabulary_delete', 'lexical_vocabulary_update']) db.exec(`DROP TRIGGER ${name}`);
    db.exec('DROP TABLE lexical_vocabulary');
    expect(openCatalogLexical(db, 1).search('kubernetis terrafrom invoise', 5)).toEqual(want);
  });

  it('is skipped, not waited for, while another process holds the write lock', { timeout: 20_000 }, () => {
    const file = join(temp(), 'store.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec(CATALOG_SKILLS_SQL);
    db.exec(LEXICAL_TABLES_SQL);
    writeCatalog(db, 1, [cloud, billing]);
    db.pragma('busy_timeout = 60000');
    const writer = new Database(file);
    writer.exec('BEGIN IMMEDIATE');
    try {
      expect(ids(db, 1, 'kubernetis')).toEqual(['cloud']);
      expect(stored(db)).toBeUndefined();
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
    expect(db.pragma('busy_timeout', { simple: true })).toBe(60_000);
    expect(ids(db, 1, 'kubernetis')).toEqual(['cloud']);
    expect(decodeVocabularyTables(stored(db)!)).toEqual(built(db));
    db.close();
  });
});
