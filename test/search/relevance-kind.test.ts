/**
 * The relevance models per catalogue kind: the rule that picks the re-ranker (`catalogKind`)
 * picks the relevance models and thresholds too, for the live engine as the catalogue changes.
 */
import { describe, expect, it } from 'vitest';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { BUNDLED_RELEVANCE, relevanceFor } from '../../src/search/abstention.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import { KIND_SKILLS, KIND_TOOLS } from './fixtures.js';

const tools = KIND_TOOLS;
const skills = KIND_SKILLS;

describe('relevanceFor', () => {
  it('takes the entry of the catalogue kind, or a caller’s one set for every kind', () => {
    expect(relevanceFor(BUNDLED_RELEVANCE, 'skills')).toBe(BUNDLED_RELEVANCE.skills);
    expect(relevanceFor(BUNDLED_RELEVANCE, 'tools')).toBe(BUNDLED_RELEVANCE.tools);
    const own = BUNDLED_RELEVANCE.tools;
    expect(relevanceFor(own, 'skills')).toBe(own);
  });

  it('bundles a skill-library entry whose hybrid threshold differs from the tool lists’', () => {
    expect(BUNDLED_RELEVANCE.skills.thresholds.hybrid.balanced).not.toBe(BUNDLED_RELEVANCE.tools.thresholds.hybrid.balanced);
  });
});

describe('the engine', () => {
  const embedder = createHashEmbedder({ dimensions: 32 });

  it('scores with the models of its catalogue’s kind, and follows the catalogue when it changes kind', async () => {
    const engine = await SkillSearchEngine.open({ embedder, ann: 'exact' });
    await engine.sync(tools);
    expect(engine.threshold('hybrid')).toBe(BUNDLED_RELEVANCE.tools.thresholds.hybrid.balanced);
    expect((await engine.explain('weather in paris')).threshold).toBe(BUNDLED_RELEVANCE.tools.thresholds.hybrid.balanced);
    await engine.sync(skills);
    expect(engine.threshold('hybrid')).toBe(BUNDLED_RELEVANCE.skills.thresholds.hybrid.balanced);
    expect((await engine.explain('fill in the pdf form')).threshold).toBe(BUNDLED_RELEVANCE.skills.thresholds.hybrid.balanced);
    expect(engine.threshold('hybrid', 'strict')).toBe(BUNDLED_RELEVANCE.skills.thresholds.hybrid.strict);
    await engine.close();
  });

  it('uses a caller’s own relevance models for every kind', async () => {
    const own = { ...BUNDLED_RELEVANCE.tools, thresholds: { ...BUNDLED_RELEVANCE.tools.thresholds, hybrid: { strict: 0.5, balanced: 0.3 } } };
    const engine = await SkillSearchEngine.open({ embedder, ann: 'exact', relevance: own });
    await engine.sync(skills);
    expect(engine.threshold('hybrid')).toBe(0.3);
    await engine.sync(tools);
    expect(engine.threshold('hybrid')).toBe(0.3);
    await engine.close();
  });
});
