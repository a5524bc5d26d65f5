/**
 * The dense side's query chunks and catalog centring, as seen through the engine (hash embedder;
 * the ordering effects with a real model are in ranking.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import { ENGINE_DEFAULTS, type EngineOptions } from '../../src/search/options.js';
import type { Embedder, SearchHit } from '../../src/types.js';
import { useTempDirs } from '../support/temp-dirs.js';
import { counting, KIND_TOOLS, SKILLS } from './fixtures.js';

const tempDir = useTempDirs('engine-dense');
const QUERIES = ['kubernetes deploy', 'slow database query', 'crop a photo. translate the caption'];

async function denseResults(engine: SkillSearchEngine): Promise<[string, number][][]> {
  const out: [string, number][][] = [];
  for (const query of QUERIES) {
    const hits = await engine.search(query, { mode: 'dense', abstain: false, k: 8 });
    out.push(hits.map((hit: SearchHit) => [hit.skill.name, hit.score]));
  }
  return out;
}

describe('catalog centring', () => {
  it('is rebuilt from the persisted vectors: a reopened engine, synced lexical-only first, orders exactly as before', async () => {
    const dir = tempDir();
    const first = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir });
    await first.sync(SKILLS);
    const before = await denseResults(first);
    await first.close();

    const embedder = counting();
    const second = await SkillSearchEngine.open({ embedder, indexDir: dir });
    await second.sync(SKILLS, { dense: false });
    expect(await denseResults(second)).toEqual(before);
    // Only query texts were embedded: nothing of the catalog, and nothing learned from queries.
    expect(embedder.texts.every((text) => QUERIES.some((query) => query.includes(text)))).toBe(true);
  });

  it('follows the catalog: after skills are removed, the order is that of a fresh engine over what is left', async () => {
    const kept = SKILLS.filter((_, i) => i % 3 !== 0);
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann: 'exact' });
    await engine.sync(SKILLS);
    const full = await denseResults(engine);
    await engine.sync(kept);
    const fresh = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann: 'exact' });
    await fresh.sync(kept);
    const expected = await denseResults(fresh);
    expect(await denseResults(engine)).toEqual(expected);
    // The centroid did change: the same skill scores differently against the smaller catalog.
    const score = (results: [string, number][][], name: string): number | undefined => results[0]!.find(([skill]) => skill === name)?.[1];
    expect(score(expected, 'kubernetes-deploy')).not.toBe(score(full, 'kubernetes-deploy'));
  });
});

describe('centring off (EngineOptions.centring: false)', () => {
  // The dense side alone decides the hybrid order here: no BM25 share, no re-ranker, no guard.
  const denseOnly = {
    denseShare: 1,
    longQuery: { terms: 32, denseShare: 1 },
    evidenceRerank: false,
    keepLexical: 0,
    boundaries: { penalty: 0, insteadBoost: 0 },
  };
  const explained = async (centring: boolean, mode: 'hybrid' | 'dense') => {
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann: 'exact', centring, ...denseOnly });
    await engine.sync(SKILLS);
    const hits = await engine.search('slow database query', { mode, abstain: false, k: 8, explain: true });
    await engine.close();
    return hits.map((hit) => ({ id: hit.skill.id, ...hit.why!.dense! }));
  };
  const descending = (values: number[]): number[] => [...values].sort((a, b) => b - a);

  it('orders hybrid candidates by plain cosine, while centred engines order by the centred one; both report the centred score', async () => {
    const plain = await explained(false, 'hybrid');
    const centred = await explained(true, 'hybrid');
    expect(plain.map((dense) => dense.cosine)).toEqual(descending(plain.map((dense) => dense.cosine)));
    expect(centred.map((dense) => dense.centered)).toEqual(descending(centred.map((dense) => dense.centered)));
    // The same skills carry the same centred score whichever orders them (the relevance model reads it).
    const centredOf = new Map(centred.map((dense) => [dense.id, dense.centered]));
    for (const dense of plain) if (centredOf.has(dense.id)) expect(dense.centered).toBeCloseTo(centredOf.get(dense.id)!, 6);
    expect(plain.some((dense) => Math.abs(dense.centered - dense.cosine) > 1e-6)).toBe(true);
  });

  it('leaves dense mode ordered by the centred cosine, the score its relevance model reads', async () => {
    const plain = await explained(false, 'dense');
    expect(plain.map((dense) => dense.centered)).toEqual(descending(plain.map((dense) => dense.centered)));
    expect(plain).toEqual(await explained(true, 'dense'));
  });
});

describe('query chunks', () => {
  it('embeds the whole message and each of its sentences', async () => {
    const embedder = counting();
    const engine = await SkillSearchEngine.open({ embedder, queryCacheSize: 0, queryChunks: { lexicalMargin: 0 } });
    await engine.sync(SKILLS);
    embedder.texts.length = 0;
    const first = 'Crop the holiday photo to a square, sharpen the faces and brighten the evening sky.';
    const second = 'Translate the caption into Japanese, keeping product names in English.';
    await engine.search(`${first} ${second}`, { mode: 'hybrid' });
    expect(embedder.texts).toEqual([`${first} ${second}`, first, second]);
  });

  it('skips the sentence embeddings in hybrid when BM25 has singled one skill out, and only then', async () => {
    const message =
      'Crop the holiday photo to a square, sharpen the faces and brighten the evening sky. Translate the caption into Japanese, keeping product names in English.';
    const embedded = async (gate: { lexicalMargin: number; lexicalCoverage: number }, mode: 'hybrid' | 'dense') => {
      const embedder = counting();
      const engine = await SkillSearchEngine.open({ embedder, queryCacheSize: 0, queryChunks: gate });
      await engine.sync(SKILLS);
      embedder.texts.length = 0;
      await engine.search(message, { mode });
      return embedder.texts.length;
    };
    const engine = await SkillSearchEngine.open({ embedder: counting() });
    await engine.sync(SKILLS);
    const [first, second] = (await engine.rank(message, { mode: 'lexical' })).ranked.ranked;
    const margin = first!.lexical! / second!.lexical!;
    const coverage = first!.coverage!;
    expect(margin).toBeGreaterThan(1);
    expect(coverage).toBeGreaterThan(0);
    expect(await embedded({ lexicalMargin: margin * 0.999, lexicalCoverage: coverage }, 'hybrid')).toBe(1);
    expect(await embedded({ lexicalMargin: margin * 1.01, lexicalCoverage: 0 }, 'hybrid')).toBe(3);
    expect(await embedded({ lexicalMargin: margin * 0.999, lexicalCoverage: coverage * 1.01 }, 'hybrid')).toBe(3);
    expect(await embedded({ lexicalMargin: 0, lexicalCoverage: 0 }, 'hybrid')).toBe(3);
    // Dense mode has no lexical evidence to go on.
    expect(await embedded({ lexicalMargin: margin * 0.999, lexicalCoverage: 0 }, 'dense')).toBe(3);
  });

  it(`embeds a message of fewer than ${ENGINE_DEFAULTS.queryChunks.minTerms} distinct terms whole only`, async () => {
    const embedder = counting();
    const engine = await SkillSearchEngine.open({ embedder, queryCacheSize: 0 });
    await engine.sync(SKILLS);
    embedder.texts.length = 0;
    await engine.search('Crop the photo. Translate the caption into Japanese.', { mode: 'hybrid' });
    await engine.search('Crop the photo. Translate the caption into Japanese.', { mode: 'dense' });
    expect(embedder.texts).toEqual(['Crop the photo. Translate the caption into Japanese.', 'Crop the photo. Translate the caption into Japanese.']);
  });

  it('embeds all chunks of a message in one model call, and a repeated message not at all', async () => {
    const base = createHashEmbedder();
    const batches: string[][] = [];
    const embedder: Embedder = { id: base.id, dimensions: base.dimensions, embed: (texts, signal) => (batches.push([...texts]), base.embed(texts, signal)) };
    const engine = await SkillSearchEngine.open({ embedder, ann: 'exact' });
    await engine.sync(SKILLS);
    batches.length = 0;
    const sentences = [
      'Crop the holiday photo to a square.',
      'Translate the caption into Japanese for the shop.',
      'Then deploy the updated gallery site to the production servers of our three regional stores.',
    ];
    const message = sentences.join(' ');
    const first = await engine.search(message, { mode: 'dense', abstain: false });
    expect(batches).toEqual([[message], sentences]);
    batches.length = 0;
    expect(await engine.search(message, { mode: 'dense', abstain: false })).toEqual(first);
    expect(batches).toEqual([]);
  });

  it('embeds only the whole message when a query is so long that hybrid gives dense no share (dense mode still chunks)', async () => {
    const embedder = counting();
    const engine = await SkillSearchEngine.open({ embedder, queryCacheSize: 0, longQuery: { terms: 4, denseShare: 0 } });
    await engine.sync(SKILLS);
    embedder.texts.length = 0;
    const long =
      'Parse the binary mesh file from the scanner. Compute each component volume in litres. Look up material densities online. Report mass totals per assembly.';
    await engine.search(long, { mode: 'hybrid' });
    expect(embedder.texts).toEqual([long]);
    embedder.texts.length = 0;
    await engine.search(long, { mode: 'dense' });
    expect(embedder.texts).toHaveLength(5);
  });

  it("reads the long-query ramp of the catalogue's kind", async () => {
    const long =
      'Parse the binary mesh file from the scanner. Compute each component volume in litres. Look up material densities online. Report mass totals per assembly.';
    const embedded = async (longQuery: EngineOptions['longQuery']): Promise<number> => {
      const embedder = counting();
      const engine = await SkillSearchEngine.open({ embedder, queryCacheSize: 0, longQuery });
      await engine.sync(KIND_TOOLS);
      embedder.texts.length = 0;
      await engine.search(long, { mode: 'hybrid' });
      await engine.close();
      return embedder.texts.length;
    };
    expect(await embedded({ tools: { terms: 4, denseShare: 0 } })).toBe(1);
    expect(await embedded({ skills: { terms: 4, denseShare: 0 } })).toBeGreaterThan(1);
  });
});
