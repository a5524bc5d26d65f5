import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddingCache } from '../../src/embed/embedding-cache.js';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { IndexFolder, MANIFEST_FILE } from '../../src/index-folder/index-folder.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import { EMBEDDING_TEXT_VERSION, embeddingText, vectorKey } from '../../src/search/skill-text.js';
import type { SearchHit, Skill } from '../../src/types.js';
import { VECTOR_DATA } from '../../src/vector-index/store.js';
import { counting, SKILLS } from './fixtures.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('engine-storage');
const QUERIES = ['merge pdf pages', 'slow sql query', 'deploy a container to kubernetes', 'write a word document', 'resize images'];
const scored = (hits: readonly SearchHit[]) => hits.map((hit) => [hit.skill.id, hit.score] as const);

async function answers(engine: SkillSearchEngine): Promise<(readonly (readonly [string, number])[])[]> {
  const out = [];
  for (const query of QUERIES) out.push(scored(await engine.search(query, { abstain: false, k: 10 })));
  return out;
}

function expectSameAnswers(actual: Awaited<ReturnType<typeof answers>>, expected: Awaited<ReturnType<typeof answers>>): void {
  expect(actual.map((list) => list.map(([id]) => id))).toEqual(expected.map((list) => list.map(([id]) => id)));
  actual.forEach((list, i) => list.forEach(([, score], j) => expect(Math.abs(score - expected[i]![j]![1])).toBeLessThanOrEqual(1e-9)));
}

describe.each(['hnsw', 'exact'] as const)('the index folder (%s)', (ann) => {
  it('after one-skill changes synced one by one, answers as a fresh engine does, and the same after a reopen', async () => {
    const dir = tempDir();
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir, ann });
    let catalog: Skill[] = [...SKILLS];
    await engine.sync(catalog);
    for (let round = 0; round < 6; round += 1) {
      const at = (round * 5) % catalog.length;
      catalog = catalog.map((skill, i) =>
        i === at ? { ...skill, description: `${skill.description} (revision ${round})`, contentHash: `r${round}-${skill.contentHash}` } : skill,
      );
      if (round === 3) catalog = catalog.filter((_, i) => i !== 7);
      await engine.sync(catalog);
    }
    const incremental = await answers(engine);
    await engine.close();

    const fresh = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann });
    await fresh.sync(catalog);
    expectSameAnswers(incremental, await answers(fresh));

    const reopened = await SkillSearchEngine.open({ embedder: counting(), indexDir: dir, ann });
    expect(reopened.info.index).toEqual({ state: 'loaded', count: catalog.length });
    expect(await reopened.sync(catalog)).toMatchObject({ added: 0, updated: 0, removed: 0, embedded: 0 });
    expect(await answers(reopened)).toEqual(incremental);
  });

  it('reuses a stored vector for a renamed skill and for a new skill with the text of another: nothing is embedded', async () => {
    const embedder = counting();
    const engine = await SkillSearchEngine.open({ embedder, indexDir: tempDir(), ann });
    await engine.sync(SKILLS);
    embedder.texts.length = 0;
    const renamed = SKILLS.map((skill, i) => (i === 2 ? { ...skill, id: `${skill.id}-moved` } : skill));
    expect(await engine.sync(renamed)).toMatchObject({ added: 1, removed: 1, embedded: 0 });
    expect(await engine.sync([...renamed, { ...SKILLS[0]!, id: 'copy' }])).toMatchObject({ added: 1, embedded: 0 });
    const edited = renamed.map((skill, i) => (i === 4 ? { ...skill, description: 'Something else entirely.', contentHash: 'e'.repeat(64) } : skill));
    expect(await engine.sync(edited)).toMatchObject({ updated: 1, removed: 1, embedded: 1 });
    expect(embedder.texts).toHaveLength(1);
  });
});

describe('vectors that survive a rebuild are not embedded again', () => {
  it('switching `ann` rebuilds the index from the vectors of the other kind', async () => {
    const dir = tempDir();
    const first = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir, ann: 'exact' });
    await first.sync(SKILLS);
    const expected = await answers(first);
    await first.close();
    const embedder = counting();
    const switched = await SkillSearchEngine.open({ embedder, indexDir: dir, ann: 'hnsw' });
    expect(switched.info.index).toEqual({ state: 'rebuilt', reason: 'index kind exact ≠ hnsw' });
    expect(await switched.sync(SKILLS)).toMatchObject({ added: SKILLS.length, embedded: 0 });
    expectSameAnswers(await answers(switched), expected);
  });

  it('a damaged vector data file loses only the vectors it held: the delta log keeps the later ones', async () => {
    const dir = tempDir();
    const first = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir });
    await first.sync(SKILLS);
    const edited = SKILLS.map((skill, i) => (i === 3 ? { ...skill, description: 'Rewritten.', contentHash: 'd'.repeat(64) } : skill));
    await first.sync(edited);
    await first.close();
    rmSync(join(dir, IndexFolder.open(dir).entry(VECTOR_DATA)!.file));
    const embedder = counting();
    const reopened = await SkillSearchEngine.open({ embedder, indexDir: dir });
    expect(reopened.info.index).toMatchObject({ state: 'rebuilt', reason: expect.stringMatching(/is missing$/) });
    expect(await reopened.sync(edited)).toMatchObject({ added: SKILLS.length, embedded: SKILLS.length - 1 });
    expect(embedder.texts.some((text) => text.includes('Rewritten.'))).toBe(false);
  });
});

describe('an index folder of the layout before index.json', () => {
  it('is rebuilt from the vectors its embedding cache kept (nothing embedded), and its old files go', async () => {
    const dir = tempDir();
    // Skills without CJK text: their encoder text is `embeddingText` alone (no glosses).
    const skills = SKILLS.filter((skill) => !/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u.test(`${skill.description} ${skill.whenToUse ?? ''}`));
    const embedder = createHashEmbedder();
    const old = new EmbeddingCache({ model: `${embedder.id}#${EMBEDDING_TEXT_VERSION}`, dimensions: embedder.dimensions, dir });
    const vectors = await embedder.embed(skills.map(embeddingText));
    skills.forEach((skill, i) => old.set(vectorKey(skill), vectors[i]!));
    old.save();
    writeFileSync(join(dir, 'vectors.json'), '{"format":1}');
    writeFileSync(join(dir, 'vectors-hnsw-0123456789abcdef.bin'), 'an old graph');
    writeFileSync(join(dir, 'lexical.bin'), 'an old lexical index');
    writeFileSync(join(dir, 'cross-lingual.json'), '{}');

    const counted = counting(embedder);
    const engine = await SkillSearchEngine.open({ embedder: counted, indexDir: dir });
    expect(engine.info.index).toEqual({ state: 'rebuilt', reason: 'index folder of an older layout (vectors.json)' });
    expect(await engine.sync(skills)).toMatchObject({ added: skills.length, embedded: 0 });
    const fresh = await SkillSearchEngine.open({ embedder });
    await fresh.sync(skills);
    expectSameAnswers(await answers(engine), await answers(fresh));
    await engine.close();
    expect(existsSync(join(dir, MANIFEST_FILE))).toBe(true);
    expect(readdirSync(dir).filter((file) => !/^(index\.json|(vector-data|vector-entries|lexical|languages)-[0-9a-f]{16}\.(bin|log))$/.test(file))).toEqual([
      'cross-lingual.json',
    ]);
  });
});
