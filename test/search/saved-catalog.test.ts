import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { SkillSearchEngine, type SnapshotCatalog } from '../../src/search/engine.js';
import { StoredSearch } from '../../src/search/stored-search.js';
import { STORE_DEFAULTS } from '../../src/store/entry-store.js';
import type { SearchHit, Skill, SkillSearcher } from '../../src/types.js';
import { EXACT_BELOW } from '../../src/vector-index/vector-index.js';
import { LabelGraph } from '../../src/vector-index/label-graph.js';
import { counting, makeSkill, SKILLS } from './fixtures.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('saved-catalog');
afterEach(() => vi.restoreAllMocks());
const QUERIES = ['merge pdf pages', 'slow sql query', 'deploy a container to kubernetes', 'write a word document', 'resize images'];
const MODES = ['hybrid', 'dense', 'lexical'] as const;

async function answers(engine: SkillSearcher): Promise<(readonly (readonly [string, number])[])[]> {
  const out = [];
  for (const mode of MODES)
    for (const query of QUERIES)
      out.push((await engine.search(query, { abstain: false, k: 10, mode })).map((hit: SearchHit) => [hit.skill.id, hit.score] as const));
  return out;
}

function expectSameAnswers(actual: Awaited<ReturnType<typeof answers>>, expected: Awaited<ReturnType<typeof answers>>): void {
  expect(actual.map((list) => list.map(([id]) => id))).toEqual(expected.map((list) => list.map(([id]) => id)));
  actual.forEach((list, i) => list.forEach(([, score], j) => expect(Math.abs(score - expected[i]![j]![1])).toBeLessThanOrEqual(1e-6)));
}

/** SKILLS and enough generated skills that the vector side keeps a graph. */
const LARGE: readonly Skill[] = [
  ...SKILLS,
  ...Array.from({ length: EXACT_BELOW }, (_, i) =>
    makeSkill({ name: `generated-${i}`, description: `Handle ticket ${i} about ${['billing', 'logins', 'exports', 'search'][i % 4]} for team ${i % 37}` }),
  ),
];

const catalogOf = (stamp: string): SnapshotCatalog => ({ sourceStamp: `${stamp}-here`, portableStamp: stamp, diagnostics: [] });

async function opened(store: string, stamp: string, ann: 'hnsw' | 'exact'): Promise<StoredSearch> {
  const result = await StoredSearch.open(
    { embedder: createHashEmbedder(), store, ann },
    Promise.resolve({ sourceStamp: `${stamp}-there`, portableStamp: stamp }),
  );
  if ('reason' in result) throw new Error(result.reason);
  return result.engine;
}

describe.each(['hnsw', 'exact'] as const)('a catalog saved in the store (%s)', (ann) => {
  it('after one-skill changes synced one by one, answers as a fresh engine does, and a cold search of it the same', async () => {
    const store = path.join(tempDir(), 'store.sqlite');
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), store, ann });
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
    expect(engine.saveCatalog(catalogOf('s1'))).toBe(true);
    expect(engine.saveCatalog(catalogOf('s1'))).toBe(false);
    await engine.close();

    const fresh = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann });
    await fresh.sync(catalog);
    expectSameAnswers(incremental, await answers(fresh));
    const cold = await opened(store, 's1', ann);
    expect(cold.size).toBe(catalog.length);
    expectSameAnswers(await answers(cold), incremental);
    await cold.close();
  });

  it('reuses a stored vector for a renamed skill and for a new skill with the text of another: nothing is embedded', async () => {
    const embedder = counting();
    const engine = await SkillSearchEngine.open({ embedder, store: path.join(tempDir(), 'store.sqlite'), ann });
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

describe('the graph of a saved catalog', () => {
  it('is derived from the last saved graph when the catalog changed by one skill (nothing built, nothing embedded), and answers as a fresh engine', async () => {
    const root = tempDir();
    const store = path.join(root, 'store.sqlite');
    const first = await SkillSearchEngine.open({ embedder: createHashEmbedder(), store });
    await first.sync(LARGE);
    expect(first.saveCatalog(catalogOf('before'))).toBe(true);
    await first.close();
    expect(readdirSync(path.join(root, STORE_DEFAULTS.graphDir))).toHaveLength(1);

    const changed = LARGE.map((skill, i) =>
      i === 30 ? { ...skill, description: 'Reconcile invoices for the pottery studio', contentHash: 'c'.repeat(64) } : skill,
    );
    const create = vi.spyOn(LabelGraph, 'create');
    const load = vi.spyOn(LabelGraph, 'load');
    const embedder = counting();
    const second = await SkillSearchEngine.open({ embedder, store });
    expect(await second.sync(changed)).toMatchObject({ embedded: 1 });
    expect(second.saveCatalog(catalogOf('after'))).toBe(true);
    expect([create.mock.calls.length, load.mock.calls.length]).toEqual([0, 1]);
    const live = await answers(second);
    await second.close();
    vi.restoreAllMocks();

    const cold = await opened(store, 'after', 'hnsw');
    expectSameAnswers(await answers(cold), live);
    expect((await cold.search('reconcile invoices pottery studio', { abstain: false }))[0]?.skill.id).toBe(LARGE[30]!.id);
    await cold.close();
    // Each catalog keeps its own graph file; the old one still serves the catalog before.
    expect(readdirSync(path.join(root, STORE_DEFAULTS.graphDir))).toHaveLength(2);
    const before = await opened(store, 'before', 'hnsw');
    expect((await before.search('reconcile invoices pottery studio', { abstain: false, mode: 'lexical' })).map((hit) => hit.skill.id)).not.toContain(
      LARGE[30]!.id,
    );
    await before.close();
  }, 120_000);
});

describe('StoredSearch.open', () => {
  it('says why it cannot serve: no store, no catalog for these skills, another model', async () => {
    const store = path.join(tempDir(), 'store.sqlite');
    const stamps = Promise.resolve({ sourceStamp: 'x', portableStamp: 'nothing-saved' });
    expect(await StoredSearch.open({ embedder: createHashEmbedder() }, stamps)).toEqual({ reason: 'no store' });
    expect(await StoredSearch.open({ embedder: createHashEmbedder(), store }, stamps)).toEqual({ reason: 'no saved catalog for these skills' });
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), store });
    await engine.sync(SKILLS);
    engine.saveCatalog(catalogOf('saved'));
    await engine.close();
    const other = await StoredSearch.open(
      { embedder: createHashEmbedder({ dimensions: 32 }), store },
      Promise.resolve({ sourceStamp: 'x', portableStamp: 'saved' }),
    );
    expect(other).toEqual({ reason: 'no saved catalog for these skills' });
  });
});
