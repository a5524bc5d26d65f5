import { describe, expect, it } from 'vitest';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { BUNDLED_RELEVANCE } from '../../src/search/abstention.js';
import { CROSS_LINGUAL_DEFAULTS } from '../../src/lang/options.js';
import { LEXICAL_DEFAULTS } from '../../src/lexical/options.js';
import { ENGINE_DEFAULTS, resolveEngineOptions } from '../../src/search/options.js';
import { VECTOR_INDEX_DEFAULTS } from '../../src/vector-index/options.js';

const embedder = createHashEmbedder({ dimensions: 16 });

describe('ENGINE_DEFAULTS', () => {
  it('holds the values every retrieval knob had before they were gathered here', () => {
    expect(ENGINE_DEFAULTS).toEqual({
      ann: 'hnsw',
      hnsw: { m: 16, efConstruction: 200, efSearch: 128 },
      k: 5,
      mode: 'hybrid',
      abstain: 'balanced',
      relevance: BUNDLED_RELEVANCE,
      shownCut: { relative: 0.1, floor: 0.25 },
      everydayGate: { cosine: 0.32, matchedTerms: 1, coverage: 0.6, bm25Share: 0.625 },
      denseShare: 0.65,
      longQuery: { skills: { terms: 24, denseShare: 0 }, tools: { terms: 32, denseShare: 0 } },
      coverageShare: 0,
      lexicalEvidence: { margin: 0, coverage: 0, denseShare: 0.65, keepAbove: false },
      boundaries: { penalty: 0.2, insteadBoost: 0.1 },
      evidenceRerank: true,
      fieldBoosts: { name: 2, whenToUse: 1.5, keywords: 1.5, description: 1, body: 0.3, glosses: 1 },
      fuzzy: { minLength: 5, ratio: 0.2 },
      prefixMinLength: 4,
      keepLexical: 2,
      keepLexicalWithin: 10,
      queryChunks: { minTerms: 16, max: 8, lexicalMargin: 1.5, lexicalCoverage: 0.2 },
      candidates: 50,
      batchSize: 512,
      queryCacheSize: 256,
      centring: true,
      crossLingual: { enabled: true, glossWeights: [1, 1, 1] },
    });
    expect(Object.isFrozen(ENGINE_DEFAULTS.fieldBoosts)).toBe(true);
  });

  it("takes each layer's knobs from the layer, so a layer used alone behaves like the engine", () => {
    expect(ENGINE_DEFAULTS).toMatchObject(LEXICAL_DEFAULTS);
    expect(ENGINE_DEFAULTS.fieldBoosts).toBe(LEXICAL_DEFAULTS.fieldBoosts);
    expect(ENGINE_DEFAULTS.hnsw).toBe(VECTOR_INDEX_DEFAULTS.hnsw);
    expect(ENGINE_DEFAULTS.ann).toBe(VECTOR_INDEX_DEFAULTS.ann);
    expect(ENGINE_DEFAULTS.crossLingual).toBe(CROSS_LINGUAL_DEFAULTS);
  });
});

describe('resolveEngineOptions', () => {
  it('merges a group of knobs field by field over its defaults', () => {
    const resolved = resolveEngineOptions({ embedder, fieldBoosts: { body: 0 }, hnsw: { efSearch: 64 }, queryChunks: { max: 2 } });
    expect(resolved.fieldBoosts).toEqual({ ...ENGINE_DEFAULTS.fieldBoosts, body: 0 });
    expect(resolved.hnsw).toEqual({ m: 16, efConstruction: 200, efSearch: 64 });
    expect(resolved.queryChunks).toEqual({ minTerms: 16, max: 2, lexicalMargin: 1.5, lexicalCoverage: 0.2 });
    expect(resolved.fuzzy).toEqual(ENGINE_DEFAULTS.fuzzy);
    expect(resolveEngineOptions({ embedder, crossLingual: { enabled: false } }).crossLingual).toEqual({ enabled: false, glossWeights: [1, 1, 1] });
  });

  it('takes one long-query ramp for every catalogue kind, or one per kind over its defaults', () => {
    const every = resolveEngineOptions({ embedder, longQuery: { terms: 40 } }).longQuery;
    expect(every).toEqual({ skills: { terms: 40, denseShare: 0 }, tools: { terms: 40, denseShare: 0 } });
    const tools = resolveEngineOptions({ embedder, longQuery: { tools: { denseShare: 0.3 } } }).longQuery;
    expect(tools).toEqual({ skills: ENGINE_DEFAULTS.longQuery.skills, tools: { ...ENGINE_DEFAULTS.longQuery.tools, denseShare: 0.3 } });
    expect(Object.isFrozen(tools.tools)).toBe(true);
  });

  it.each([
    [{ k: 0 }, 'Expected `k` to be a positive integer, got `0`'],
    // JSON would say `null`.
    [{ k: Number.NaN }, 'Expected `k` to be a positive integer, got `NaN`'],
    [{ denseShare: Number.POSITIVE_INFINITY }, 'Expected `denseShare` to be a number from 0 to 1, got `Infinity`'],
    [{ fuzzy: { ratio: 2 } }, 'Expected `fuzzy.ratio` to be a number from 0 to 1, got `2`'],
    [{ hnsw: { efSearch: 1.5 } }, 'Expected `hnsw.efSearch` to be a positive integer, got `1.5`'],
    [
      { fieldBoosts: { title: 1 } },
      'Expected an option of SkillSearchEngine, got `fieldBoosts.title`; its options under `fieldBoosts`: name, whenToUse, keywords, description, body, glosses',
    ],
    [{ fieldBoosts: 2 }, 'Expected `fieldBoosts` to be an object with fields among name, whenToUse, keywords, description, body, glosses, got `2`'],
    [
      { hnsw: { efSerch: 64 } },
      'Expected an option of SkillSearchEngine, got `hnsw.efSerch` (did you mean `hnsw.efSearch`?); its options under `hnsw`: m, efConstruction, efSearch',
    ],
    [{ fuzzy: { minLen: 3 } }, 'Expected an option of SkillSearchEngine, got `fuzzy.minLen` (did you mean `fuzzy.minLength`?)'],
    [{ queryChunks: { maximum: 3 } }, 'Expected an option of SkillSearchEngine, got `queryChunks.maximum` (did you mean `queryChunks.max`?)'],
    [{ everydayGate: { cosin: 0.3 } }, 'Expected an option of SkillSearchEngine, got `everydayGate.cosin` (did you mean `everydayGate.cosine`?)'],
    [{ longQuery: { term: 3 } }, 'Expected an option of SkillSearchEngine, got `longQuery.term` (did you mean `longQuery.terms`?)'],
    [{ longQuery: { tool: { terms: 3 } } }, 'Expected an option of SkillSearchEngine, got `longQuery.tool` (did you mean `longQuery.tools`?)'],
    [{ longQuery: { tools: { term: 3 } } }, 'Expected an option of SkillSearchEngine, got `longQuery.tools.term` (did you mean `longQuery.tools.terms`?)'],
    [
      { longQuery: { terms: 20, tools: { terms: 3 } } },
      'Expected an option of SkillSearchEngine, got `longQuery.terms`; its options under `longQuery`: skills, tools',
    ],
    [{ longQuery: { skills: { denseShare: 2 } } }, 'Expected `longQuery.skills.denseShare` to be a number from 0 to 1, got `2`'],
    [{ boundaries: { penalties: 0.1 } }, 'Expected an option of SkillSearchEngine, got `boundaries.penalties` (did you mean `boundaries.penalty`?)'],
    [{ shownCut: { flor: 0.1 } }, 'Expected an option of SkillSearchEngine, got `shownCut.flor` (did you mean `shownCut.floor`?)'],
    [
      { crossLingual: { enable: false } },
      'Expected an option of SkillSearchEngine, got `crossLingual.enable` (did you mean `crossLingual.enabled`?); its options under `crossLingual`: enabled, dictionaryDir, glossWeights',
    ],
    [{ keepLexicalWithin: 0 }, 'Expected `keepLexicalWithin` to be a positive integer, got `0`'],
    [{ boundaries: { penalty: 2 } }, 'Expected `boundaries.penalty` to be a number from 0 to 1, got `2`'],
    [{ shownCut: { relative: -1 } }, 'Expected `shownCut.relative` to be a number from 0 to 1, got `-1`'],
    [{ lexicalEvidence: { cover: 1 } }, 'Expected an option of SkillSearchEngine, got `lexicalEvidence.cover` (did you mean `lexicalEvidence.coverage`?)'],
    [{ crossLingual: { glossWeights: [0, 0] } }, 'Expected `crossLingual.glossWeights` to be a list of non-negative numbers, one above 0, got `[0,0]`'],
    [{ queryChunks: { lexicalCoverage: 1.5 } }, 'Expected `queryChunks.lexicalCoverage` to be a number from 0 to 1, got `1.5`'],
    [{ prefixMinLength: 'four' }, 'Expected `prefixMinLength` to be a positive integer, got `"four"`'],
    [{ centring: 'off' }, 'Expected `centring` to be true or false, got `"off"`'],
  ])('refuses %j with one line naming the knob and the value', (options, message) => {
    expect(() => resolveEngineOptions({ embedder, ...(options as object) })).toThrow(`skill-search: ${message}`);
  });
});
