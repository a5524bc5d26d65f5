export type { VectorIndex, VectorIndexKind, VectorMatch, PersistedEntry, SavedEntry } from './vector-index.js';
export { ExactIndex } from './exact-index.js';
export { UsearchIndex } from './usearch-index.js';
export type { HnswOptions } from './usearch-index.js';
export { VectorStore, createVectorIndex, VECTOR_DATA, VECTOR_ENTRIES } from './store.js';
export type { VectorStoreOptions, VectorStoreStatus } from './store.js';
export { TopK } from './top-k.js';
export { writeFileAtomic, commitTempFile, tempPathFor, removeStaleTempFiles, sha256 } from './atomic-file.js';
