import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { graphRows, HnswIndex } from '../../src/vector-index/hnsw-index.js';
import type { SavedEntry } from '../../src/vector-index/vector-index.js';
import { randomVectors } from './helpers.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('graph-rows');
const DIMENSIONS = 8;
const VECTORS = randomVectors(12, DIMENSIONS, 3);

/** A graph file of 12 vectors where s3 and s7 were removed and s12 revived label 7 (the last freed): label 3 is free. */
function writeGraph(): { file: string; index: HnswIndex } {
  const index = new HnswIndex(DIMENSIONS);
  VECTORS.forEach((vector, i) => index.upsert(`s${i}`, vector, `t${i}`));
  index.remove('s3');
  index.remove('s7');
  index.upsert('s12', VECTORS[3]!, 't12');
  const file = join(tempDir(), 'graph.bin');
  index.writeData(file);
  return { file, index };
}

function savedEntries(index: HnswIndex, offsetOf: (label: number) => number): SavedEntry[] {
  return index.entries().map(({ id, tag, label }) => [id, tag, label, offsetOf(label)]);
}

describe('graphRows', () => {
  it('finds each label’s vector in the level-0 block of the graph file', () => {
    const { file, index } = writeGraph();
    const bytes = readFileSync(file);
    const rows = graphRows(bytes, DIMENSIONS)!;
    expect(rows.offsets).toBeInstanceOf(Float64Array);
    expect(rows.offsets.length).toBe(12);
    for (const { id, label } of index.entries()) {
      const at = rows.offsets[label]!;
      const stored = new Float32Array(bytes.buffer.slice(bytes.byteOffset + at, bytes.byteOffset + at + 4 * DIMENSIONS));
      expect(Array.from(stored), id).toEqual(Array.from(index.vectorOf(id)!));
    }
  });

  it('refuses a header that does not describe vectors of these dimensions', () => {
    const { file } = writeGraph();
    expect(graphRows(readFileSync(file), DIMENSIONS + 1)).toBeUndefined();
    expect(graphRows(readFileSync(file).subarray(0, 50), DIMENSIONS)).toBeUndefined();
  });
});

describe('HnswIndex.restore', () => {
  it('reads stored vectors at the saved offsets, and through the graph when an entry has none', () => {
    const { file, index } = writeGraph();
    const rows = graphRows(readFileSync(file), DIMENSIONS)!;
    const withOffsets = HnswIndex.restore(
      file,
      DIMENSIONS,
      savedEntries(index, (label) => rows.offsets[label]!),
    );
    const without = HnswIndex.restore(
      file,
      DIMENSIONS,
      savedEntries(index, (label) => (label === 0 ? -1 : rows.offsets[label]!)),
    );
    for (const restored of [withOffsets, without]) {
      expect(restored.size).toBe(11);
      expect(restored.has('s3')).toBe(false);
      expect(restored.tagOf('s12')).toBe('t12');
      for (const { id } of index.entries()) expect(Array.from(restored.vectorOf(id)!), id).toEqual(Array.from(index.vectorOf(id)!));
      expect(restored.search(VECTORS[3]!, 1)[0]?.id).toBe('s12');
      restored.close();
    }
  });

  it('puts the graph’s labels no entry names on the free list, so the next new skill reuses one', () => {
    const { file, index } = writeGraph();
    const restored = HnswIndex.restore(
      file,
      DIMENSIONS,
      savedEntries(index, () => -1),
    );
    expect(index.entries().find((entry) => entry.id === 's12')?.label).toBe(7);
    restored.upsert('s13', VECTORS[7]!, 't13');
    expect(restored.entries().find((entry) => entry.id === 's13')?.label).toBe(3);
    expect(restored.search(VECTORS[7]!, 1)[0]?.id).toBe('s13');
  });

  it('refuses entries naming a label the graph lacks', () => {
    const { file, index } = writeGraph();
    const entries = [...savedEntries(index, () => -1), ['ghost', 'tg', 40, -1] as const];
    expect(() => HnswIndex.restore(file, DIMENSIONS, entries)).toThrow('hnsw data lacks label 40');
  });
});
