import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deltaFileFor, EmbeddingCache, embeddingCacheFile } from '../../src/embed/embedding-cache.js';
import { useTempDirs } from '../support/temp-dirs.js';

const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);
const tempDir = useTempDirs('cache');

describe('EmbeddingCache', () => {
  it('round-trips vectors through the file', () => {
    const dir = tempDir();
    const cache = new EmbeddingCache({ model: 'm1', dimensions: 3, dir });
    expect(cache.status).toBe('missing');
    cache.set(HASH_A, Float32Array.of(1, 0, 0));
    cache.set(HASH_B, Float32Array.of(0, 0.6, 0.8));
    cache.save();
    const reopened = new EmbeddingCache({ model: 'm1', dimensions: 3, dir });
    expect(reopened.status).toBe('loaded');
    expect(reopened.size).toBe(2);
    expect(Array.from(reopened.get(HASH_B)!)).toEqual([0, Float32Array.of(0.6)[0], Float32Array.of(0.8)[0]]);
    expect(reopened.dirty).toBe(false);
  });

  it('keeps one file per model, so another model starts empty', () => {
    const dir = tempDir();
    const cache = new EmbeddingCache({ model: 'm1', dimensions: 3, dir });
    cache.set(HASH_A, Float32Array.of(1, 0, 0));
    cache.save();
    expect(new EmbeddingCache({ model: 'm2', dimensions: 3, dir }).size).toBe(0);
    expect(embeddingCacheFile(dir, 'm1')).not.toBe(embeddingCacheFile(dir, 'm2'));
  });

  it('starts empty when the file is truncated or its bytes changed', () => {
    const dir = tempDir();
    const cache = new EmbeddingCache({ model: 'm1', dimensions: 3, dir });
    cache.set(HASH_A, Float32Array.of(1, 0, 0));
    cache.save();
    const file = embeddingCacheFile(dir, 'm1');
    const bytes = readFileSync(file);
    writeFileSync(file, bytes.subarray(0, bytes.length - 5));
    expect(new EmbeddingCache({ model: 'm1', dimensions: 3, dir })).toMatchObject({ status: 'corrupt', size: 0 });
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 1]! ^= 0xff;
    writeFileSync(file, flipped);
    expect(new EmbeddingCache({ model: 'm1', dimensions: 3, dir })).toMatchObject({ status: 'corrupt', size: 0 });
  });

  it('reports a mismatch when the dimensions differ', () => {
    const dir = tempDir();
    const cache = new EmbeddingCache({ model: 'm1', dimensions: 3, dir });
    cache.set(HASH_A, Float32Array.of(1, 0, 0));
    cache.save();
    expect(new EmbeddingCache({ model: 'm1', dimensions: 4, dir })).toMatchObject({ status: 'mismatch', size: 0 });
  });

  it('drops entries of skills that are gone', () => {
    const cache = new EmbeddingCache({ model: 'm1', dimensions: 1 });
    cache.set(HASH_A, Float32Array.of(1));
    cache.set(HASH_B, Float32Array.of(1));
    cache.retain(new Set([HASH_B]));
    expect(cache.get(HASH_A)).toBeUndefined();
    expect(cache.size).toBe(1);
  });

  it('refuses a vector of the wrong size', () => {
    const cache = new EmbeddingCache({ model: 'm1', dimensions: 2 });
    expect(() => cache.set(HASH_A, Float32Array.of(1))).toThrow('Expected a 2-dimensional vector, got 1');
  });
});

describe('EmbeddingCache deltas', () => {
  const HASHES = Array.from({ length: 40 }, (_, i) => i.toString(16).padStart(64, '0'));
  const vector = (i: number) => Float32Array.of(i, 1, 0);

  function based(dir: string): EmbeddingCache {
    const cache = new EmbeddingCache({ model: 'm1', dimensions: 3, dir });
    HASHES.forEach((hash, i) => cache.set(hash, vector(i)));
    cache.save();
    return cache;
  }

  it('save a few changes beside the base file, which stays as written, and replay them on load', () => {
    const dir = tempDir();
    const cache = based(dir);
    const file = embeddingCacheFile(dir, 'm1');
    const baseBytes = readFileSync(file);
    cache.set(HASH_A, Float32Array.of(9, 9, 9));
    cache.retain(new Set([...HASHES.slice(1), HASH_A]));
    cache.save();
    expect(readFileSync(file).equals(baseBytes)).toBe(true);
    expect(existsSync(deltaFileFor(file))).toBe(true);
    const reopened = new EmbeddingCache({ model: 'm1', dimensions: 3, dir });
    expect(reopened).toMatchObject({ status: 'loaded', size: 40, dirty: false });
    expect(reopened.get(HASHES[0]!)).toBeUndefined();
    expect(Array.from(reopened.get(HASH_A)!)).toEqual([9, 9, 9]);
    expect(Array.from(reopened.get(HASHES[5]!)!)).toEqual([5, 1, 0]);
  });

  it('ignore a damaged delta: the base loads and the delta holds nothing', () => {
    const dir = tempDir();
    const cache = based(dir);
    cache.set(HASH_A, Float32Array.of(9, 9, 9));
    cache.save();
    const delta = deltaFileFor(embeddingCacheFile(dir, 'm1'));
    const bytes = readFileSync(delta);
    bytes[bytes.length - 1]! ^= 0xff;
    writeFileSync(delta, bytes);
    const reopened = new EmbeddingCache({ model: 'm1', dimensions: 3, dir });
    expect(reopened).toMatchObject({ status: 'loaded', size: 40 });
    expect(reopened.get(HASH_A)).toBeUndefined();
  });

  it('rewrite the base and drop the delta once the changes are a large share of the cache', () => {
    const dir = tempDir();
    const cache = based(dir);
    const file = embeddingCacheFile(dir, 'm1');
    cache.set(HASH_A, Float32Array.of(9, 9, 9));
    cache.save();
    HASHES.forEach((hash, i) => cache.set(hash, vector(i + 100)));
    cache.save();
    expect(existsSync(deltaFileFor(file))).toBe(false);
    const reopened = new EmbeddingCache({ model: 'm1', dimensions: 3, dir });
    expect(reopened.size).toBe(41);
    expect(Array.from(reopened.get(HASHES[3]!)!)).toEqual([103, 1, 0]);
    expect(Array.from(reopened.get(HASH_A)!)).toEqual([9, 9, 9]);
  });
});
