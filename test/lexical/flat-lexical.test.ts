import { describe, expect, it } from 'vitest';
import { SkillSearchError } from '../../src/errors.js';
import { encodeFlatLexical, FlatLexicalIndex } from '../../src/lexical/flat-lexical.js';
import { HEADER, HEADER_WORDS, type HeaderWords, layoutOf } from '../../src/lexical/flat-lexical-layout.js';
import { LexicalIndex } from '../../src/lexical/lexical-index.js';
import type { Skill } from '../../src/types.js';
import { prng } from '../../scripts/prng.js';
import { makeSkill } from '../attachments/make-skill.js';
import { OPTION_SETS } from './helpers.js';

// Families that share prefixes at several depths (so the term tree splits edges in many orders),
// near-misses for typo lookups, identifiers that split into parts, accents and CJK runs.
const WORDS = [
  'deploy',
  'deployment',
  'deployments',
  'deployer',
  'deploys',
  'depot',
  'kubernetes',
  'kube',
  'container',
  'containers',
  'containment',
  'pdf',
  'pdf-extract',
  'extract',
  'extraction',
  'invoice',
  'invoicing',
  'spreadsheet',
  'spreadsheets',
  'release',
  'releases',
  'migrate',
  'migration',
  'database',
  'dataset',
  'datastore',
  'getUserProfile',
  'profile',
  'profiler',
  'café',
  'cafés',
  'naïve',
  'résumé',
  'über',
  '部署容器',
  '数据库迁移',
  'テスト自動化',
  'audit',
  'auditing',
  'auditor',
  'lint',
  'linter',
  'linting',
  'format',
  'formatter',
  'formats',
  '𠮷野家',
  '𠮷田',
];
const QUERY_EXTRA = [
  'kubernets',
  'spredsheet',
  'relase',
  'migrat',
  'deplo',
  'deploymnt',
  'containr',
  'databse',
  'invoise',
  'auditng',
  'cafe',
  'unknownword',
  'the',
  'a',
  'formt',
  'lintr',
  '容器',
  'depl',
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function text(random: () => number, max: number): string {
  return Array.from({ length: Math.floor(random() * (max + 1)) }, () => pick(random, WORDS)).join(' ');
}

/** A catalog of `count` skills, deterministic from `seed`; some fields empty, some skills with keywords. */
function catalog(seed: number, count: number, version = 0): Skill[] {
  const random = prng(seed);
  return Array.from({ length: count }, (_, i) => {
    const description = text(random, 10);
    const whenToUse = random() < 0.3 ? undefined : text(random, 6);
    const body = random() < 0.2 ? '' : `# Notes\n\n${text(random, 30)}`;
    const keywords = random() < 0.4 ? [pick(random, WORDS), pick(random, WORDS)] : undefined;
    const skill = makeSkill(`${pick(random, WORDS)}-${i}`, {
      id: `skill-${i}-${pick(random, ['a', 'é', '数'])}`,
      description,
      body,
      contentHash: `v${version}-${i}-${description}-${whenToUse}-${body}`,
      ...(whenToUse === undefined ? {} : { whenToUse }),
    });
    return keywords === undefined ? skill : { ...skill, keywords };
  });
}

function queries(seed: number, count: number): string[] {
  const random = prng(seed);
  const vocabulary = [...WORDS, ...QUERY_EXTRA];
  return Array.from({ length: count }, () => Array.from({ length: 1 + Math.floor(random() * 5) }, () => pick(random, vocabulary)).join(' '));
}

/** Every query under every option set: the flat index must answer exactly like the live one. */
function expectSameAnswers(live: LexicalIndex, flat: FlatLexicalIndex, texts: readonly string[]): void {
  for (const options of OPTION_SETS) {
    for (const query of texts) {
      expect(flat.search(query, 15, options), `${query} ${JSON.stringify(options)}`).toEqual(live.search(query, 15, options));
    }
  }
}

describe('FlatLexicalIndex', () => {
  const skills = catalog(7, 300);
  const live = new LexicalIndex();
  for (const skill of skills) live.upsert(skill, skill.description.includes('部署') ? 'deploy container' : '');

  it('answers every query like LexicalIndex: ids, order, scores to the bit, coverage and explained fields', () => {
    const flat = FlatLexicalIndex.open(encodeFlatLexical(live));
    expect(flat.size).toBe(300);
    expect(flat.has(skills[5]!.id)).toBe(true);
    expect(flat.has('no-such-skill')).toBe(false);
    expect([...flat.ids()]).toEqual([...live.ids()]);
    expectSameAnswers(live, flat, queries(11, 90));
    expect(flat.search('', 10)).toEqual([]);
    expect(flat.search('deploy', 0)).toEqual([]);
  });

  it('weights grouped terms and counts coverage per group like LexicalIndex', () => {
    const flat = FlatLexicalIndex.open(encodeFlatLexical(live));
    const terms = {
      weights: new Map([
        ['deploy', 1],
        ['container', 0.6],
        ['kubernetes', 0.4],
        ['audit', 0],
      ]),
      groups: [['deploy'], ['container', 'kubernetes'], ['audit']],
    };
    for (const options of [{ terms }, { terms, explain: true }, { terms: { weights: new Map(), groups: [] } }]) {
      const got = flat.search('deploy container kubernetes audit', 20, options);
      expect(got.length).toBeGreaterThan(0);
      expect(got).toEqual(live.search('deploy container kubernetes audit', 20, options));
    }
  });

  it('orders tied prefix matches as the index lists their terms (code-unit order), like LexicalIndex', () => {
    // Three one-word skills of equal length and frequency: equal scores, so only the order in
    // which the prefix's expansions are reached decides (sorted, whatever the insertion order).
    const index = new LexicalIndex();
    for (const word of ['deployx', 'deployz', 'deployy']) index.upsert(makeSkill(word, { id: word, description: '', body: '', contentHash: word }));
    const flat = FlatLexicalIndex.open(encodeFlatLexical(index));
    const want = index.search('deploy', 10);
    expect(new Set(want.map((hit) => hit.score)).size).toBe(1);
    expect(want.map((hit) => hit.id)).toEqual(['deployx', 'deployy', 'deployz']);
    expect(flat.search('deploy', 10)).toEqual(want);
  });

  it('answers like LexicalIndex after upserts and removals (written again after the changes)', () => {
    const index = new LexicalIndex();
    for (const skill of skills) index.upsert(skill);
    const changed = catalog(99, 300, 1);
    const random = prng(3);
    for (let i = 0; i < 300; i += 1) {
      const roll = random();
      if (roll < 0.25) index.upsert({ ...changed[i]!, id: skills[i]!.id });
      else if (roll < 0.4) index.remove(skills[i]!.id);
    }
    index.upsert(makeSkill('late-arrival', { id: 'late', description: 'deployments of kubernetes containers' }));
    const flat = FlatLexicalIndex.open(encodeFlatLexical(index));
    expect(flat.size).toBe(index.size);
    expect(flat.has(skills[0]!.id)).toBe(index.has(skills[0]!.id));
    expectSameAnswers(index, flat, queries(12, 40));
  });

  it('answers alike with 4-byte document numbers and 2- or 4-byte term frequencies', () => {
    const index = new LexicalIndex();
    for (const skill of skills.slice(0, 60)) index.upsert(skill);
    index.upsert(makeSkill('repeats', { id: 'many', description: Array.from({ length: 300 }, () => 'kx').join(' '), contentHash: 'many' }));
    const texts = [...queries(13, 20), 'kx', 'kx deploy'];
    const narrow = encodeFlatLexical(index);
    const wide = encodeFlatLexical(index, { documentWidth: 4 });
    FlatLexicalIndex.open(wide).verify();
    expectSameAnswers(index, FlatLexicalIndex.open(wide), texts);
    index.upsert(makeSkill('repeats-more', { id: 'lots', description: Array.from({ length: 70_000 }, () => 'kx').join(' '), contentHash: 'lots' }));
    const widest = encodeFlatLexical(index);
    FlatLexicalIndex.open(widest).verify();
    expectSameAnswers(index, FlatLexicalIndex.open(widest), texts);
    const widths = (bytes: Buffer) => [bytes.readUInt32LE(HEADER.docWidth * 4), bytes.readUInt32LE(HEADER.frequencyWidth * 4)];
    expect([narrow, wide, widest].map(widths)).toEqual([
      [2, 2],
      [4, 2],
      [2, 4],
    ]);
  });

  it('searches an empty index and a buffer that does not start on an aligned offset', () => {
    const empty = FlatLexicalIndex.open(encodeFlatLexical(new LexicalIndex()));
    expect(empty.size).toBe(0);
    expect(empty.search('deploy', 10)).toEqual([]);
    const bytes = encodeFlatLexical(live);
    const shifted = Buffer.alloc(bytes.length + 3);
    bytes.copy(shifted, 3);
    const flat = FlatLexicalIndex.open(shifted.subarray(3));
    expect(flat.search('kubernets deploy', 10)).toEqual(live.search('kubernets deploy', 10));
  });

  it('rejects a truncated, extended, foreign or corrupt buffer with an INDEX_CORRUPT error naming the problem', () => {
    const bytes = encodeFlatLexical(live);
    const rejects = (buffer: Uint8Array, message: RegExp) => {
      let error: unknown;
      try {
        FlatLexicalIndex.open(buffer);
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(SkillSearchError);
      expect((error as SkillSearchError).code).toBe('INDEX_CORRUPT');
      expect((error as Error).message).toMatch(message);
    };
    rejects(bytes.subarray(0, 10), /shorter than the 64-byte header/);
    rejects(bytes.subarray(0, bytes.length - 8), /truncated or corrupt/);
    rejects(Buffer.concat([bytes, Buffer.alloc(8)]), /truncated or corrupt/);
    rejects(Buffer.from('{"not":"an index"}'.padEnd(80, ' ')), /bad magic/);
    const version = Buffer.from(bytes);
    version.writeUInt32LE(99, 4);
    rejects(version, /format version 99/);
    const count = Buffer.from(bytes);
    count.writeUInt32LE(count.readUInt32LE(6 * 4) + 1, 6 * 4);
    rejects(count, /truncated or corrupt/);
  });

  it('verify passes a sound buffer and names the broken invariant in one that opens but is damaged inside', () => {
    const bytes = encodeFlatLexical(live);
    FlatLexicalIndex.open(bytes).verify();
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, HEADER_WORDS);
    const header = Object.fromEntries(Object.entries(HEADER).map(([name, at]) => [name, words[at]!])) as HeaderWords;
    const { sections } = layoutOf(header);
    const damaged = (name: keyof typeof sections, element: number, value: number): FlatLexicalIndex => {
      const copy = Buffer.from(bytes);
      const { offset, width } = sections[name];
      copy.writeUIntLE(value, offset + element * width, width);
      return FlatLexicalIndex.open(copy);
    };
    expect(() => damaged('postingDocs', 3, header.documents).verify()).toThrow(/posting names document 300 of 300/);
    expect(() => damaged('sorted', 0, 1).verify()).toThrow(/sorted order is not a permutation/);
    expect(() => damaged('prefixRank', 0, 1).verify()).toThrow(/prefix ranks and their inverse disagree/);
    expect(() => damaged('charSets', 0, 0).verify()).toThrow(/typo table disagrees/);
    expect(() => damaged('lengthStarts', 1, 0xffffff)).toThrow(/length starts go down/);
  });
});
