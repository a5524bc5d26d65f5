import { describe, expect, it } from 'vitest';
import { createHashEmbedder } from '../../src/embed/hash-embedder.js';
import { dot } from '../../src/embed/normalize.js';

describe('createHashEmbedder', () => {
  it('returns normalised vectors of the requested size, the same for the same text', async () => {
    const embedder = createHashEmbedder({ dimensions: 64 });
    const [a, b] = await embedder.embed(['Extract tables from PDF', 'extract tables from pdf']);
    expect(embedder.id).toBe('hash-64');
    expect(a).toBeInstanceOf(Float32Array);
    expect(a).toHaveLength(64);
    expect(dot(a!, a!)).toBeCloseTo(1, 5);
    expect(Array.from(a!)).toEqual(Array.from(b!));
  });

  it('scores texts that share words above unrelated ones', async () => {
    const [query, near, far] = await createHashEmbedder().embed(['slow sql query', 'speed up a slow SQL query', 'crop a holiday photo']);
    expect(dot(query!, near!)).toBeGreaterThan(dot(query!, far!));
  });

  it('rejects a bad dimension count with the value in the message', () => {
    expect(() => createHashEmbedder({ dimensions: 1 })).toThrow('Expected `dimensions` to be an integer ≥ 2, got `1`');
  });

  it('rejects with an AbortError when the signal is already aborted', async () => {
    await expect(createHashEmbedder().embed(['x'], AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' });
  });
});
