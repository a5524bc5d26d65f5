import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Bm25Scorer } from '../../src/lexical/bm25-scorer.js';
import { FIELD_COUNT } from '../../src/lexical/lexical-entry.js';
import { LexicalIndex } from '../../src/lexical/lexical-index.js';
import { rankHybrid } from '../../src/search/candidates.js';
import { ENGINE_DEFAULTS } from '../../src/search/options.js';
import {
  BUNDLED_RERANKERS,
  CATALOG_KINDS,
  catalogKind,
  RERANK_FEATURES,
  rerankedOrders,
  rerankRows,
  type RerankFeature,
  type RerankModel,
} from '../../src/search/rerank.js';
import type { Skill } from '../../src/types.js';
import { KIND_SKILLS, KIND_TOOLS } from './fixtures.js';

const terms = new Set(['fastq', 'pars', 'file']);
// `sarif` wins densely on one common word; `fastq-tools` matches two rare words, one in its name.
const candidates = [
  { name: 'sarif-parsing', order: 0.9, centered: 0.5, plain: 0.7, lexical: 10, coverage: 1 / 3 },
  { name: 'docx', order: 0.7, centered: 0.4, plain: 0.8, lexical: 0, coverage: 0 },
  { name: 'fastq-tools', order: 0.6, centered: 0.2, plain: 0.6, lexical: 80, coverage: 2 / 3 },
  { name: 'other', order: 0.1, centered: 0.1, plain: 0.4, lexical: 0, coverage: 0 },
];

/** A model that reads `features` with unit scale and the given weights. */
function model(features: RerankFeature[], weights: number[], depth: number, lexicalDepth = 0, temperature = 1): RerankModel {
  return {
    version: 1,
    provenance: {},
    depth,
    lexicalDepth,
    temperature,
    features,
    mean: features.map(() => 0),
    scale: features.map(() => 1),
    weights,
  };
}

describe('rerankRows', () => {
  it('measures each candidate’s lexical evidence against the query’s other candidates', () => {
    const names: RerankFeature[] = [
      'lexical',
      'coverage',
      'matched',
      'lexicalFirst',
      'lexicalMargin',
      'lexicalRank',
      'denseRank',
      'coverageGap',
      'denseOnly',
      'nameTerm',
      'dense',
      'plain',
    ];
    const rows = rerankRows(candidates, terms, names);
    const column = (name: RerankFeature): number[] => rows.map((row) => row[names.indexOf(name)]!);
    expect(column('lexical')).toEqual([0.125, 0, 1, 0]);
    expect(column('lexicalFirst')).toEqual([0, 0, 1, 0]);
    expect(column('lexicalMargin')[2]).toBeCloseTo(Math.log(8));
    expect(column('lexicalRank')).toEqual([0.5, 0, 1, 0]);
    expect(column('denseRank')).toEqual([1, 0.5, 1 / 3, 0.25]);
    expect(column('coverageGap')[0]).toBeCloseTo(-1 / 3);
    expect(column('denseOnly')).toEqual([0, 1, 0, 1]);
    expect(column('matched')).toEqual([Math.log(2), 0, Math.log(3), 0]);
    expect(column('nameTerm')).toEqual([0.5, 0, 0.5, 0]);
    column('dense').forEach((value, i) => expect(value).toBeCloseTo([1, 0.75, 0.25, 0][i]!));
    column('plain').forEach((value, i) => expect(value).toBeCloseTo([0.75, 1, 0.5, 0][i]!));
  });

  it('computes only the rows asked for, each still measured against every candidate', () => {
    const names = Object.keys(RERANK_FEATURES) as RerankFeature[];
    const all = rerankRows(candidates, terms, names);
    expect(rerankRows(candidates, terms, names, [2, 0])).toEqual([all[2], all[0]]);
    expect(rerankRows(candidates, terms, names, [])).toEqual([]);
  });

  it('reads the names of the re-ranked pool alone', () => {
    const read: string[] = [];
    const named = candidates.map((c) => ({
      ...c,
      get name() {
        read.push(c.name);
        return c.name;
      },
    }));
    const orders = rerankedOrders(named, terms, model(['name', 'nameTerm'], [1, 1], 2));
    expect(orders).toEqual(rerankedOrders(candidates, terms, model(['name', 'nameTerm'], [1, 1], 2)));
    expect(new Set(read)).toEqual(new Set(['sarif-parsing', 'docx']));
  });
});

describe('IDF evidence', () => {
  // `sarif-parsing` matched one common word, `fastq-tools` two, among them the request's rarest.
  const weighted = [
    { ...candidates[0]!, weightedCoverage: 0.1, rarest: 0.2 },
    candidates[1]!,
    { ...candidates[2]!, weightedCoverage: 0.9, rarest: 1 },
    candidates[3]!,
  ];

  it('reads each match’s IDF-weighted coverage and rarest word', () => {
    const names: RerankFeature[] = ['weighted', 'weightedGap', 'rarest', 'singleCommon'];
    const rows = rerankRows(weighted, terms, names);
    const column = (name: RerankFeature): number[] => rows.map((row) => row[names.indexOf(name)]!);
    expect(column('weighted')).toEqual([0.1, 0, 0.9, 0]);
    column('weightedGap').forEach((value, i) => expect(value).toBeCloseTo([-0.8, -0.9, 0, -0.9][i]!));
    expect(column('rarest')).toEqual([0.2, 0, 1, 0]);
    // Only sarif matched a single word, and a common one.
    expect(column('singleCommon')).toEqual([0.8, 0, 0, 0]);
  });

  it('brings the best IDF-weighted match into the pool, wherever fusion and BM25 put it', () => {
    // BM25 ranks `fastq-tools` below `sarif-parsing` here, and fusion last of the matches.
    const far = [{ ...weighted[0]!, lexical: 90 }, weighted[1]!, { ...weighted[3]!, name: 'x' }, { ...weighted[2]!, order: 0.05 }];
    const rare = model(['rarest'], [5], 2, 1);
    expect(rerankedOrders(far, terms, rare)[3]).toBe(0.05);
    const orders = rerankedOrders(far, terms, { ...rare, weightedDepth: 1 });
    expect(orders[3]).toBe(0.9);
  });
});

describe('agreement features', () => {
  it('reads the request’s share in the name and whether dense and BM25 agree on their first', () => {
    const names: RerankFeature[] = ['nameCoverage', 'agree'];
    // `fastq-tools` is BM25's first; `sarif-parsing` is the dense first.
    expect(rerankRows(candidates, terms, names)).toEqual([
      [1 / 3, 0],
      [0, 0],
      [1 / 3, 0],
      [0, 0],
    ]);
    const agreeing = candidates.map((c, i) => (i === 2 ? { ...c, centered: 0.9 } : c));
    expect(rerankRows(agreeing, terms, names).map((row) => row[1])).toEqual([0, 0, 1, 0]);
  });
});

describe('shared name words', () => {
  it('weighs a matched name word by how many candidates’ names share it', () => {
    const pdfTerms = new Set(['pdf', 'form', 'court']);
    const pdfs = [
      { name: 'pdf', order: 0.9, centered: 0.5, plain: 0.5, lexical: 10, coverage: 1 / 3 },
      { name: 'pdf', order: 0.8, centered: 0.5, plain: 0.5, lexical: 10, coverage: 1 / 3 },
      { name: 'court-pdf-form', order: 0.7, centered: 0.5, plain: 0.5, lexical: 10, coverage: 1 },
      { name: 'docx', order: 0.6, centered: 0.5, plain: 0.5, lexical: 0, coverage: 0 },
    ];
    const rows = rerankRows(pdfs, pdfTerms, ['name', 'nameSpecific', 'nameGeneric']);
    // All three pdf skills match every name word they have…
    expect(rows.slice(0, 3).map((row) => row[0])).toEqual([1, 1, 1]);
    // …but `pdf` is in three names, `court` and `form` in one.
    expect(rows[0]![1]).toBeCloseTo(1 / 3);
    expect(rows[2]![1]).toBeCloseTo((1 / 3 + 1 + 1) / 3);
    expect(rows[0]![2]).toBeCloseTo(Math.log(3));
    expect(rows[2]![2]).toBeCloseTo(Math.log(5 / 3));
    expect(rows[3]).toEqual([0, 0, 0]);
  });
});

describe('rerankedOrders', () => {
  it('reorders the pool by the model and gives each member the ordering score of its new place', () => {
    const orders = rerankedOrders(candidates, terms, model(['lexical'], [5], 3));
    expect(orders[2]).toBe(0.9);
    expect(orders[0]).toBe(0.7);
    expect(orders[1]).toBe(0.6);
    expect(orders[3]).toBe(0.1);
  });

  it('brings BM25’s first hit into the pool from wherever fusion put it', () => {
    const far = [...candidates.slice(0, 2), { ...candidates[3]!, name: 'x' }, { ...candidates[2]!, order: 0.05 }];
    expect(rerankedOrders(far, terms, model(['lexical'], [5], 2))[3]).toBe(0.05);
    const orders = rerankedOrders(far, terms, model(['lexical'], [5], 2, 1));
    expect(orders[3]).toBe(0.9);
    expect(orders[2]).toBe(0.1);
  });

  it('keeps a candidate BM25’s first hit pushed out of the pool right below it when the pool stays on top', () => {
    const far = [...candidates.slice(0, 2), { ...candidates[3]!, name: 'x', order: 0.5 }, { ...candidates[2]!, order: 0.05 }];
    const pushed = model(['lexical', 'denseOnly'], [5, -5], 2, 1);
    // Pool: sarif (0.9), docx (0.7), fastq (0.05); the model puts docx last.
    expect(rerankedOrders(far, terms, pushed)[1]).toBe(0.05);
    const orders = rerankedOrders(far, terms, { ...pushed, poolStaysTop: true });
    expect(orders[3]).toBe(0.9);
    expect(orders[0]).toBe(0.7);
    expect(orders[1]).toBeGreaterThan(0.5);
    expect(orders[1]).toBeLessThan(0.7);
  });

  it('keeps the fused first in place unless the challenger leads it by minLead', () => {
    // Scores: sarif 0.9 + 5 · 10/80 = 1.525, fastq 0.6 + 5 = 5.6: fastq leads by 4.075.
    const lexical = model(['lexical'], [5], 3);
    expect(rerankedOrders(candidates, terms, { ...lexical, minLead: 4 })[2]).toBe(0.9);
    const kept = rerankedOrders(candidates, terms, { ...lexical, minLead: 5 });
    expect(kept[0]).toBe(0.9);
    // The places after the first are still reordered.
    expect(kept[2]).toBe(0.7);
    expect(kept[1]).toBe(0.6);
  });

  it('keeps the fused order when the ordering score outweighs the evidence, or when off', () => {
    expect(rerankedOrders(candidates, terms, model(['lexical'], [0.01], 3, 0, 10))).toEqual(candidates.map((c) => c.order));
    expect(rerankedOrders(candidates, terms, model(['lexical'], [5], 0))).toEqual(candidates.map((c) => c.order));
  });
});

describe('rankHybrid with the evidence re-ranker', () => {
  const fusion = { ...ENGINE_DEFAULTS, boundaries: { penalty: 0, insteadBoost: 0 } };
  const dense = [
    { id: 'sarif', cosine: 0.6, centered: 0.5, plain: 0.6 },
    { id: 'fastq', cosine: 0.3, centered: 0.2, plain: 0.3 },
  ];
  const lexical = [
    { id: 'fastq', score: 80, coverage: 2 / 3 },
    { id: 'sarif', score: 10, coverage: 1 / 3 },
  ];
  const nameOf = (id: string): string => (id === 'fastq' ? 'fastq-tools' : 'sarif-parsing');
  const denseOf = (): { cosine: number; centered: number; plain: number } => ({ cosine: 0, centered: 0, plain: 0 });
  const first = (evidenceRerank: boolean | RerankModel): string =>
    rankHybrid(dense, 0.1, lexical, denseOf, { ...fusion, evidenceRerank }, terms, 2, nameOf).ranked[0]!.id;

  it('puts a specific lexical match above a dense match on one common word', () => {
    expect(first(false)).toBe('sarif');
    expect(first(model(['coverage', 'lexical'], [2, 2], 5))).toBe('fastq');
  });

  it('passes each lexical match’s IDF evidence to the model', () => {
    // Equal BM25 and coverage; only the rarity of the matched word tells them apart.
    const tied = [
      { id: 'fastq', score: 10, coverage: 1 / 3, weightedCoverage: 0.6, rarest: 1 },
      { id: 'sarif', score: 10, coverage: 1 / 3, weightedCoverage: 0.1, rarest: 0.2 },
    ];
    const rank = (weights: number[]): string =>
      rankHybrid(dense, 0.1, tied, denseOf, { ...fusion, evidenceRerank: model(['rarest'], weights, 5) }, terms, 2, nameOf).ranked[0]!.id;
    expect(rank([0])).toBe('sarif');
    expect(rank([5])).toBe('fastq');
  });
});

describe('the bundled re-rankers', () => {
  it.each(CATALOG_KINDS)('%s: a complete model over known features, on by default', (kind) => {
    const bundled = BUNDLED_RERANKERS[kind];
    const known = Object.keys(RERANK_FEATURES);
    expect(bundled.features.every((name) => known.includes(name))).toBe(true);
    for (const values of [bundled.mean, bundled.scale, bundled.weights]) expect(values).toHaveLength(bundled.features.length);
    expect(bundled.scale.every((value) => value > 0)).toBe(true);
    expect(ENGINE_DEFAULTS.evidenceRerank).toBe(true);
    // Every fitted constant names the script that fitted it (skills: fit-rerank.ts; tools: choose-tools-ranker.ts) and its split seed.
    expect(existsSync(new URL(`../../${String(bundled.provenance['script'])}`, import.meta.url))).toBe(true);
    expect(bundled.provenance['splitSeed']).toBe('skill-search-split-1');
    // Fitted on the fused list the engine builds by default (centred or plain dense order).
    expect(bundled.provenance['centring']).toBe(ENGINE_DEFAULTS.centring);
  });
});

/** Field lengths of documents, each `[body, description]` distinct terms (the name 1, the other fields 0). */
function lengths(...documents: (readonly [number, number])[]): Uint32Array {
  const out = new Uint32Array(documents.length * FIELD_COUNT);
  documents.forEach(([body, description], doc) => {
    out[doc * FIELD_COUNT] = 1;
    out[doc * FIELD_COUNT + 3] = description;
    out[doc * FIELD_COUNT + 4] = body;
  });
  return out;
}

describe('catalogKind', () => {
  it('reads a document as a skill by its body or a description of 12 distinct terms', () => {
    expect(catalogKind(lengths([40, 3]))).toBe('skills');
    expect(catalogKind(lengths([0, 12]))).toBe('skills');
    expect(catalogKind(lengths([0, 11]))).toBe('tools');
  });

  it('takes the majority, an exact half and an empty catalogue reading as skills', () => {
    expect(catalogKind(lengths([0, 5], [0, 5], [30, 5]))).toBe('tools');
    expect(catalogKind(lengths([0, 5], [0, 20], [30, 5]))).toBe('skills');
    expect(catalogKind(lengths([0, 5], [30, 5]))).toBe('skills');
    expect(catalogKind(new Uint32Array(0))).toBe('skills');
  });

  it('leaves out the slots of removed documents (every length 0)', () => {
    const withHoles = lengths([0, 5], [0, 0], [0, 0], [40, 2]);
    withHoles.fill(0, FIELD_COUNT, 3 * FIELD_COUNT);
    expect(catalogKind(withHoles)).toBe('skills');
    expect(catalogKind(lengths([0, 5]))).toBe('tools');
  });

  const tools = KIND_TOOLS;
  const skills = KIND_SKILLS;

  it('is read alike from the in-memory index and through its scorer, which the stored catalogue shares', () => {
    const index = (catalogue: readonly Skill[]): LexicalIndex => {
      const built = new LexicalIndex();
      for (const one of catalogue) built.upsert(one);
      return built;
    };
    expect(catalogKind(index(tools).fieldLengths)).toBe('tools');
    expect(catalogKind(new Bm25Scorer(index(tools)).fieldLengths)).toBe('tools');
    expect(catalogKind(index(skills).fieldLengths)).toBe('skills');
    // Mixed: the majority decides; removing the skills turns it back.
    const mixed = index([...tools, ...skills.slice(0, 2)]);
    expect(catalogKind(mixed.fieldLengths)).toBe('tools');
    mixed.upsert(skills[2]!);
    expect(catalogKind(mixed.fieldLengths)).toBe('skills');
    for (const one of skills) mixed.remove(one.id);
    expect(catalogKind(mixed.fieldLengths)).toBe('tools');
  });

  it('picks the bundled model of the catalogue’s kind', () => {
    const index = new LexicalIndex();
    for (const one of tools) index.upsert(one);
    expect(BUNDLED_RERANKERS[catalogKind(index.fieldLengths)]).toBe(BUNDLED_RERANKERS.tools);
    for (const one of skills) index.upsert(one);
    expect(BUNDLED_RERANKERS[catalogKind(index.fieldLengths)]).toBe(BUNDLED_RERANKERS.skills);
  });
});
