/**
 * The everyday-message gate (`everyday-gate.ts`): on the 22-skill fixture catalog plus a fuzzing
 * skill named for "writing" and a forecasting skill, with the real embedded model (USE-lite), a
 * message that shares one common word with a skill and nothing else is shown nothing, while
 * requests with specific evidence keep their first place.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createUseLiteEmbedder } from '../../src/embed/use-lite.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import { lacksSpecificEvidence, matchedTermCount } from '../../src/search/everyday-gate.js';
import { ENGINE_DEFAULTS } from '../../src/search/options.js';
import type { RankedEvidence } from '../../src/search/relevance.js';
import { makeSkill, SKILLS } from './fixtures.js';

const CATALOG = [
  ...SKILLS,
  makeSkill({
    name: 'harness-writing',
    description: 'Techniques for writing fuzzing harnesses in C, Rust and Python. Use when creating new fuzz targets or improving harness code.',
  }),
  makeSkill({
    name: 'timeseries-forecasting',
    description: 'Forecast time series with pretrained foundation models: demand, sales, sensor readings. Use for zero-shot forecasting of any time series.',
  }),
];

let gated: SkillSearchEngine;
let ungated: SkillSearchEngine;
beforeAll(async () => {
  gated = await SkillSearchEngine.open({ embedder: createUseLiteEmbedder(), ann: 'exact' });
  ungated = await SkillSearchEngine.open({ embedder: createUseLiteEmbedder(), ann: 'exact', everydayGate: { cosine: 0 } });
  await gated.sync(CATALOG);
  await ungated.sync(CATALOG);
});

const shown = async (engine: SkillSearchEngine, query: string): Promise<string[]> => (await engine.search(query)).map((hit) => hit.skill.name);

describe('everyday messages (hybrid, balanced)', () => {
  it('shows nothing for small talk that shares one common word with a skill', async () => {
    // "write" matches harness-writing's name and nothing else; no skill's vector is near a haiku
    // (best raw cosine about 0.3). Without the gate the relevance model shows harness-writing.
    expect(await shown(ungated, 'write a haiku about autumn')).toContain('harness-writing');
    expect(await shown(gated, 'write a haiku about autumn')).toEqual([]);
    expect(await shown(gated, 'write me a haiku about autumn leaves')).toEqual([]);
  });

  it('keeps a request with specific evidence first: several words matched, or a close vector', async () => {
    // harness-writing: "fuzz" and "harness" as well as "write"; its cosine is far above the gate's.
    expect((await shown(gated, 'write a fuzz harness for this parser'))[0]).toBe('harness-writing');
    // timeseries-forecasting: "forecast" and "sales", both in its description.
    expect((await shown(gated, 'forecast next month of sales'))[0]).toBe('timeseries-forecasting');
    expect((await shown(gated, 'merge these two pdf files'))[0]).toBe('pdf');
  });

  it("keeps a user's first skill: over a one-skill catalogue a request matching its words is shown it", async () => {
    // Every word of a one-skill catalogue weighs the same small IDF: BM25 about 3 a word here, which a raw bound of 4 a word gated.
    const alone = await SkillSearchEngine.open({ embedder: createUseLiteEmbedder(), ann: 'exact' });
    await alone.sync(SKILLS.filter((skill) => skill.name === 'pdf'));
    expect(await shown(alone, 'merge pdf pages')).toEqual(['pdf']);
    await alone.close();
  });

  it('leaves ranking alone: with abstention off the same list comes back', async () => {
    const off = async (engine: SkillSearchEngine) => (await engine.search('write a haiku about autumn', { abstain: false })).map((hit) => hit.skill.name);
    expect(await off(gated)).toEqual(await off(ungated));
  });
});

describe('lacksSpecificEvidence', () => {
  const hit = (evidence: Partial<RankedEvidence>): RankedEvidence => ({ id: 'a', name: 'a', order: 1, cosine: 0.2, lexical: 3, coverage: 0.25, ...evidence });
  const gate = ENGINE_DEFAULTS.everydayGate;

  it('counts the query words a hit matched, none when BM25 did not match it', () => {
    expect(matchedTermCount(hit({ coverage: 0.5 }), 4)).toBe(2);
    expect(matchedTermCount(hit({ lexical: 0, coverage: 0.5 }), 4)).toBe(0);
  });

  const skills = 4000;
  it('gates a list whose every hit is far and whose first matched one word at most', () => {
    expect(lacksSpecificEvidence([hit({}), hit({ cosine: 0.1 })], 4, skills, gate)).toBe(true);
    // One close vector anywhere in the list is specific evidence.
    expect(lacksSpecificEvidence([hit({}), hit({ cosine: 0.5 })], 4, skills, gate)).toBe(false);
    // Two matched words are.
    expect(lacksSpecificEvidence([hit({ coverage: 0.5 })], 4, skills, gate)).toBe(false);
  });

  describe('the common-words clause', () => {
    const clause = { ...gate, coverage: 0.6, bm25Share: 0.5 };
    // A word only one of 4,000 skills holds weighs ln(1 + 3999.5 / 1.5) ≈ 7.9, so the bound is about 3.95 a word.
    it('gates a first hit matching most of the words when they are common ones, whatever the cosine', () => {
      // "show me the diff": both words matched, BM25 2 a word, a coding skill's vector close by.
      expect(lacksSpecificEvidence([hit({ cosine: 0.5, lexical: 4, coverage: 1 })], 2, skills, clause)).toBe(true);
      // The same words with a rare one among them (BM25 above the bound a word) are specific evidence.
      expect(lacksSpecificEvidence([hit({ cosine: 0.5, lexical: 20, coverage: 1 })], 2, skills, clause)).toBe(false);
      // Common words that cover too little of the message are not this clause's business.
      expect(lacksSpecificEvidence([hit({ cosine: 0.5, lexical: 4, coverage: 0.5 })], 4, skills, clause)).toBe(false);
      // Its bound at 0 turns the clause off.
      expect(lacksSpecificEvidence([hit({ cosine: 0.5, lexical: 4, coverage: 1 })], 2, skills, { ...clause, bm25Share: 0 })).toBe(false);
    });

    it('is relative to the catalogue: the same BM25 is strong evidence among three skills', () => {
      // Among 3 skills the rarest word weighs ln(1 + 2.5 / 1.5) ≈ 0.98, so 2 a word is far above the bound.
      expect(lacksSpecificEvidence([hit({ cosine: 0.5, lexical: 4, coverage: 1 })], 2, 3, clause)).toBe(false);
      // One skill: every word weighs ln(4 / 3) ≈ 0.29; a match of 0.2 a word is still gated, 0.3 is not.
      expect(lacksSpecificEvidence([hit({ cosine: 0.5, lexical: 0.2, coverage: 1 })], 2, 1, clause)).toBe(true);
      expect(lacksSpecificEvidence([hit({ cosine: 0.5, lexical: 0.6, coverage: 1 })], 2, 1, clause)).toBe(false);
    });
  });

  it('never gates dense or lexical lists, an empty list, or with the gate off', () => {
    const clause = { ...gate, coverage: 0.6, bm25Share: 0.5 };
    expect(lacksSpecificEvidence([hit({ lexical: undefined, coverage: undefined })], 4, skills, clause)).toBe(false);
    expect(lacksSpecificEvidence([hit({ cosine: undefined })], 4, skills, clause)).toBe(false);
    expect(lacksSpecificEvidence([], 4, skills, clause)).toBe(false);
    expect(lacksSpecificEvidence([hit({})], 4, skills, { ...clause, cosine: 0 })).toBe(false);
    expect(lacksSpecificEvidence([hit({ lexical: 4, coverage: 1 })], 2, skills, { ...clause, cosine: 0 })).toBe(false);
  });
});
