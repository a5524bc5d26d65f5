import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyText } from '../../src/lexical/body-text.js';
import { LexicalIndex } from '../../src/lexical/lexical-index.js';
import { BM25 } from '../../src/lexical/bm25-scorer.js';
import { FUZZY_WEIGHT, MAX_FUZZY, PREFIX_WEIGHT } from '../../src/lexical/term-expansion.js';
import { lexicalEntry } from '../../src/lexical/lexical-entry.js';
import { TermVocabulary } from '../../src/lexical/term-vocabulary.js';
import { vocabularyTables } from '../../src/lexical/vocabulary-tables.js';
import { tokenize } from '../../src/lexical/tokenize.js';
import { ENGINE_DEFAULTS } from '../../src/search/options.js';
import type { Skill } from '../../src/types.js';
import { makeSkill } from '../attachments/make-skill.js';
import { levenshtein } from './helpers.js';

// Word families that exercise prefix expansion (deploy/deployment/deployments), typo tolerance
// (kubernetes/kubernets), identifiers split into parts, duplicates and a Chinese run.
const WORDS = [
  'deploy',
  'deployment',
  'deployments',
  'kubernetes',
  'container',
  'containers',
  'pdf',
  'pdf-extract',
  'extraction',
  'extract',
  'invoice',
  'invoices',
  'spreadsheet',
  'spreadsheets',
  'release',
  'releases',
  'notes',
  'migration',
  'migrate',
  'database',
  'dataset',
  'data',
  'getUserProfile',
  'profile',
  '部署容器',
  'audit',
  'auditing',
] as const;
const QUERY_WORDS = [...WORDS, 'kubernets', 'spredsheet', 'relase', 'migrat', 'deplo', 'containr', 'databse', 'unknownword', 'the', 'a'] as const;
const FIELDS = ['name', 'whenToUse', 'keywords', 'description', 'body', 'glosses'];

const text = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 8 }).map((words) => words.join(' '));
const skillArbitrary = (i: number) =>
  fc.record({ name: fc.constantFrom(...WORDS), description: text, whenToUse: text, body: text }).map(
    ({ name, description, whenToUse, body }): Skill =>
      makeSkill(`${name}-${i}`, {
        id: `s${i}`,
        description,
        whenToUse,
        body: `# Title\n\n${body}`,
        contentHash: `h${i}-${description}-${whenToUse}-${body}`,
      }),
  );
const catalogArbitrary = fc.integer({ min: 1, max: 24 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => skillArbitrary(i))));
const queryArbitrary = fc.array(fc.constantFrom(...QUERY_WORDS), { minLength: 1, maxLength: 7 }).map((words) => words.join(' '));

interface ReferenceHit {
  readonly id: string;
  readonly score: number;
  readonly coverage: number;
  readonly fields: Record<string, string[]>;
}

/**
 * BM25+ written out by brute force, independently of the index: every document's fields
 * tokenised here, every vocabulary term compared with every query word, every sum recomputed.
 * Per query word: itself (weight 1), the longer terms it starts when long enough (prefix
 * weight), and, when the catalog lacks it, the terms within its edit distance (typo weight);
 * a document's score is the sum over words, expansions and fields, times the number of
 * distinct query words it matched.
 */
function reference(skills: readonly Skill[], query: string, weights?: ReadonlyMap<string, number>): ReferenceHit[] {
  const docs = skills.map((skill) => {
    const texts = [skill.name, skill.whenToUse ?? '', '', skill.description, bodyText(skill.body), ''];
    return texts.map((text) => {
      const tokens = tokenize(text);
      const tf = new Map<string, number>();
      for (const token of tokens) tf.set(token, (tf.get(token) ?? 0) + 1);
      return { tf, length: new Set(tokens).size };
    });
  });
  const n = docs.length;
  const vocabulary = new Set(docs.flatMap((fields) => fields.flatMap((field) => [...field.tf.keys()])));
  const average = FIELDS.map((_, f) => docs.reduce((sum, fields) => sum + fields[f]!.length, 0) / n);
  const boost: Readonly<Record<string, number>> = { ...ENGINE_DEFAULTS.fieldBoosts };
  const words = tokenize(query);
  const distinct = [...new Set(words)];
  const totals = new Map<number, number>();
  const matched = new Map<number, Set<string>>();
  const fields = new Map<number, Record<string, Set<string>>>();
  for (const word of words) {
    const expansions: [string, number][] = vocabulary.has(word) ? [[word, 1]] : [];
    const prefix = word.length >= ENGINE_DEFAULTS.prefixMinLength;
    if (prefix) {
      for (const term of vocabulary) {
        if (term.length > word.length && term.startsWith(word))
          expansions.push([term, (PREFIX_WEIGHT * term.length) / (term.length + 0.3 * (term.length - word.length))]);
      }
    }
    if (weights === undefined && word.length >= ENGINE_DEFAULTS.fuzzy.minLength && !vocabulary.has(word)) {
      const max = Math.min(MAX_FUZZY, Math.round(word.length * ENGINE_DEFAULTS.fuzzy.ratio));
      for (const term of vocabulary) {
        const distance = levenshtein(word, term);
        if (distance === 0 || distance > max || (prefix && term.length > word.length && term.startsWith(word))) continue;
        expansions.push([term, (FUZZY_WEIGHT * term.length) / (term.length + distance)]);
      }
    }
    for (const [term, weight] of expansions) {
      FIELDS.forEach((field, f) => {
        const holders = docs.flatMap((doc, i) => (doc[f]!.tf.has(term) ? [i] : []));
        const idf = Math.log(1 + (n - holders.length + 0.5) / (holders.length + 0.5));
        for (const i of holders) {
          const { tf: counts, length } = docs[i]![f]!;
          const tf = counts.get(term)!;
          const norm = BM25.k * (1 - BM25.b + (BM25.b * length) / average[f]!);
          const part = weight * (weights?.get(word) ?? 1) * boost[field]! * idf * (BM25.d + (tf * (BM25.k + 1)) / (tf + norm));
          totals.set(i, (totals.get(i) ?? 0) + part);
          matched.set(i, (matched.get(i) ?? new Set()).add(word));
          const byField = fields.get(i) ?? {};
          byField[field] = (byField[field] ?? new Set()).add(term);
          fields.set(i, byField);
        }
      });
    }
  }
  return [...totals].map(([i, total]) => ({
    id: skills[i]!.id,
    score: total * matched.get(i)!.size,
    coverage: matched.get(i)!.size / distinct.length,
    fields: Object.fromEntries(Object.entries(fields.get(i)!).map(([field, terms]) => [field, [...terms].sort()])),
  }));
}

const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));

/** The index's matches against the reference: the same documents, scores (1e-9), coverage and fields, in descending score order. */
function expectLikeReference(index: LexicalIndex, skills: readonly Skill[], query: string, weights?: ReadonlyMap<string, number>): number {
  const want = reference(skills, query, weights).sort((a, b) => b.score - a.score);
  const options = weights === undefined ? { explain: true } : { explain: true, terms: { weights, groups: [...weights.keys()].map((term) => [term]) } };
  const got = index.search(query, skills.length + 1, options);
  const byId = new Map(want.map((hit) => [hit.id, hit]));
  const problems: string[] = [];
  if (got.length !== want.length) problems.push(`${got.length} matches, expected ${want.length}`);
  got.forEach((hit, i) => {
    const twin = byId.get(hit.id);
    if (i > 0 && hit.score > got[i - 1]!.score) problems.push(`${hit.id} out of order`);
    if (twin === undefined) problems.push(`${hit.id} should not match`);
    else if (!close(hit.score, twin.score)) problems.push(`${hit.id}: score ${hit.score}, expected ${twin.score}`);
    else if (weights === undefined && hit.coverage !== twin.coverage) problems.push(`${hit.id}: coverage ${hit.coverage}, expected ${twin.coverage}`);
    else {
      const fields = Object.fromEntries(Object.entries(hit.fields ?? {}).map(([field, terms]) => [field, [...terms].sort()]));
      if (JSON.stringify(fields) !== JSON.stringify(Object.fromEntries(FIELDS.filter((f) => twin.fields[f]).map((f) => [f, twin.fields[f]]))))
        problems.push(`${hit.id}: fields ${JSON.stringify(fields)}, expected ${JSON.stringify(twin.fields)}`);
    }
  });
  expect(problems, query).toEqual([]);
  return want.length;
}

describe('the lexical index scores BM25+ like a brute-force reference', () => {
  it('returns the same documents with the same scores, coverage and matched fields', () => {
    let matches = 0;
    fc.assert(
      fc.property(catalogArbitrary, fc.array(queryArbitrary, { minLength: 1, maxLength: 12 }), (skills, queries) => {
        const index = new LexicalIndex();
        for (const skill of skills) index.upsert(skill);
        for (const query of queries) matches += expectLikeReference(index, skills, query);
      }),
      { numRuns: 80 },
    );
    expect(matches).toBeGreaterThan(500);
  });

  it('keeps the best documents at every cut', () => {
    fc.assert(
      fc.property(catalogArbitrary, queryArbitrary, fc.constantFrom(1, 2, 3, 7, 1000), (skills, query, limit) => {
        // Each skill twice under another id: every score is tied at least once.
        const twins = skills.flatMap((skill) => [skill, { ...skill, id: `${skill.id}-twin` }]);
        const index = new LexicalIndex();
        for (const skill of twins) index.upsert(skill);
        const want = reference(twins, query)
          .map((hit) => hit.score)
          .sort((a, b) => b - a)
          .slice(0, limit);
        const got = index.search(query, limit).map((hit) => hit.score);
        expect(got.length).toBe(want.length);
        got.forEach((score, i) => expect(close(score, want[i]!)).toBe(true));
      }),
      { numRuns: 60 },
    );
  });

  it('weights grouped terms and counts coverage per group', () => {
    const skills = WORDS.map((word, i) => makeSkill(`${word}-${i}`, { id: `s${i}`, description: `${WORDS[(i * 7) % WORDS.length]} ${word}` }));
    const index = new LexicalIndex();
    for (const skill of skills) index.upsert(skill);
    const weights = new Map([
      ['deploy', 1],
      ['container', 0.6],
      ['kubernet', 0.4],
    ]);
    expect(expectLikeReference(index, skills, 'deploy container kubernetes', weights)).toBeGreaterThan(3);
    const got = index.search('deploy container kubernetes', 10, { terms: { weights, groups: [['deploy'], ['container', 'kubernet']] } });
    expect(got.find((hit) => hit.id === 's0')?.coverage).toBe(0.5);
  });

  it('scores the same after removals and replacements as the reference over what is left (no stale postings)', () => {
    fc.assert(
      fc.property(catalogArbitrary, catalogArbitrary, fc.array(fc.nat(23)), queryArbitrary, (before, after, removed, query) => {
        const index = new LexicalIndex();
        for (const skill of before) index.upsert(skill);
        index.search(query, 5);
        for (const skill of after) index.upsert(skill);
        for (const i of removed) index.remove(`s${i}`);
        const gone = new Set(removed.map((i) => `s${i}`));
        const present = new Map<string, Skill>();
        for (const skill of [...before, ...after]) if (!gone.has(skill.id)) present.set(skill.id, skill);
        expectLikeReference(index, [...present.values()], query);
      }),
      { numRuns: 80 },
    );
  });
});

describe('LexicalIndex postings', () => {
  it('lists the terms a prefix starts, in code-unit order, after adds and removals', () => {
    const letters = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'é', 'd', '部', '𝒳', '𝒴'), minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(fc.uniqueArray(letters, { minLength: 1, maxLength: 60 }), fc.array(letters, { minLength: 1, maxLength: 20 }), (terms, words) => {
        const postings = new LexicalIndex();
        const entry = (id: string, term: string) => lexicalEntry(makeSkill(id, { id, description: '', body: '', contentHash: id }), term);
        terms.forEach((term, i) => postings.add(`d${i}`, entry(`d${i}`, term)));
        postings.sortedTerms();
        for (let i = 0; i < terms.length; i += 3) postings.remove(`d${i}`);
        postings.add('late', entry('late', words[0]!));
        const source = postings;
        const present = new Set<string>();
        for (const id of postings.ids()) {
          for (const term of tokenize(id === 'late' ? words[0]! : terms[Number(id.slice(1))]!)) present.add(term);
          for (const term of tokenize(id)) present.add(term);
        }
        const sorted = [...present].sort();
        expect(postings.sortedTerms()).toEqual(sorted);
        for (const word of [...words, ...sorted.map((term) => term.slice(0, 1))]) {
          expect([...source.prefixed(word)].map(([term]) => term)).toEqual(sorted.filter((term) => term.startsWith(word)));
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('LexicalIndex postings sorted terms', () => {
  const entry = (id: string, text: string) => lexicalEntry(makeSkill(id, { id, description: '', body: '', contentHash: id }), text);
  /** The sorted terms of a fresh index of `docs`. */
  const rebuilt = (docs: ReadonlyMap<string, string>) => {
    const postings = new LexicalIndex();
    for (const [id, text] of docs) postings.add(id, entry(id, text));
    return [...postings.sortedTerms()];
  };

  it('splices one edited document in place (a resident index leaves no term array per edit) and merges a large batch anew', () => {
    const postings = new LexicalIndex();
    const docs = new Map<string, string>(Array.from({ length: 400 }, (_, i) => [`d${i}`, `w${(i * 7919) % 1000}x common`] as const));
    for (const [id, text] of docs) postings.add(id, entry(id, text));
    const first = postings.sortedTerms();
    postings.remove('d5');
    docs.set('d5', 'zzzeditx qqqnewx');
    postings.add('d5', entry('d5', docs.get('d5')!));
    const second = postings.sortedTerms();
    expect(second).toBe(first);
    expect(second).toContain('zzzeditx');
    expect([...second]).toEqual(rebuilt(docs));
    for (let i = 0; i < 100; i += 1) {
      postings.remove(`d${i}`);
      docs.delete(`d${i}`);
    }
    const third = postings.sortedTerms();
    expect(third).not.toBe(first);
    expect([...third]).toEqual(rebuilt(docs));
  });
});

describe('TermVocabulary', () => {
  it('finds exactly the terms within the distance, with their distances, in vocabulary order', () => {
    const letters = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'é'), minLength: 1, maxLength: 9 });
    fc.assert(
      fc.property(fc.uniqueArray(letters, { minLength: 1, maxLength: 60 }), letters, fc.integer({ min: 1, max: 3 }), (terms, word, distance) => {
        const want = terms.flatMap((term) => (levenshtein(word, term) <= distance ? [[term, levenshtein(word, term)]] : []));
        // Scanning, and through the pair index.
        for (const pairIndexAfter of [Number.POSITIVE_INFINITY, 0]) {
          const lookup = new TermVocabulary(vocabularyTables(terms), pairIndexAfter);
          expect(lookup.near(word, distance).map((near) => [lookup.term(near.position), near.distance])).toEqual(want);
        }
      }),
      { numRuns: 300 },
    );
  });
});
