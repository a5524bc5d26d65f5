import { describe, expect, it } from 'vitest';
import { ENGINE_DEFAULTS } from '../../src/search/options.js';
import { boundedScore, denseShareFor, liftedScore, hybridScore, lexicalEvidenceShare, type Candidate, type QueryContext } from '../../src/search/fusion.js';

const ranking = { denseShare: 0.6, longQuery: { terms: 10, denseShare: 0.2 } };

/** `centered` and `plain` default to `dense`: the tests below are about the mixing, not the centring. */
function candidate(dense: number, lexical: number, coverage: number, centered = dense, plain = dense): Candidate {
  return { id: 'x', dense, centered, plain, lexical, coverage };
}

describe('denseShareFor', () => {
  it('keeps the short-query share up to the long-query length, then slides linearly to the long share at twice it', () => {
    expect(denseShareFor(1, ranking)).toBe(0.6);
    expect(denseShareFor(10, ranking)).toBe(0.6);
    expect(denseShareFor(15, ranking)).toBeCloseTo(0.4, 10);
    expect(denseShareFor(20, ranking)).toBeCloseTo(0.2, 10);
    expect(denseShareFor(500, ranking)).toBeCloseTo(0.2, 10);
  });

  it("with the engine's defaults, a pasted task statement of 36 distinct terms is fused with half the dense share, one of 48 by BM25 alone", () => {
    const skills = { denseShare: ENGINE_DEFAULTS.denseShare, longQuery: ENGINE_DEFAULTS.longQuery.skills };
    expect(denseShareFor(24, skills)).toBe(0.65);
    expect(denseShareFor(36, skills)).toBeCloseTo(0.325, 10);
    expect(denseShareFor(48, skills)).toBe(0);
  });

  it('a tool list keeps the full dense share to 32 distinct terms, half at 48', () => {
    const tools = { denseShare: ENGINE_DEFAULTS.denseShare, longQuery: ENGINE_DEFAULTS.longQuery.tools };
    expect(denseShareFor(32, tools)).toBe(0.65);
    expect(denseShareFor(48, tools)).toBeCloseTo(0.325, 10);
    expect(denseShareFor(64, tools)).toBe(0);
  });
});

describe('hybridScore', () => {
  const context: QueryContext = { bestLexical: 8, centring: true, denseMin: 0.2, denseMax: 0.6, denseShare: 0.6, coverageShare: 0 };

  it('reads the centred cosine, or the plain one with centring off', () => {
    expect(hybridScore(candidate(0.9, 0, 0, 0.6, 0.2), context)).toBeCloseTo(0.6, 10);
    expect(hybridScore(candidate(0.9, 0, 0, 0.6, 0.2), { ...context, centring: false })).toBe(0);
  });

  it('min-max normalises the cosine over the query candidates and mixes it with relative BM25', () => {
    expect(hybridScore(candidate(0.6, 8, 1), context)).toBeCloseTo(1, 10);
    // dense (0.4 − 0.2) / 0.4 = 0.5; lexical 4 / 8 = 0.5.
    expect(hybridScore(candidate(0.4, 4, 0.5), context)).toBeCloseTo(0.5, 10);
    expect(hybridScore(candidate(0.2, 0, 0), context)).toBe(0);
  });

  it('gives every candidate the full dense part when all cosines are equal', () => {
    const flat = { ...context, denseMin: 0.5, denseMax: 0.5 };
    expect(hybridScore(candidate(0.5, 0, 0), flat)).toBeCloseTo(0.6, 10);
  });
});

describe('lexicalEvidenceShare', () => {
  const gate = { margin: 2, coverage: 0.5, denseShare: 0.2, keepAbove: false };

  it('caps the dense share when BM25’s first hit is clear: well ahead of the second and covering enough of the query', () => {
    expect(
      lexicalEvidenceShare(
        0.65,
        [
          { score: 9, coverage: 0.5 },
          { score: 4, coverage: 0.5 },
        ],
        gate,
      ),
    ).toBe(0.2);
    expect(lexicalEvidenceShare(0.65, [{ score: 9, coverage: 1 }], gate)).toBe(0.2);
    expect(lexicalEvidenceShare(0.1, [{ score: 9, coverage: 1 }], gate)).toBe(0.1);
  });

  it('leaves the share alone for a close second, a low coverage, no lexical hit, or margin 0', () => {
    expect(
      lexicalEvidenceShare(
        0.65,
        [
          { score: 9, coverage: 1 },
          { score: 5, coverage: 1 },
        ],
        gate,
      ),
    ).toBe(0.65);
    expect(lexicalEvidenceShare(0.65, [{ score: 9, coverage: 0.25 }], gate)).toBe(0.65);
    expect(lexicalEvidenceShare(0.65, [], gate)).toBe(0.65);
    expect(lexicalEvidenceShare(0.65, [{ score: 9, coverage: 1 }], { ...gate, margin: 0 })).toBe(0.65);
  });
});

describe('boundedScore and liftedScore', () => {
  it('scales the score down by the penalty once per boundary term, at most twice, never below 0', () => {
    expect(boundedScore(0.9, 0, 0.2)).toBe(0.9);
    expect(boundedScore(0.9, 1, 0.2)).toBeCloseTo(0.72, 10);
    expect(boundedScore(0.9, 5, 0.2)).toBeCloseTo(0.54, 10);
    expect(boundedScore(0.9, 2, 0.6)).toBe(0);
  });

  it('moves an alternative part of the way to 1, keeping the order of the scores it lifts', () => {
    expect(liftedScore(0.5, 0, 0.1)).toBe(0.5);
    expect(liftedScore(0.5, 1, 0.1)).toBeCloseTo(0.55, 10);
    expect(liftedScore(0.5, 3, 0.1)).toBeCloseTo(0.6, 10);
    expect(liftedScore(1, 2, 0.5)).toBe(1);
    expect(liftedScore(0.4, 1, 0.3)).toBeLessThan(liftedScore(0.5, 1, 0.3));
  });
});
