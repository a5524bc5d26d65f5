import { describe, expect, it } from 'vitest';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import { counting, makeSkill } from './fixtures.js';

const skills = Array.from({ length: 300 }, (_, i) => makeSkill({ name: `skill-${i}`, description: `does task number ${i} with tool ${i % 17}` }));

describe('index build progress', () => {
  it('is reported at least every 64 skills to a caller that watches', async () => {
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann: 'exact' });
    const reports: number[] = [];
    await engine.sync(skills, { onProgress: (done, total) => reports.push(done, total) && undefined });
    const done = reports.filter((_, i) => i % 2 === 0);
    expect(done[0]).toBe(0);
    expect(done.at(-1)).toBe(300);
    for (let i = 1; i < done.length; i += 1) expect(done[i]! - done[i - 1]!).toBeLessThanOrEqual(64);
  });

  it('keeps the large batches when nobody watches', async () => {
    const embedder = counting(createHashEmbedder());
    const calls: number[] = [];
    const engine = await SkillSearchEngine.open({
      embedder: { ...embedder, embed: (texts, signal, kind) => (calls.push(texts.length), embedder.embed(texts, signal, kind)) },
      ann: 'exact',
    });
    await engine.sync(skills);
    expect(calls).toEqual([300]);
  });
});
