import { describe, expect, it } from 'vitest';
import { assertAbstainSetting, BUNDLED_RELEVANCE, thresholdFor } from '../../src/search/abstention.js';
import { featureRows, MODE_FEATURES, nameMatch, ORDERING_FEATURES, relevance, type RankedEvidence, type RelevanceModel } from '../../src/search/relevance.js';
import { CATALOG_KINDS } from '../../src/search/rerank.js';
import { SEARCH_MODES } from '../../src/types.js';

const terms = new Set(['merg', 'pdf', 'file']);
const ranked: RankedEvidence[] = [
  { id: 'a', name: 'pdf-tools', order: 0.9, cosine: 0.7, centered: 0.5, lexical: 8, coverage: 1 },
  { id: 'b', name: 'docx', order: 0.5, cosine: 0.4, centered: 0.2, lexical: 0, coverage: 0 },
  { id: 'c', name: 'xlsx', order: 0.5, cosine: 0.3, centered: 0.1, lexical: 2, coverage: 0.3 },
];
const query = { terms, denseFirst: 'a', lexicalFirst: 'a', bestLexical: 8, bestCoverage: 1, secondCentered: 0.2 };

describe('featureRows', () => {
  it('gives ordering features per hit and query features shared by every hit', () => {
    const rows = featureRows(ranked, query, ['order', 'rank', 'topCosine', 'centeredMargin', 'firstLexical', 'agree', 'nameMatch']);
    expect(rows[0]).toEqual([0.9, -0, 0.7, expect.closeTo(0.3, 10), 1, 1, 0.5]);
    expect(rows[2]).toEqual([0.5, -Math.log(3), 0.7, expect.closeTo(0.3, 10), 1, 1, 0.5]);
  });

  it('is empty for an empty list', () => {
    expect(featureRows([], query, MODE_FEATURES.hybrid)).toEqual([]);
  });
});

describe('nameMatch', () => {
  it('is the share of the name words the query contains', () => {
    expect(nameMatch('pdf-tools', new Set(['pdf']))).toBe(0.5);
    expect(nameMatch('getWeather', new Set(['weather', 'get']))).toBe(1);
    expect(nameMatch('---', new Set(['pdf']))).toBe(0);
  });
});

describe('relevance', () => {
  const model: RelevanceModel = {
    answerable: { features: ['topCosine'], mean: [0.5], scale: [0.1], weights: [1], bias: 0 },
    hit: { features: ['order', 'rank', 'topCosine'], mean: [0, 0, 0], scale: [1, 1, 1], weights: [2, 1, 3], bias: -2 },
  };

  it('is P(answerable) × P(hit fits): never rising down the list, the whole list moved by query features', () => {
    const answerable = 1 / (1 + Math.exp(-(0.7 - 0.5) / 0.1));
    const hit = 1 / (1 + Math.exp(-(-2 + 2 * 0.9 + 0 + 3 * 0.7)));
    expect(relevance(model, ranked, query)[0]).toBeCloseTo(answerable * hit, 10);
    const scores = relevance(model, ranked, query);
    expect(scores[0]).toBeGreaterThan(scores[1]!);
    expect(scores[1]).toBeGreaterThan(scores[2]!);
    const weaker = relevance(
      model,
      ranked.map((hit) => ({ ...hit, cosine: (hit.cosine ?? 0) - 0.3 })),
      query,
    );
    weaker.forEach((score, i) => expect(score).toBeLessThan(scores[i]!));
  });
});

describe('the bundled models', () => {
  for (const kind of CATALOG_KINDS) {
    it.each(SEARCH_MODES)(`${kind}, %s: uses only features its mode computes, ordering weights ≥ 0, strict above balanced`, (mode) => {
      const { answerable, hit } = BUNDLED_RELEVANCE[kind].models[mode];
      for (const name of [...answerable.features, ...hit.features]) expect(MODE_FEATURES[mode]).toContain(name);
      for (const name of answerable.features) expect(ORDERING_FEATURES).not.toContain(name);
      hit.features.forEach((name, j) => {
        if (ORDERING_FEATURES.includes(name)) expect(hit.weights[j]).toBeGreaterThanOrEqual(0);
      });
      for (const model of [answerable, hit])
        expect([model.mean.length, model.scale.length, model.weights.length]).toEqual([model.features.length, model.features.length, model.features.length]);
      const { strict, balanced } = BUNDLED_RELEVANCE[kind].thresholds[mode];
      expect(strict).toBeGreaterThanOrEqual(balanced);
      expect(balanced).toBeGreaterThan(0);
    });
  }

  it('records how each kind was fitted', () => {
    expect(BUNDLED_RELEVANCE.tools.provenance).toMatchObject({ script: 'scripts/fit-abstention.ts', splitSeed: expect.any(String), date: expect.any(String) });
    expect(BUNDLED_RELEVANCE.skills.provenance).toMatchObject({
      script: 'scripts/fit-relevance-kind.ts',
      command: expect.any(String),
      splitSeed: expect.any(String),
      data: expect.any(String),
      date: expect.any(String),
    });
  });
});

describe('abstention settings', () => {
  it('maps levels to the fitted thresholds and takes a number as the threshold itself', () => {
    const models = BUNDLED_RELEVANCE.skills;
    expect(thresholdFor(models, 'hybrid', 'off')).toBe(0);
    expect(thresholdFor(models, 'hybrid', 'balanced')).toBe(models.thresholds.hybrid.balanced);
    expect(thresholdFor(models, 'dense', 0.42)).toBe(0.42);
  });

  it('rejects anything else, naming the value', () => {
    expect(assertAbstainSetting('abstain', 'strict')).toBe('strict');
    expect(() => assertAbstainSetting('abstain', 'loose')).toThrow(
      'Expected `abstain` to be one of strict, balanced, off or a number from 0 to 1, got `"loose"`',
    );
    expect(() => assertAbstainSetting('abstain', 2)).toThrow(/got `2`/);
  });
});
