import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { SearchHit } from '../../src/types.js';
import { counting, makeSkill, SKILLS } from './fixtures.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('lazy');
afterEach(() => {
  vi.restoreAllMocks();
});

const names = (hits: readonly SearchHit[]): string[] => hits.map((hit) => hit.skill.name);
/** A store holding the vectors of SKILLS, built the normal (hybrid) way. */
async function persisted(): Promise<string> {
  const dir = tempDir();
  const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir });
  await engine.sync(SKILLS);
  await engine.close();
  return dir;
}

describe('SkillSearchEngine lexical-only path', () => {
  it('syncs and searches without embedding or reading a vector', async () => {
    const dir = await persisted();
    const read = vi.spyOn(SqliteStore.prototype, 'vectors');
    const embedder = counting();
    const engine = await SkillSearchEngine.open({ embedder, indexDir: dir, mode: 'lexical' });
    expect(await engine.sync(SKILLS)).toEqual({ added: SKILLS.length, updated: 0, removed: 0, unchanged: 0, embedded: 0 });
    expect(names(await engine.search('merge pdf pages'))[0]).toBe('pdf');
    expect(embedder.texts).toEqual([]);
    expect(read).not.toHaveBeenCalled();
  });

  it('catches the vectors up at the first hybrid search after lexical-only syncs', async () => {
    const dir = await persisted();
    const edited = makeSkill({ name: 'docx', description: 'Write Word files with tracked changes.' });
    const next = SKILLS.map((skill) => (skill.name === 'docx' ? edited : skill)).filter((skill) => skill.name !== 'pdf');
    const embedder = counting();
    const lazy = await SkillSearchEngine.open({ embedder, indexDir: dir, mode: 'lexical' });
    expect(await lazy.sync(next)).toEqual({ added: SKILLS.length - 1, updated: 0, removed: 0, unchanged: 0, embedded: 0 });
    expect(embedder.texts).toEqual([]);

    const eager = await SkillSearchEngine.open({ embedder: createHashEmbedder() });
    await eager.sync(next);
    for (const query of ['write a word document', 'merge pdf pages']) {
      const expected = await eager.search(query, { mode: 'hybrid', abstain: false, k: 10 });
      expect((await lazy.search(query, { mode: 'hybrid', abstain: false, k: 10 })).map((hit) => [hit.skill.name, hit.score])).toEqual(
        expected.map((hit) => [hit.skill.name, hit.score]),
      );
    }
    // The two queries, and of the catalog only the edited skill.
    expect(embedder.texts).toEqual(['write a word document', 'docx: Write Word files with tracked changes.', 'merge pdf pages']);
    await lazy.close();

    // The catch-up was stored: a fresh hybrid engine embeds nothing.
    const again = counting();
    const reopened = await SkillSearchEngine.open({ embedder: again, indexDir: dir });
    expect(await reopened.sync(next)).toMatchObject({ embedded: 0 });
    expect(again.texts).toEqual([]);
  });

  it('embeds during a lexical-mode sync when asked to', async () => {
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), mode: 'lexical' });
    expect(await engine.sync(SKILLS, { dense: true })).toMatchObject({ added: SKILLS.length, embedded: SKILLS.length });
  });

  it('does not read the vectors for a lexical search in a default-mode engine either', async () => {
    const dir = await persisted();
    const load = vi.spyOn(SqliteStore.prototype, 'vectors');
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir });
    await engine.sync(SKILLS, { dense: false });
    expect(names(await engine.search('slow sql query', { mode: 'lexical' }))[0]).toBe('sql-optimization');
    expect(load).not.toHaveBeenCalled();
  });
});
