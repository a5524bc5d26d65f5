import fc from 'fast-check';
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { bodyText } from '../../src/lexical/body-text.js';
import { LexicalIndex } from '../../src/lexical/lexical-index.js';
import type { MiniSearchInternals } from '../../src/lexical/minisearch-internals.js';
import { MiniSearchPostings, treeTerms, treeVocabulary } from '../../src/lexical/minisearch-postings.js';
import { TermVocabulary, vocabularyTables } from '../../src/lexical/term-vocabulary.js';
import { tokenize } from '../../src/lexical/tokenize.js';
import { ENGINE_DEFAULTS } from '../../src/search/options.js';
import type { Skill } from '../../src/types.js';
import { makeSkill } from '../attachments/make-skill.js';

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

/** MiniSearch itself over the same documents: the reference the scorer must reproduce. */
function reference(skills: readonly Skill[]): MiniSearch {
  const search = new MiniSearch({ idField: 'id', fields: FIELDS, tokenize, processTerm: (term) => term, autoVacuum: false });
  for (const skill of skills) {
    search.add({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      whenToUse: skill.whenToUse ?? '',
      keywords: '',
      body: bodyText(skill.body),
      glosses: '',
    });
  }
  return search;
}

function referenceSearch(search: MiniSearch, query: string, weights?: ReadonlyMap<string, number>) {
  const boost = ENGINE_DEFAULTS.fieldBoosts;
  const known = (term: string) => (search as unknown as { _index: { has(term: string): boolean } })._index.has(term);
  return search.search(query, {
    fields: FIELDS,
    boost: { ...boost },
    prefix: (term) => term.length >= ENGINE_DEFAULTS.prefixMinLength,
    ...(weights === undefined
      ? { fuzzy: (term: string) => (term.length >= ENGINE_DEFAULTS.fuzzy.minLength && !known(term) ? ENGINE_DEFAULTS.fuzzy.ratio : false) }
      : { fuzzy: false, boostTerm: (term: string) => weights.get(term) ?? 1 }),
  });
}

describe('the lexical scorer reproduces MiniSearch', () => {
  it('returns the same documents in the same order with bit-identical scores, coverage and matched fields', () => {
    fc.assert(
      fc.property(catalogArbitrary, fc.array(queryArbitrary, { minLength: 1, maxLength: 12 }), (skills, queries) => {
        const index = new LexicalIndex();
        for (const skill of skills) index.upsert(skill);
        const search = reference(skills);
        for (const query of queries) {
          const want = referenceSearch(search, query).slice(0, 10);
          const got = index.search(query, 10, { explain: true });
          expect(got.map((hit) => [hit.id, hit.score])).toEqual(want.map((hit) => [hit.id, hit.score]));
          const distinct = new Set(tokenize(query));
          expect(got.map((hit) => hit.coverage)).toEqual(want.map((hit) => new Set(hit.queryTerms).size / distinct.size));
          got.forEach((hit, i) => {
            const fields: Record<string, string[]> = {};
            for (const [term, where] of Object.entries(want[i]!.match)) for (const field of where) fields[field] = [...(fields[field] ?? []), term];
            expect(hit.fields).toEqual(Object.fromEntries(FIELDS.filter((field) => fields[field]).map((field) => [field, fields[field]])));
          });
        }
      }),
      { numRuns: 80 },
    );
  });

  it('keeps MiniSearch’s order at every cut, ties in the order documents were first reached', () => {
    fc.assert(
      fc.property(catalogArbitrary, queryArbitrary, fc.constantFrom(1, 2, 3, 7, 1000), (skills, query, limit) => {
        // Each skill twice under another id: every score is tied at least once.
        const twins = skills.flatMap((skill) => [skill, { ...skill, id: `${skill.id}-twin` }]);
        const index = new LexicalIndex();
        for (const skill of twins) index.upsert(skill);
        const want = referenceSearch(reference(twins), query).slice(0, limit);
        expect(index.search(query, limit).map((hit) => [hit.id, hit.score])).toEqual(want.map((hit) => [hit.id, hit.score]));
      }),
      { numRuns: 60 },
    );
  });

  it('weights grouped terms like MiniSearch’s boostTerm and counts coverage per group', () => {
    const skills = WORDS.map((word, i) => makeSkill(`${word}-${i}`, { id: `s${i}`, description: `${WORDS[(i * 7) % WORDS.length]} ${word}` }));
    const index = new LexicalIndex();
    for (const skill of skills) index.upsert(skill);
    const weights = new Map([
      ['deploy', 1],
      ['container', 0.6],
      ['kubernetes', 0.4],
    ]);
    const got = index.search('deploy container kubernetes', 10, { terms: { weights, groups: [['deploy'], ['container', 'kubernetes']] } });
    const want = referenceSearch(reference(skills), 'deploy container kubernetes', weights).slice(0, 10);
    expect(got.map((hit) => [hit.id, hit.score])).toEqual(want.map((hit) => [hit.id, hit.score]));
    const both = got.find((hit) => hit.id === 's0');
    expect(both?.coverage).toBe(0.5);
  });

  it('scores the same after the flat vocabulary takes over typo lookups from the tree walk', () => {
    const skills = WORDS.map((word, i) => makeSkill(`${word}-${i}`, { id: `s${i}`, description: WORDS.slice(0, i + 1).join(' ') }));
    const index = new LexicalIndex();
    for (const skill of skills) index.upsert(skill);
    const search = reference(skills);
    const typos = ['kubernets', 'spredsheet', 'relase', 'containr', 'databse', 'invoise', 'extracton', 'migraton', 'auditng', 'deploymnt', 'profle'];
    for (const round of [1, 2]) {
      for (const query of typos) {
        const got = index.search(query, 10).map((hit) => [hit.id, hit.score]);
        expect(got, `${query}, round ${round}`).toEqual(
          referenceSearch(search, query)
            .slice(0, 10)
            .map((hit) => [hit.id, hit.score]),
        );
      }
    }
  });
});

describe('MiniSearchPostings', () => {
  it('looks terms up and lists the terms a prefix starts exactly as MiniSearch’s get and atPrefix do, order included', () => {
    // Enough first letters that some nodes hold more edges than are scanned, and astral ones.
    const letters = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'é', 'd', 'e', 'f', 'g', 'h', 'i', '部', '𝒳', '𝒴'), minLength: 1, maxLength: 7 });
    fc.assert(
      fc.property(fc.uniqueArray(letters, { minLength: 1, maxLength: 60 }), fc.array(letters, { minLength: 1, maxLength: 20 }), (random, words) => {
        // A family under one prefix, large enough that its nodes keep their spans of the vocabulary.
        const terms = [...new Set([...random, ...random.slice(0, 40).map((term) => `ab${term}`)])];
        const search = new MiniSearch({ fields: ['text'], tokenize: (text) => text.split(' '), processTerm: (term) => term });
        search.addAll(terms.map((term, id) => ({ id, text: term })));
        const internals = search as unknown as MiniSearchInternals;
        const postings = new MiniSearchPostings(internals);
        // Whole terms, their cut-off starts (most end inside an edge of the tree) and other words.
        for (const word of [...words, ...terms.flatMap((term) => [term, term.slice(0, 1), term.slice(0, -1)])]) {
          expect(postings.exact(word)).toBe(internals._index.get(word));
          expect([...postings.prefixed(word)]).toEqual([...internals._index.atPrefix(word)]);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('TermVocabulary', () => {
  it('finds exactly the terms, distances and order of MiniSearch’s fuzzyGet, over the tree’s vocabulary', () => {
    const letters = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'é'), minLength: 1, maxLength: 9 });
    fc.assert(
      fc.property(fc.uniqueArray(letters, { minLength: 1, maxLength: 60 }), letters, fc.integer({ min: 1, max: 3 }), (terms, word, distance) => {
        const search = new MiniSearch({ fields: ['text'], tokenize: (text) => text.split(' '), processTerm: (term) => term });
        search.addAll(terms.map((term, id) => ({ id, text: term })));
        const tree = (search as unknown as { _index: { _tree: Map<string, unknown>; fuzzyGet(term: string, max: number): Map<string, [unknown, number]> } })
          ._index;
        const want = [...tree.fuzzyGet(word, distance)].map(([term, [, d]]) => [term, d]);
        const { tables } = treeVocabulary(tree._tree);
        expect(tables).toEqual(vocabularyTables(treeTerms(tree._tree).terms));
        // Scanning, and through the pair index.
        for (const pairIndexAfter of [Number.POSITIVE_INFINITY, 0]) {
          const lookup = new TermVocabulary(tables, pairIndexAfter);
          expect(lookup.near(word, distance).map((near) => [lookup.term(near.position), near.distance])).toEqual(want);
        }
      }),
      { numRuns: 300 },
    );
  });
});
