/**
 * A hit's relevance does not depend on how many hits were asked for: the relevance model reads
 * a list as deep as it was fitted on (`scoringDepth`), whatever `k` is.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { BUNDLED_RELEVANCE, scoringDepth } from '../../src/search/abstention.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import type { SearchMode } from '../../src/types.js';
import { SKILLS } from './fixtures.js';

let engine: SkillSearchEngine;
beforeAll(async () => {
  engine = await SkillSearchEngine.open({ embedder: createHashEmbedder({ dimensions: 64 }), ann: 'exact' });
  await engine.sync(SKILLS);
});

describe('relevance and k', () => {
  it('reads lists as deep as the bundled model was fitted on', () => {
    for (const models of [BUNDLED_RELEVANCE.tools, BUNDLED_RELEVANCE.skills]) {
      expect(scoringDepth(models)).toBe(10);
      expect(scoringDepth({ ...models, provenance: {} })).toBe(10);
      expect(scoringDepth({ ...models, provenance: { depth: 20 } })).toBe(20);
    }
  });

  for (const mode of ['hybrid', 'dense', 'lexical'] as const satisfies readonly SearchMode[]) {
    it(`gives a hit the same score for k = 1, 3 and 10 (${mode})`, async () => {
      const query = 'extract the text and tables from a pdf file';
      const scores = async (k: number) => (await engine.search(query, { k, mode, abstain: false })).map((hit) => [hit.skill.name, hit.score]);
      const ten = await scores(10);
      expect(ten.length).toBeGreaterThan(3);
      expect(await scores(1)).toEqual(ten.slice(0, 1));
      expect(await scores(3)).toEqual(ten.slice(0, 3));
    });
  }
});
