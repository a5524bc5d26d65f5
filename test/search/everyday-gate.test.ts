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

  it('gates a list whose every hit is far and whose first matched one word at most', () => {
    expect(lacksSpecificEvidence([hit({}), hit({ cosine: 0.1 })], 4, gate)).toBe(true);
    // One close vector anywhere in the list is specific evidence.
    expect(lacksSpecificEvidence([hit({}), hit({ cosine: 0.5 })], 4, gate)).toBe(false);
    // Two matched words are.
    expect(lacksSpecificEvidence([hit({ coverage: 0.5 })], 4, gate)).toBe(false);
  });

  it('never gates dense or lexical lists, an empty list, or with the gate off', () => {
    expect(lacksSpecificEvidence([hit({ lexical: undefined, coverage: undefined })], 4, gate)).toBe(false);
    expect(lacksSpecificEvidence([hit({ cosine: undefined })], 4, gate)).toBe(false);
    expect(lacksSpecificEvidence([], 4, gate)).toBe(false);
    expect(lacksSpecificEvidence([hit({})], 4, { ...gate, cosine: 0 })).toBe(false);
  });
});
