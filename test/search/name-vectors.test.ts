/**
 * The skills' names as stored vectors (docs/retrieval.md, twenty-first round), with the real
 * model (USE-lite) and a real store: they round-trip, a catalog whose names are not stored yet
 * ranks as an engine without names does, the names arrive and the re-ranker reads them, two
 * models never mix, and a broken or locked store never fails a search.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createUseLiteEmbedder } from '../../src/embed/use-lite.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import { NameVectors, nameModel, nameText } from '../../src/search/name-vectors.js';
import { NAMES_RERANKER, RERANK_FEATURES, type RerankModel } from '../../src/search/rerank.js';
import type { EntryStore } from '../../src/store/entry-store.js';
import { SharedStore } from '../../src/store/shared-store.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import type { Embedder, SearchHit } from '../../src/types.js';
import { useTempDirs } from '../support/temp-dirs.js';
import { SKILLS } from './fixtures.js';

const temp = useTempDirs('name-vectors');
const embedder = createUseLiteEmbedder();

const QUERIES = [
  'merge pdf pages',
  'the database query is really slow',
  'ship this service to the cluster',
  'write a cover letter in word with tracked changes',
  'audit the code for leaked secrets',
];

const ranked = (hits: readonly SearchHit[]): [string, number][] => hits.map((hit) => [hit.skill.id, hit.score]);

async function rankings(engine: SkillSearchEngine): Promise<[string, number][][]> {
  return Promise.all(QUERIES.map(async (query) => ranked(await engine.search(query, { mode: 'hybrid', abstain: false, k: 5 }))));
}

/** The shipped name-reading model, swapped for one test (restored after it). */
const shipped: RerankModel = structuredClone(NAMES_RERANKER);
afterEach(() => {
  Object.assign(NAMES_RERANKER, structuredClone(shipped));
});

/** A name-reading model that orders its pool by the name cosine alone: what it reads shows in the ranking. */
function namesOnly(): void {
  Object.assign(NAMES_RERANKER, {
    temperature: 0,
    features: ['nameDense'],
    mean: [0],
    scale: [1],
    weights: [100],
  } satisfies Partial<RerankModel>);
}

describe('the skills names as stored vectors', () => {
  it('round-trips: what is stored is what the model made, and a second run embeds nothing', async () => {
    const store = new SharedStore(path.join(temp(), 'store.sqlite'));
    const names = new NameVectors(store, embedder.id, embedder.dimensions);
    const all = SKILLS.map((skill) => skill.name);
    expect(names.every(all)).toBeUndefined();
    expect(await names.complete(embedder, all, 8)).toBe(new Set(all).size);
    const made = await embedder.embed(all.map(nameText), undefined, 'passage');
    // A fresh reader: from the store, not from the writer's memory.
    const read = new NameVectors(store, embedder.id, embedder.dimensions).every(all);
    expect(read).toHaveLength(made.length);
    // The same vectors up to float rounding (the model's batches differ: 8 names there, all of them here).
    const furthest = Math.max(...read!.flatMap((vector, i) => [...vector].map((value, d) => Math.abs(value - made[i]![d]!))));
    expect(furthest).toBeLessThan(1e-5);
    expect(await names.complete(embedder, all, 8)).toBe(0);
    store.close();
  });

  it('ranks a catalog whose names are not stored yet exactly as an engine without a store, then reads them once they arrive', async () => {
    namesOnly();
    const memory = await SkillSearchEngine.open({ embedder, ann: 'exact' });
    await memory.sync(SKILLS);
    const before = await rankings(memory);
    await memory.close();

    const store = path.join(temp(), 'store.sqlite');
    const engine = await SkillSearchEngine.open({ embedder, ann: 'exact', store });
    await engine.sync(SKILLS);
    expect(await rankings(engine)).toEqual(before);
    expect(await engine.completeNames()).toBe(SKILLS.length);
    const after = await rankings(engine);
    // The pool now goes by its names' cosines: some request's order moves.
    expect(after).not.toEqual(before);
    await engine.close();

    // A cold process's search of the same store reads them too: with today's model it ranks as before.
    Object.assign(NAMES_RERANKER, structuredClone(shipped));
    const again = await SkillSearchEngine.open({ embedder, ann: 'exact', store });
    await again.sync(SKILLS);
    expect(await again.completeNames()).toBe(0);
    await again.close();
  });

  it('uses the name-reading model only when every pool member has its name stored', async () => {
    namesOnly();
    const store = path.join(temp(), 'store.sqlite');
    const engine = await SkillSearchEngine.open({ embedder, ann: 'exact', store });
    await engine.sync(SKILLS);
    const before = await rankings(engine);
    // Every name but one stored: any pool holding that one is ranked as before.
    const shared = new SharedStore(store);
    const missing = SKILLS.find((skill) => skill.name === 'pdf')!;
    await new NameVectors(shared, embedder.id, embedder.dimensions).complete(
      embedder,
      SKILLS.filter((skill) => skill !== missing).map((skill) => skill.name),
      64,
    );
    shared.close();
    const partial = await engine.search(QUERIES[0]!, { mode: 'hybrid', abstain: false, k: 5 });
    expect(ranked(partial)).toEqual(before[0]);
    await engine.close();
  });

  it('never reads one model’s name vectors for another’s, nor a name vector as a skill vector', async () => {
    const file = path.join(temp(), 'store.sqlite');
    const store = new SharedStore(file);
    const all = SKILLS.map((skill) => skill.name);
    await new NameVectors(store, embedder.id, embedder.dimensions).complete(embedder, all, 64);
    const other: Embedder = { ...embedder, id: `${embedder.id}-other`, embed: embedder.embed.bind(embedder) };
    expect(new NameVectors(store, other.id, embedder.dimensions).every(all)).toBeUndefined();
    expect(new NameVectors(store, embedder.id, embedder.dimensions + 1).every(all)).toBeUndefined();
    expect(nameModel(embedder.id)).not.toBe(nameModel(other.id));
    store.close();
    // A skill's vectors are under `<id>#t2`: an engine syncing the same store embeds every skill.
    const engine = await SkillSearchEngine.open({ embedder, store: file });
    expect(await engine.sync(SKILLS)).toMatchObject({ embedded: SKILLS.length });
    await engine.close();
  });

  it('searches on with today’s model when the store fails or another process holds its write lock', async () => {
    namesOnly();
    const memory = await SkillSearchEngine.open({ embedder, ann: 'exact' });
    await memory.sync(SKILLS);
    const before = await rankings(memory);
    await memory.close();

    // A store whose name reads throw: answered as "none stored".
    const sqlite = SqliteStore.open(path.join(temp(), 'store.sqlite'));
    const failing = new Proxy(sqlite, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (name !== 'vectors') return typeof value === 'function' ? value.bind(target) : value;
        return (model: string, dimensions: number, keys: readonly string[]) => {
          if (model === nameModel(embedder.id)) throw new Error('disk I/O error');
          return sqlite.vectors(model, dimensions, keys);
        };
      },
    }) as EntryStore;
    const broken = await SkillSearchEngine.open({ embedder, ann: 'exact', store: failing });
    await broken.sync(SKILLS);
    expect(await rankings(broken)).toEqual(before);
    await broken.close();
    sqlite.close();

    // Names stored, then another process takes the write lock: reading them (and marking them used) does not wait or fail.
    const file = path.join(temp(), 'store.sqlite');
    const engine = await SkillSearchEngine.open({ embedder, ann: 'exact', store: file });
    await engine.sync(SKILLS);
    await engine.completeNames();
    const withNames = await rankings(engine);
    await engine.close();
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    try {
      const locked = await SkillSearchEngine.open({ embedder, ann: 'exact', store: file });
      await locked.sync(SKILLS);
      expect(await rankings(locked)).toEqual(withNames);
      await locked.close();
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  it('names the feature the stored vectors feed', () => {
    expect(RERANK_FEATURES.nameDense).toBe('nameDense');
    expect(NAMES_RERANKER.features).toContain('nameDense');
  });
});
