import { describe, expect, it } from 'vitest';
import { rankDense, rankHybrid, rankLexical } from '../../src/search/candidates.js';

const fusion = {
  denseShare: 0.9,
  longQuery: { terms: 32, denseShare: 0 },
  coverageShare: 0,
  lexicalEvidence: { margin: 0, coverage: 0, denseShare: 0.9, keepAbove: false },
  boundaries: { penalty: 0, insteadBoost: 0 },
  keepLexical: 2,
  keepLexicalWithin: 10,
};
const terms = new Set(['q']);
const nameOf = (id: string): string => `name-${id}`;
/** Twelve dense candidates, best first; `lex` matches lexically only and is far from the query densely. */
const dense = Array.from({ length: 12 }, (_, i) => ({ id: `d${i}`, cosine: 0.6 - i / 100, centered: 0.5 - i / 100, plain: 0.6 - i / 100 }));
const lexical = [{ id: 'lex', score: 9, coverage: 1 }];
const denseOf = (): { cosine: number; centered: number; plain: number } => ({ cosine: 0, centered: 0, plain: 0 });

describe('rankHybrid', () => {
  it('keeps the lexical ranker’s best hits within the first ten however weak their dense side', () => {
    const ids = rankHybrid(dense, 0.1, lexical, denseOf, fusion, terms, 12, nameOf).ranked.map((hit) => hit.id);
    expect(ids.indexOf('lex')).toBe(9);
    expect(
      rankHybrid(dense, 0.1, lexical, denseOf, { ...fusion, keepLexical: 0 }, terms, 13, nameOf)
        .ranked.map((hit) => hit.id)
        .indexOf('lex'),
    ).toBe(12);
  });

  it('leaves names the query gave exactly out, and reports the evidence of both rankers', () => {
    const { ranked, query } = rankHybrid(dense, 0.1, lexical, denseOf, fusion, terms, 3, nameOf, ['d0']);
    expect(ranked.map((hit) => hit.id)).toEqual(['d1', 'd2', 'd3']);
    expect(query).toMatchObject({ denseFirst: 'd0', lexicalFirst: 'lex', bestLexical: 9, bestCoverage: 1, secondCentered: 0.49, catalogCosine: 0.1 });
  });
});

describe('the dense order (centring)', () => {
  // `hub` is close to the query by plain cosine and to the catalogue's mean; `apart` wins once centred.
  const split = [
    { id: 'hub', cosine: 0.7, centered: 0.2, plain: 0.7 },
    { id: 'apart', cosine: 0.5, centered: 0.4, plain: 0.5 },
    { id: 'far', cosine: 0.1, centered: 0.3, plain: 0.1 },
  ];
  const noLexical = { ...fusion, denseShare: 1, lexicalEvidence: { ...fusion.lexicalEvidence, denseShare: 1 } };

  it('orders hybrid candidates by the centred cosine, or by the plain one with centring off', () => {
    const ids = (centring?: boolean): string[] =>
      rankHybrid(split, 0, [], denseOf, { ...noLexical, ...(centring === undefined ? {} : { centring }) }, terms, 3, nameOf).ranked.map((hit) => hit.id);
    expect(ids()).toEqual(['apart', 'far', 'hub']);
    expect(ids(false)).toEqual(['hub', 'apart', 'far']);
  });

  it('gives the relevance model the second-best centred cosine whatever orders the list', () => {
    const byPlain = [...split].sort((a, b) => b.plain - a.plain);
    expect(rankHybrid(byPlain, 0, [], denseOf, { ...noLexical, centring: false }, terms, 3, nameOf).query.secondCentered).toBe(0.3);
    expect(rankDense(byPlain, 0, terms, 3, nameOf).query.secondCentered).toBe(0.3);
  });
});

describe('rankHybrid with evidence and boundaries', () => {
  // `dense1` wins densely and shares one word; `clear` is BM25's clear first hit.
  const close = [
    { id: 'dense1', cosine: 0.6, centered: 0.5, plain: 0.6 },
    { id: 'clear', cosine: 0.3, centered: 0.2, plain: 0.3 },
    { id: 'other', cosine: 0.2, centered: 0.1, plain: 0.2 },
  ];
  const bm25 = [
    { id: 'clear', score: 9, coverage: 1 },
    { id: 'dense1', score: 2, coverage: 0.5 },
  ];
  const order = (options: Partial<typeof fusion>, boundaries?: Parameters<typeof rankHybrid>[9]): string[] =>
    rankHybrid(close, 0.1, bm25, denseOf, { ...fusion, ...options }, terms, 3, nameOf, [], boundaries).ranked.map((hit) => hit.id);

  it('keeps a clear lexical match first when the evidence gate holds', () => {
    expect(order({})[0]).toBe('dense1');
    expect(order({ lexicalEvidence: { margin: 2, coverage: 0.5, denseShare: 0.2, keepAbove: false } })[0]).toBe('clear');
    expect(order({ lexicalEvidence: { margin: 5, coverage: 0.5, denseShare: 0.2, keepAbove: false } })[0]).toBe('dense1');
  });

  it('scores a skill whose boundary the query falls on down, and the alternative it names up', () => {
    const lookup = {
      of: (id: string) => (id === 'dense1' ? { terms: new Set(['q']), instead: ['other-name'] } : { terms: new Set<string>(), instead: [] }),
      named: (name: string) => (name === 'other-name' ? ['other'] : undefined),
    };
    expect(order({}, lookup)).toEqual(['dense1', 'clear', 'other']);
    expect(order({ boundaries: { penalty: 1, insteadBoost: 0.5 } }, lookup)).toEqual(['other', 'clear', 'dense1']);
    expect(order({ boundaries: { penalty: 1, insteadBoost: 0 } }, lookup)[0]).toBe('clear');
  });
});

describe('rankLexical', () => {
  it('orders by BM25 relative to the first hit', () => {
    const { ranked } = rankLexical(
      [
        { id: 'a', score: 8, coverage: 1 },
        { id: 'b', score: 2, coverage: 0.5 },
      ],
      terms,
      5,
      nameOf,
    );
    expect(ranked.map((hit) => [hit.id, hit.order])).toEqual([
      ['a', 1],
      ['b', 0.25],
    ]);
  });
});
