export type { VectorIndexKind, VectorMatch } from './vector-index.js';
export { CatalogVectors, type CatalogVectorsOptions } from './catalog-vectors.js';
export { VECTOR_DEFAULTS, type DenseSide } from './dense-side.js';
export { LabelGraph, type HnswOptions, type LabelMatch } from './label-graph.js';
export { StoredVectors } from './stored-vectors.js';
export { TopK } from './top-k.js';
