import { describe, expect, it } from 'vitest';
import { LexicalIndex } from '../../src/lexical/lexical-index.js';
import { LEXICAL_FIELDS } from '../../src/types.js';
import { makeSkill, SKILLS } from '../search/fixtures.js';

function build(): LexicalIndex {
  const index = new LexicalIndex();
  for (const skill of SKILLS) index.upsert(skill);
  return index;
}

const ids = (index: LexicalIndex, query: string, limit = 5): string[] => index.search(query, limit).map((match) => match.id);

describe('LexicalIndex ranking', () => {
  const index = build();

  it('puts the skill whose name and description carry every query word first', () => {
    // pdf: "pdf" in the name (boost 3) and "merge"/"pages" in the description.
    // frontend-design ("landing page"), release-notes ("merged"), web-scraping ("web pages"):
    // one word each, the shorter field first.
    expect(ids(index, 'merge pdf pages')).toEqual(['pdf', 'frontend-design', 'release-notes', 'web-scraping']);
    expect(index.search('merge pdf pages', 1)[0]?.coverage).toBe(1);
  });

  it('ranks a name match over a description-only match', () => {
    // kubernetes-deploy: "kubernetes" and "deploy" both in the name.
    // docker-compose: only "container" (as "containerise"/"containers", via prefix) in its text.
    expect(ids(index, 'deploy a container to kubernetes')).toEqual(['kubernetes-deploy', 'docker-compose']);
  });

  it('tolerates a typo in a long word', () => {
    expect(ids(index, 'kubernets deploy')).toEqual(['kubernetes-deploy']);
  });

  it('spends typo tolerance only on words the catalog does not have', () => {
    const small = new LexicalIndex();
    small.upsert(makeSkill({ name: 'palette', description: 'Pick a colour scheme for a brand.' }));
    small.upsert(makeSkill({ name: 'css-lint', description: 'Check every color value in stylesheets.' }));
    // Both spellings are catalog words: each is matched as written, not also as the other
    // (one edit away).
    expect(ids(small, 'colour')).toEqual(['palette']);
    expect(ids(small, 'color')).toEqual(['css-lint']);
    // "colur" is not a catalog word: typo tolerance finds both.
    expect(ids(small, 'colur').sort()).toEqual(['css-lint', 'palette']);
  });

  it('matches inflections and a misspelt inflection through stemming', () => {
    // systematic-debugging: "debuging" and "debugging" both stem to "debug"; "failing"/"fails"
    // and "test" also match. test-driven-development: "test" and "failing" only.
    expect(ids(index, 'debuging a failing test')).toEqual(['systematic-debugging', 'test-driven-development']);
    // "crashes" meets "a crash appears".
    expect(ids(index, 'my program crashes')).toEqual(['systematic-debugging']);
  });

  it('matches Chinese queries against Chinese descriptions', () => {
    expect(ids(index, '会议纪要')).toEqual(['meeting-minutes']);
    expect(ids(index, '服务器日志报错')).toEqual(['log-analysis']);
  });

  it('returns nothing for a query made only of stop words', () => {
    expect(index.search('thanks!', 5)).toEqual([]);
    expect(index.search('can you do this for me', 5)).toEqual([]);
  });

  it('reports coverage as the share of query terms matched', () => {
    const [top] = index.search('excel formulas unicorn', 1);
    expect(top?.id).toBe('xlsx');
    expect(top?.coverage).toBeCloseTo(2 / 3);
  });

  it('weighs the matched words by how rare they are in the catalog', () => {
    const small = new LexicalIndex();
    small.upsert(makeSkill({ name: 'fastq-tools', description: 'Trim and count sequencing reads.' }));
    for (const name of ['file-manager', 'file-sync', 'file-search']) small.upsert(makeSkill({ name, description: `Work with a file: ${name}.` }));
    const byId = new Map(small.search('fastq file', 5).map((match) => [match.id, match]));
    // Each matches one of the two words (coverage 1/2), but "fastq" is in one skill of four, "file" in three.
    const rare = byId.get('fastq-tools')!;
    const common = byId.get('file-sync')!;
    expect(rare.coverage).toBe(0.5);
    expect(common.coverage).toBe(0.5);
    const idf = (n: number): number => Math.log(1 + (4 - n + 0.5) / (n + 0.5));
    expect(rare.weightedCoverage).toBeCloseTo(idf(1) / (idf(1) + idf(3)));
    expect(common.weightedCoverage).toBeCloseTo(idf(3) / (idf(1) + idf(3)));
    expect(rare.rarest).toBe(1);
    expect(common.rarest).toBeCloseTo(idf(3) / idf(1));
    // A word no skill has weighs nothing: matching "fastq" is all the evidence there is.
    expect(small.search('fastq zyzzyva', 1)[0]?.weightedCoverage).toBe(1);
  });

  it('says in which fields each matched word was found, with its share of the query', () => {
    const small = new LexicalIndex();
    small.upsert({ ...makeSkill({ name: 'fastq-tools', description: 'Trim sequencing reads.' }), body: '# Notes\n\nWorks on a gzip file.' });
    small.upsert(makeSkill({ name: 'file-manager', description: 'Move a file.' }));
    small.upsert(makeSkill({ name: 'file-sync', description: 'Copy files between machines.' }));
    const byId = new Map(small.search('fastq gzip file', 5, { matchedWords: true }).map((match) => [match.id, match]));
    const bit = (field: (typeof LEXICAL_FIELDS)[number]): number => 1 << LEXICAL_FIELDS.indexOf(field);
    const fastq = byId.get('fastq-tools')!;
    // "fastq" in the name, "gzip" and "file" in the body alone; "file" in file-manager's name, description and body (its title).
    expect(fastq.matchedWords?.map((word) => word.fields)).toEqual([bit('name'), bit('body'), bit('body')]);
    expect(byId.get('file-manager')!.matchedWords?.map((word) => word.fields)).toEqual([bit('name') | bit('description') | bit('body')]);
    const weights = fastq.matchedWords!.map((word) => word.weight);
    expect(weights.reduce((sum, weight) => sum + weight, 0)).toBeCloseTo(fastq.weightedCoverage!);
    expect(Math.max(...fastq.matchedWords!.map((word) => word.rarity))).toBe(fastq.rarest);
    // Only when asked: a plain search skips the work.
    expect(small.search('fastq gzip file', 5).every((match) => match.matchedWords === undefined)).toBe(true);
  });
});

describe('LexicalIndex updates', () => {
  it('replaces a changed skill and forgets removed words', () => {
    const index = build();
    const renamed = makeSkill({ name: 'pdf', description: 'Compress scanned images inside documents.' });
    expect(index.upsert(renamed)).toBe(true);
    expect(ids(index, 'merge pdf pages')[0]).toBe('pdf');
    expect(index.search('merge', 5).map((m) => m.id)).toEqual(['release-notes']);
    // sql-optimization: "full table scan" (scanned → scan); image-editing: "compress".
    expect(ids(index, 'compress scanned')).toEqual(['pdf', 'sql-optimization', 'image-editing']);
  });

  it('treats re-adding identical content as a no-op', () => {
    const index = build();
    expect(index.upsert(SKILLS[0]!)).toBe(false);
    expect(index.size).toBe(SKILLS.length);
  });

  it('removes a skill from results', () => {
    const index = build();
    expect(index.remove('sql-optimization')).toBe(true);
    expect(index.remove('sql-optimization')).toBe(false);
    expect(ids(index, 'slow sql query')).toEqual([]);
    expect(index.has('sql-optimization')).toBe(false);
  });
});

describe('LexicalIndex ties', () => {
  /** Skills every query word matches alike: only their ids and a word the query lacks differ. */
  const tied = (i: number, word = 'alpha') => makeSkill({ id: `tied-${i}`, name: `tied ${i}`, description: `Rotate the logs ${word}.` });

  it('lists equal scores in catalog order: an edited skill keeps its place, as a clean build lists it', () => {
    const index = new LexicalIndex();
    for (let i = 0; i < 5; i += 1) index.upsert(tied(i));
    expect(ids(index, 'rotate logs')).toEqual(['tied-0', 'tied-1', 'tied-2', 'tied-3', 'tied-4']);
    // The edited skill's postings are stored again, after every other's.
    expect(index.upsert(tied(0, 'gamma'))).toBe(true);
    expect(ids(index, 'rotate logs')).toEqual(['tied-0', 'tied-1', 'tied-2', 'tied-3', 'tied-4']);
    // Cut at fewer than the tied documents: the first in catalog order are kept.
    expect(ids(index, 'rotate logs', 2)).toEqual(['tied-0', 'tied-1']);
  });

  it("takes a catalog order given after adds and removals (a removed skill's slot reused)", () => {
    const index = new LexicalIndex();
    for (let i = 0; i < 5; i += 1) index.upsert(tied(i));
    index.remove('tied-3');
    index.upsert(tied(5));
    index.arrange(['tied-5', 'tied-0', 'tied-1', 'tied-2', 'tied-4']);
    expect(ids(index, 'rotate logs')).toEqual(['tied-5', 'tied-0', 'tied-1', 'tied-2', 'tied-4']);
    const clean = new LexicalIndex();
    for (const i of [5, 0, 1, 2, 4]) clean.upsert(tied(i));
    expect(index.search('rotate logs', 5)).toEqual(clean.search('rotate logs', 5));
  });
});
