import { describe, expect, it } from 'vitest';
import { normalizeQueryText, QueryEmbeddingCache } from '../../src/embed/query-cache.js';
import type { Embedder } from '../../src/types.js';

/** An embedder that records every text it is asked for; `gate` holds calls until released. */
function recording(gate?: Promise<void>): Embedder & { calls: string[] } {
  const calls: string[] = [];
  return {
    id: 'rec',
    dimensions: 2,
    calls,
    async embed(texts) {
      calls.push(...texts);
      if (gate !== undefined) await gate;
      if (texts[0] === 'fail') throw new Error('model crashed');
      return texts.map((text) => Float32Array.of(text.length, 1));
    },
  };
}

describe('normalizeQueryText', () => {
  it('trims and collapses whitespace but keeps case', () => {
    expect(normalizeQueryText('  Fix   the\tCI \n')).toBe('Fix the CI');
  });
});

describe('QueryEmbeddingCache', () => {
  it('embeds a repeated query once, whitespace differences included', async () => {
    const embedder = recording();
    const cache = new QueryEmbeddingCache(embedder, 4);
    const first = await cache.embed('fix the CI');
    const second = await cache.embed('  fix  the CI ');
    expect(second).toBe(first);
    expect(embedder.calls).toEqual(['fix the CI']);
  });

  it('evicts the least recently used query beyond its capacity', async () => {
    const embedder = recording();
    const cache = new QueryEmbeddingCache(embedder, 2);
    await cache.embed('a');
    await cache.embed('b');
    await cache.embed('a'); // a is now the most recent, b the least
    await cache.embed('c'); // evicts b
    await cache.embed('a');
    await cache.embed('b');
    expect(embedder.calls).toEqual(['a', 'b', 'c', 'b']);
    expect(cache.size).toBe(2);
  });

  it('shares one model call between concurrent searches for the same query', async () => {
    let release!: () => void;
    const embedder = recording(new Promise((resolve) => (release = resolve)));
    const cache = new QueryEmbeddingCache(embedder, 4);
    const pending = [cache.embed('pdf tables'), cache.embed('pdf tables')];
    release();
    const [a, b] = await Promise.all(pending);
    expect(a).toBe(b);
    expect(embedder.calls).toEqual(['pdf tables']);
  });

  it('lets one caller abort without failing another waiting on the same query', async () => {
    let release!: () => void;
    const embedder = recording(new Promise((resolve) => (release = resolve)));
    const cache = new QueryEmbeddingCache(embedder, 4);
    const controller = new AbortController();
    const aborted = cache.embed('deploy', controller.signal);
    const other = cache.embed('deploy');
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
    release();
    expect(Array.from(await other)).toEqual([6, 1]);
  });

  it('forgets a failed call so the next search tries the model again', async () => {
    const embedder = recording();
    const cache = new QueryEmbeddingCache(embedder, 4);
    await expect(cache.embed('fail')).rejects.toThrow('model crashed');
    await expect(cache.embed('fail')).rejects.toThrow('model crashed');
    expect(embedder.calls).toEqual(['fail', 'fail']);
    expect(cache.size).toBe(0);
  });

  it('calls the model every time when the capacity is 0', async () => {
    const embedder = recording();
    const cache = new QueryEmbeddingCache(embedder, 0);
    await cache.embed('x');
    await cache.embed('x');
    expect(embedder.calls).toEqual(['x', 'x']);
  });
});
