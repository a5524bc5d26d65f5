import { describe, expect, it } from 'vitest';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { SkillSearchEngine } from '../../src/search/engine.js';
import type { Embedder } from '../../src/types.js';
import { counting, makeSkill, SKILLS } from './fixtures.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('engine');

describe('SkillSearchEngine.sync', () => {
  it('embeds every skill once, then nothing when the catalog is unchanged', async () => {
    const embedder = counting();
    const engine = await SkillSearchEngine.open({ embedder });
    expect(await engine.sync(SKILLS)).toEqual({ added: SKILLS.length, updated: 0, removed: 0, unchanged: 0, embedded: SKILLS.length });
    expect(await engine.sync(SKILLS)).toEqual({ added: 0, updated: 0, removed: 0, unchanged: SKILLS.length, embedded: 0 });
    expect(embedder.texts).toHaveLength(SKILLS.length);
  });

  it('re-embeds only the skill whose text changed and drops removed ones from both rankers', async () => {
    const embedder = counting();
    const engine = await SkillSearchEngine.open({ embedder, ann: 'exact' });
    await engine.sync(SKILLS);
    embedder.texts.length = 0;
    const edited = makeSkill({ name: 'pdf', description: 'Compress scanned images inside PDF files.' });
    const next = [edited, ...SKILLS.filter((skill) => skill.name !== 'pdf' && skill.name !== 'sql-optimization')];
    expect(await engine.sync(next)).toEqual({ added: 0, updated: 1, removed: 1, unchanged: SKILLS.length - 2, embedded: 1 });
    expect(embedder.texts).toEqual(['pdf: Compress scanned images inside PDF files.']);
    for (const mode of ['lexical', 'dense', 'hybrid'] as const) {
      const hits = await engine.search('slow sql query', { mode, abstain: false, k: 30 });
      expect(hits.map((hit) => hit.skill.name)).not.toContain('sql-optimization');
    }
    const [top] = await engine.search('compress scanned', { mode: 'lexical' });
    expect(top?.skill).toBe(edited);
  });

  it('reports progress per batch', async () => {
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), batchSize: 8 });
    const calls: [number, number][] = [];
    await engine.sync(SKILLS, { onProgress: (done, total) => calls.push([done, total]) });
    expect(calls).toEqual([
      [0, 22],
      [8, 22],
      [16, 22],
      [22, 22],
    ]);
  });

  it('embeds a text shared by skills with different content once, and gives each its vector', async () => {
    const embedder = counting();
    const engine = await SkillSearchEngine.open({ embedder, ann: 'exact' });
    const original = makeSkill({ name: 'pdf', description: 'Read and merge PDF files.' });
    const fork = { ...makeSkill({ name: 'pdf', description: 'Read and merge PDF files.', id: 'fork:pdf' }), body: '# a fork\n', contentHash: 'f'.repeat(64) };
    expect(await engine.sync([original, fork, ...SKILLS.slice(1)])).toMatchObject({ added: SKILLS.length + 1, embedded: SKILLS.length + 1 });
    expect(embedder.texts).toHaveLength(SKILLS.length);
    expect(embedder.texts.filter((text) => text === 'pdf: Read and merge PDF files.')).toHaveLength(1);
    const hits = await engine.search('read and merge pdf files', { mode: 'dense', abstain: false, k: 2 });
    expect(hits.map((hit) => hit.skill.id).sort()).toEqual(['fork:pdf', 'pdf']);
  });

  it('rejects with an AbortError and leaves the catalog as it was', async () => {
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder() });
    await engine.sync(SKILLS.slice(0, 3));
    const controller = new AbortController();
    const sync = engine.sync(SKILLS, { signal: controller.signal, onProgress: (done) => done > 0 && controller.abort() });
    await expect(sync).rejects.toMatchObject({ name: 'AbortError' });
    expect(engine.size).toBe(3);
  });

  it('gives the event loop turns while it tokenises and embeds a first catalog', async () => {
    // Long bodies make tokenising, not filing, most of the lexical side (as with real SKILL.md files).
    const words = SKILLS.map((skill) => skill.description).join(' ');
    const skills = Array.from({ length: 600 }, (_, i) => ({
      ...makeSkill({ name: `skill-${i}`, description: `${SKILLS[i % SKILLS.length]!.description} ${i}` }),
      body: `${words} ${i}\n`.repeat(8),
    }));
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder(), ann: 'exact' });
    let last = performance.now();
    let longest = 0;
    const ticks = setInterval(() => {
      longest = Math.max(longest, performance.now() - last);
      last = performance.now();
    }, 1);
    const started = performance.now();
    try {
      await engine.sync(skills);
    } finally {
      clearInterval(ticks);
    }
    const took = performance.now() - started;
    longest = Math.max(longest, performance.now() - last);
    // Whole, the sync is one block (longest ≈ took); in slices, the longest is the filing at the end.
    expect(took).toBeGreaterThan(100);
    expect(longest).toBeLessThan(took / 2);
  });

  it('keeps the first of two skills with the same id', async () => {
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder() });
    const first = makeSkill({ name: 'dup', description: 'first version' });
    const second = makeSkill({ name: 'dup', description: 'second version' });
    await engine.sync([first, second]);
    expect(engine.size).toBe(1);
    expect((await engine.search('dup', { mode: 'lexical' }))[0]?.skill).toBe(first);
  });
});

describe('SkillSearchEngine persistence', () => {
  it('a new engine over the same store embeds nothing and answers the same', async () => {
    const dir = tempDir();
    const first = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir });
    await first.sync(SKILLS);
    const before = await first.search('kubernetes deploy', { mode: 'dense', abstain: false });
    await first.close();

    const embedder = counting();
    const second = await SkillSearchEngine.open({ embedder, indexDir: dir });
    expect(await second.sync(SKILLS)).toMatchObject({ added: SKILLS.length, embedded: 0 });
    expect(embedder.texts).toEqual([]);
    const after = await second.search('kubernetes deploy', { mode: 'dense', abstain: false });
    expect(after.map((hit) => [hit.skill.name, hit.score])).toEqual(before.map((hit) => [hit.skill.name, hit.score]));
  });

  it('embeds everything again for another model: stored vectors are kept by model', async () => {
    const dir = tempDir();
    const first = await SkillSearchEngine.open({ embedder: createHashEmbedder({ dimensions: 64 }), indexDir: dir });
    await first.sync(SKILLS);
    const embedder = counting(createHashEmbedder({ dimensions: 32 }));
    const second = await SkillSearchEngine.open({ embedder, indexDir: dir });
    expect(await second.sync(SKILLS)).toMatchObject({ added: SKILLS.length, embedded: SKILLS.length });
  });

  it('re-embeds only the edited skill after a restart', async () => {
    const dir = tempDir();
    const first = await SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDir: dir, ann: 'hnsw' });
    await first.sync(SKILLS);
    await first.close();
    const embedder = counting();
    const second = await SkillSearchEngine.open({ embedder, indexDir: dir, ann: 'hnsw' });
    const edited = makeSkill({ name: 'docx', description: 'Write Word files.' });
    const result = await second.sync(SKILLS.map((skill) => (skill.name === 'docx' ? edited : skill)));
    expect(result).toMatchObject({ added: SKILLS.length, embedded: 1 });
    expect(embedder.texts).toEqual(['docx: Write Word files.']);
  });
});

describe('SkillSearchEngine lifecycle and options', () => {
  it('close() is idempotent and later calls fail with a clear error', async () => {
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder() });
    const closing = engine.close();
    expect(engine.close()).toBe(closing);
    await closing;
    await expect(engine.search('pdf')).rejects.toThrow('skill-search: the search engine is closed');
    // The caller's mistake (CLI exit 1), not a bug: searching and syncing alike.
    for (const late of [engine.search('pdf'), engine.sync(SKILLS)]) {
      await expect(late).rejects.toMatchObject({ code: 'CLOSED', isUserError: true, message: 'skill-search: the search engine is closed' });
    }
  });

  it('refuses an option it does not have, naming it, the nearest and every option (a misspelling from plain JavaScript)', async () => {
    const typo = SkillSearchEngine.open({ embedder: createHashEmbedder(), indexDirectory: '/tmp/x' } as never);
    await expect(typo).rejects.toMatchObject({ code: 'BAD_OPTION' });
    await expect(typo).rejects.toThrow(
      /^skill-search: Expected an option of SkillSearchEngine, got `indexDirectory` \(did you mean `indexDir`\?\); its options: embedder, indexDir, store, storeWriter, ann, .*, crossLingual$/,
    );
  });

  it('refuses a query that is not a string with one line naming it', async () => {
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder() });
    await engine.sync(SKILLS);
    for (const query of [{ query: 'pdf' }, undefined, 42]) {
      const searched = engine.search(query as never);
      await expect(searched).rejects.toMatchObject({ code: 'BAD_OPTION' });
      await expect(searched).rejects.toThrow(`skill-search: Expected \`query\` to be a string, got \`${JSON.stringify(query) ?? 'undefined'}\``);
    }
    await expect(engine.explain({ query: 'pdf' } as never)).rejects.toThrow('Expected `query` to be a string');
  });

  it('refuses skills that are not an array of loaded skills with one line, not a TypeError (the whole snapshot of catalog.get() passed from plain JavaScript)', async () => {
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder() });
    const snapshot = { skills: SKILLS, diagnostics: [], shadowed: [] };
    await expect(engine.sync(snapshot as never)).rejects.toMatchObject({
      code: 'BAD_OPTION',
      message:
        'skill-search: Expected `skills` to be an array of skills (the `skills` of catalog.get()), got an object with keys skills, diagnostics, shadowed',
    });
    await expect(engine.sync('pdf' as never)).rejects.toThrow('Expected `skills` to be an array of skills (the `skills` of catalog.get()), got a string');
    await expect(engine.sync([{ name: 'pdf' }] as never)).rejects.toThrow(
      'Expected `skills` to be an array of skills (the `skills` of catalog.get()), got an array whose item 0 is not one (no string `id` and `contentHash`)',
    );
    expect(await engine.sync(SKILLS)).toMatchObject({ added: SKILLS.length });
    await engine.close();
  });

  it('validates options with the offending value', async () => {
    await expect(SkillSearchEngine.open({ embedder: createHashEmbedder(), k: 0 })).rejects.toThrow('Expected `k` to be a positive integer, got `0`');
    await expect(SkillSearchEngine.open({ embedder: createHashEmbedder(), ann: 'faiss' as 'hnsw' })).rejects.toThrow(
      'Expected `ann` to be "hnsw" or "exact", got `"faiss"`',
    );
    await expect(SkillSearchEngine.open({ embedder: createHashEmbedder(), abstain: 1.5 })).rejects.toThrow(
      'Expected `abstain` to be one of strict, balanced, off or a number from 0 to 1, got `1.5`',
    );
    await expect(SkillSearchEngine.open({ embedder: createHashEmbedder(), queryCacheSize: -1 })).rejects.toThrow(
      'Expected `queryCacheSize` to be a non-negative integer, got `-1`',
    );
    await expect(SkillSearchEngine.open({ embedder: createHashEmbedder(), longQuery: { terms: 0, denseShare: 0.2 } })).rejects.toThrow(
      'Expected `longQuery.terms` to be a positive integer, got `0`',
    );
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder() });
    await expect(engine.search('x', { mode: 'semantic' as 'dense' })).rejects.toThrow('Expected `mode` to be one of hybrid, dense, lexical, got `"semantic"`');
  });

  it('embeds a repeated query once (query cache), and every time when the cache is off', async () => {
    const calls: string[] = [];
    const counting = (queryCacheSize: number) => {
      const inner = createHashEmbedder();
      return SkillSearchEngine.open({
        queryCacheSize,
        embedder: { id: inner.id, dimensions: inner.dimensions, embed: (texts, signal) => (calls.push(...texts), inner.embed(texts, signal)) },
      });
    };
    const cached = await counting(8);
    await cached.sync(SKILLS);
    calls.length = 0;
    await cached.search('merge two pdf files');
    await cached.search('merge two  pdf files ');
    expect(calls).toEqual(['merge two pdf files']);
    const uncached = await counting(0);
    await uncached.sync(SKILLS);
    calls.length = 0;
    await uncached.search('merge two pdf files');
    await uncached.search('merge two pdf files');
    expect(calls).toEqual(['merge two pdf files', 'merge two pdf files']);
  });

  it('returns nothing for an empty query or an empty catalog', async () => {
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder() });
    expect(await engine.search('pdf')).toEqual([]);
    await engine.sync(SKILLS);
    expect(await engine.search('   ')).toEqual([]);
  });

  it('rejects a search whose signal is aborted', async () => {
    const engine = await SkillSearchEngine.open({ embedder: createHashEmbedder() });
    await engine.sync(SKILLS);
    await expect(engine.search('pdf', { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('rejects promptly when aborted while the query is being embedded', async () => {
    const fast = createHashEmbedder();
    let stall = false;
    const embedder: Embedder = {
      id: fast.id,
      dimensions: fast.dimensions,
      embed: (texts) => (stall ? new Promise<never>(() => undefined) : fast.embed(texts)),
    };
    const engine = await SkillSearchEngine.open({ embedder });
    await engine.sync(SKILLS);
    stall = true;
    const controller = new AbortController();
    const search = engine.search('pdf tables', { signal: controller.signal });
    controller.abort();
    await expect(search).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('ranks the catalog a sync left behind while a hybrid search awaited its query vector', async () => {
    const fast = createHashEmbedder();
    let release: (() => void) | undefined;
    const embedder: Embedder = {
      id: fast.id,
      dimensions: fast.dimensions,
      embed: async (texts, signal, kind) => {
        if (kind === 'query' && release === undefined) await new Promise<void>((resolve) => (release = resolve));
        return fast.embed(texts, signal, kind);
      },
    };
    const engine = await SkillSearchEngine.open({ embedder, queryCacheSize: 0, ann: 'exact' });
    await engine.sync(SKILLS);
    const before = await (async () => {
      const search = engine.search('merge pdf pages', { abstain: false });
      await new Promise((resolve) => setTimeout(resolve, 0));
      release!();
      return search;
    })();
    expect(before[0]?.skill.id).toBe('pdf');
    release = undefined;
    // BM25 runs before the query is embedded; the sync lands in between and removes its best hit.
    const search = engine.search('merge pdf pages', { abstain: false });
    await new Promise((resolve) => setTimeout(resolve, 0));
    await engine.sync(
      SKILLS.filter((skill) => skill.id !== 'pdf'),
      { dense: false },
    );
    release!();
    const hits = await search;
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((hit) => hit.skill !== undefined && hit.skill.id !== 'pdf')).toBe(true);
  });
});
