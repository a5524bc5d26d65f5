import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EmbeddingCache, embeddingCacheFile } from '../../src/embed/embedding-cache.js';
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
