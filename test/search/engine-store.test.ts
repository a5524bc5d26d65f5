import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SkillSearchEngine } from '../../src/search/engine.js';
import type { EntryStore } from '../../src/store/entry-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { counting, SKILLS } from './fixtures.js';
import { useTempDirs } from '../support/temp-dirs.js';

const temp = useTempDirs('engine-store');

describe('the shared store', () => {
  it('lets a second index folder over the same skills embed nothing, with the same answers', async () => {
    const store = path.join(temp(), 'store.sqlite');
    const firstEmbedder = counting();
    const first = await SkillSearchEngine.open({ embedder: firstEmbedder, indexDir: temp(), store });
    expect(await first.sync(SKILLS)).toMatchObject({ added: SKILLS.length, embedded: SKILLS.length });
    const expected = await first.search('merge pdf pages', { abstain: false, k: 5 });
    await first.close();

    const embedder = counting();
    const second = await SkillSearchEngine.open({ embedder, indexDir: temp(), store });
    expect(await second.sync(SKILLS)).toMatchObject({ added: SKILLS.length, embedded: 0 });
    expect(embedder.texts).toEqual([]);
    const hits = await second.search('merge pdf pages', { abstain: false, k: 5 });
    expect(hits.map((hit) => [hit.skill.id, hit.score])).toEqual(expected.map((hit) => [hit.skill.id, hit.score]));
    await second.close();
  });

  it('embeds only the skills it has not seen under this model', async () => {
    const store = path.join(temp(), 'store.sqlite');
    const first = await SkillSearchEngine.open({ embedder: counting(), store });
    await first.sync(SKILLS.slice(0, 5));
    await first.close();
    const embedder = counting();
    const second = await SkillSearchEngine.open({ embedder, store });
    expect(await second.sync(SKILLS)).toMatchObject({ embedded: SKILLS.length - 5 });
    await second.close();
  });

  it('takes any EntryStore in place of a file: the seam another engine would sit behind', async () => {
    const sqlite = SqliteStore.open(path.join(temp(), 'store.sqlite'));
    const called = new Set<string>();
    // Every method of the interface passed through, noting which the engine used.
    const given = new Proxy(sqlite, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        called.add(String(name));
        return value.bind(target);
      },
    }) as EntryStore;
    const first = await SkillSearchEngine.open({ embedder: counting(), store: given });
    await first.sync(SKILLS);
    expect(first.info.store).toBe('given');
    await first.close();
    expect([...called]).toEqual(expect.arrayContaining(['vectors', 'putVectors']));

    const embedder = counting();
    const second = await SkillSearchEngine.open({ embedder, store: given });
    expect(await second.sync(SKILLS)).toMatchObject({ embedded: 0 });
    await second.close();
    sqlite.close();
  });
});
