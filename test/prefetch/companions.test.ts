/**
 * A hit shown below the threshold for being close to a sure first (`SearchHit.companion`) is not
 * shown alone once that first is left out (already announced or invoked, never suggested):
 * USE-lite over the repository's fixture and example skills, the engine's own cut.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUseLiteEmbedder } from '../../src/embed/use-lite.js';
import { scanSkillsDir } from '../../src/load/scan.js';
import { SkillPrefetcher } from '../../src/prefetch/prefetcher.js';
import { withoutLoneCompanions } from '../../src/search/companions.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import { fromWireHit, toWireHit } from '../../src/integrations/socket-protocol.js';
import type { SearchHit } from '../../src/types.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const QUERY = 'bisect the commit that broke the tests';

let engine: SkillSearchEngine;
let hits: readonly SearchHit[];
beforeAll(async () => {
  const skills = [];
  for (const dir of ['test/cli/fixtures/skills', 'examples/skills'])
    skills.push(...(await scanSkillsDir(path.join(ROOT, dir), { source: 'skills', rank: 5 })).skills);
  engine = await SkillSearchEngine.open({ embedder: createUseLiteEmbedder(), ann: 'exact' });
  await engine.sync(skills);
  hits = await engine.search(QUERY, { k: 5 });
});
afterAll(() => engine?.close());

const names = (list: readonly { readonly name: string }[] | undefined) => (list ?? []).map((s) => s.name);
async function discovered(invoked: readonly string[]) {
  const prefetcher = new SkillPrefetcher({ searcher: { search: async () => hits }, maxSkills: 5 });
  return (await prefetcher.start({ userMessage: QUERY, invoked: new Set(invoked) }).collect())?.skills;
}

describe('companions of a sure hit', () => {
  it('are marked on the hits the cut showed below the threshold, and travel over the wire', () => {
    const threshold = engine.threshold();
    expect(hits.length).toBeGreaterThan(2);
    for (const hit of hits) expect(hit.companion === true).toBe(hit.score < threshold);
    const companions = hits.filter((hit) => hit.companion === true);
    expect(companions.length).toBeGreaterThan(0);
    expect(hits.map((hit) => fromWireHit(toWireHit(hit)).companion)).toEqual(hits.map((hit) => hit.companion));
  });

  it('are shown beside a sure hit, and not alone once every sure hit is left out', async () => {
    const sure = hits.filter((hit) => hit.companion !== true).map((hit) => hit.skill.name);
    expect(names(await discovered([]))).toEqual(hits.map((hit) => hit.skill.name));
    // One sure hit left: its companions stay (they were close to a higher first).
    expect(names(await discovered(sure.slice(0, 1)))).toEqual(hits.slice(1).map((hit) => hit.skill.name));
    expect(await discovered(sure)).toBeUndefined();
    expect(withoutLoneCompanions(hits.filter((hit) => !sure.includes(hit.skill.name)))).toEqual([]);
  });
});
