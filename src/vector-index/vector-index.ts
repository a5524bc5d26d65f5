import { SkillSearchError } from '../errors.js';

/** A nearest-neighbour match: `score` is the cosine similarity (vectors are normalised). */
export interface VectorMatch {
  readonly id: string;
  readonly score: number;
}

export type VectorIndexKind = 'hnsw' | 'exact';

/**
 * The seam between the search engine and an ANN structure. Ids are skill ids; each entry
 * carries an opaque `tag` (the engine stores the embedding cache key) so a reopened index
 * can tell which entries are still current.
 */
export interface VectorIndex {
  readonly kind: VectorIndexKind;
  readonly dimensions: number;
  readonly size: number;
  has(id: string): boolean;
  tagOf(id: string): string | undefined;
  ids(): IterableIterator<string>;
  /** Adds or replaces; `vector` must be normalised and `dimensions` long. */
  upsert(id: string, vector: Float32Array, tag: string): void;
  remove(id: string): boolean;
  /**
   * The stored vector, the only copy the process holds: a view that is valid until the next
   * change to the index (copy it to keep it).
   */
  vectorOf(id: string): Float32Array | undefined;
  /** At most `k` matches, best first. */
  search(query: Float32Array, k: number): VectorMatch[];
  /** Every entry with its storage label, for the manifest. */
  entries(): PersistedEntry[];
  /** Writes the vector data (not the entry map) to `file`; the caller makes it atomic. */
  writeData(file: string): void;
  /** Releases what the index holds open (a file handle); the index must not be used after. */
  close(): void;
}

/** One manifest row: a skill id, its tag, and where its vector lives in the data file. */
export interface PersistedEntry {
  readonly id: string;
  readonly tag: string;
  readonly label: number;
}

/**
 * A manifest row as `vector-entries` saves it and a restore reads it: `[id, tag, label, offset]`,
 * offset being where the label's vector starts in an HNSW graph file, or -1 when unknown (an
 * exact index, or a graph laid out otherwise). Tuples as parsed, not objects: a cold search
 * restores tens of thousands of them.
 */
export type SavedEntry = readonly [id: string, tag: string, label: number, offset: number];

export function assertDimensions(vector: Float32Array, dimensions: number): void {
  if (vector.length !== dimensions) {
    throw new SkillSearchError('INTERNAL', `Expected a ${dimensions}-dimensional vector, got ${vector.length}`);
  }
}
