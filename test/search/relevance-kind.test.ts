/**
 * The relevance models per catalogue kind: the rule that picks the re-ranker (`catalogKind`)
 * picks the relevance models and thresholds too, for the live engine as the catalogue changes.
 */
import { describe, expect, it } from 'vitest';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import {
  BUNDLED_RELEVANCE,
  longEntry,
  messageEntries,
  relevanceFor,
  thresholdFor,
  type LongMessages,
  type RelevanceModels,
} from '../../src/search/abstention.js';
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

/** Today's skills entry with a long-message entry of `minSkills` whose model never finds a long message answerable. */
function withLong(minSkills: number): RelevanceModels {
  const common = BUNDLED_RELEVANCE.skills;
  const hybrid = common.models.hybrid;
  const long: LongMessages = {
    words: 12,
    maxWords: 30,
    minSkills,
    model: { ...hybrid, answerable: { ...hybrid.answerable, bias: -50 } },
    thresholds: { balanced: 0.9, strict: 0.95 },
    provenance: {},
  };
  const { long: _bundled, ...rest } = common;
  return { ...rest, long };
}
const LONG = 'I spent the whole afternoon on the quarterly report and now I need to fill in the pdf form for the tax office';
const SHORT = 'fill in the pdf form';

/** A message of `n` white-space words. */
const ofWords = (n: number): string => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

describe('long messages (docs/retrieval.md, "Everyday messages, rounds 9 and 10")', () => {
  const models = withLong(2);
  it('apply to hybrid messages over their words, over catalogues over their size', () => {
    expect(longEntry(models, 'hybrid', LONG, 3)).toBe(models.long);
    expect(longEntry(models, 'hybrid', SHORT, 3)).toBeUndefined();
    expect(longEntry(models, 'hybrid', 'one two three four five six seven eight nine ten eleven twelve', 3)).toBeUndefined();
    expect(longEntry(models, 'dense', LONG, 3)).toBeUndefined();
    expect(longEntry(models, 'hybrid', LONG, 2)).toBeUndefined();
    expect(longEntry(BUNDLED_RELEVANCE.tools, 'hybrid', LONG, 500)).toBeUndefined();
  });

  it('reach no message longer than their maxWords (the lengths they were fitted on)', () => {
    expect(longEntry(models, 'hybrid', ofWords(13), 3)).toBe(models.long);
    expect(longEntry(models, 'hybrid', ofWords(30), 3)).toBe(models.long);
    expect(longEntry(models, 'hybrid', `  ${ofWords(30)}\n`, 3)).toBe(models.long);
    expect(longEntry(models, 'hybrid', ofWords(31), 3)).toBeUndefined();
    expect(longEntry(models, 'hybrid', ofWords(200), 3)).toBeUndefined();
  });

  it('give their own thresholds to the named levels, not to a number or off', () => {
    const long = longEntry(models, 'hybrid', LONG, 3);
    expect(thresholdFor(models, 'hybrid', 'balanced', long)).toBe(0.9);
    expect(thresholdFor(models, 'hybrid', 'strict', long)).toBe(0.95);
    expect(thresholdFor(models, 'hybrid', 'balanced')).toBe(models.thresholds.hybrid.balanced);
    expect(thresholdFor(models, 'hybrid', 0.2, long)).toBe(0.2);
    expect(thresholdFor(models, 'hybrid', 'off', long)).toBe(0);
  });

  it('as a list, give each message the entry whose reach holds it (docs/retrieval.md, "Everyday messages, round 14")', () => {
    const single = withLong(2).long as LongMessages;
    const medium: LongMessages = { ...single, words: 6, maxWords: 12, thresholds: { balanced: 0.4, strict: 0.5 } };
    const long: LongMessages = { ...single, minSkills: 5 };
    const listed: RelevanceModels = { ...models, long: [medium, long] };
    expect(messageEntries(listed)).toEqual([medium, long]);
    expect(messageEntries(models)).toEqual([single]);
    expect(longEntry(listed, 'hybrid', ofWords(6), 6)).toBeUndefined();
    expect(longEntry(listed, 'hybrid', ofWords(7), 6)).toBe(medium);
    expect(longEntry(listed, 'hybrid', ofWords(12), 6)).toBe(medium);
    expect(longEntry(listed, 'hybrid', ofWords(13), 6)).toBe(long);
    expect(longEntry(listed, 'hybrid', ofWords(30), 6)).toBe(long);
    expect(longEntry(listed, 'hybrid', ofWords(31), 6)).toBeUndefined();
    // Each entry keeps its own catalogue bound: a catalogue of 5 skills reads the medium entry, not the long one.
    expect(longEntry(listed, 'hybrid', ofWords(13), 5)).toBeUndefined();
    expect(longEntry(listed, 'hybrid', ofWords(7), 5)).toBe(medium);
    expect(thresholdFor(listed, 'hybrid', 'strict', longEntry(listed, 'hybrid', ofWords(8), 6))).toBe(0.5);
    expect(messageEntries(BUNDLED_RELEVANCE.tools)).toEqual([]);
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

  it('scores a long message with the long entry’s model and threshold, over catalogues larger than its minSkills only', async () => {
    const over = await SkillSearchEngine.open({ embedder, ann: 'exact', relevance: withLong(2) });
    await over.sync(skills);
    const long = await over.explain(LONG);
    expect(long.threshold).toBe(0.9);
    expect(long.answerable).toBeLessThan(1e-9);
    expect(await over.search(LONG)).toEqual([]);
    const short = await over.explain(SHORT);
    expect(short.threshold).toBe(BUNDLED_RELEVANCE.skills.thresholds.hybrid.balanced);
    expect(short.answerable).toBeGreaterThan(1e-9);
    const longer = await over.explain(`${LONG} ${LONG}`);
    expect(longer.threshold).toBe(BUNDLED_RELEVANCE.skills.thresholds.hybrid.balanced);
    expect(longer.answerable).toBeGreaterThan(1e-9);
    await over.close();
    const small = await SkillSearchEngine.open({ embedder, ann: 'exact', relevance: withLong(3) });
    await small.sync(skills);
    const same = await small.explain(LONG);
    expect(same.threshold).toBe(BUNDLED_RELEVANCE.skills.thresholds.hybrid.balanced);
    expect(same.answerable).toBeGreaterThan(1e-9);
    await small.close();
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
