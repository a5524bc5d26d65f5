import { definedOnly } from '../util/defined.js';
import { assertPositiveInteger, badKnob, nestedKnobs } from '../util/option-checks.js';
import type { VectorIndexKind } from './vector-index.js';

/** The HNSW graph's build and search parameters (usearch's `connectivity`, `expansion_add`, `expansion_search`; see {@link VectorIndexKnobs.hnsw}). */
export interface HnswOptions {
  /** Graph degree: links per node per layer. */
  readonly m: number;
  /** Candidate list while building. */
  readonly efConstruction: number;
  /** Candidate list while searching (usearch widens it to k when k is larger). */
  readonly efSearch: number;
}

/** The nearest-neighbour index's knobs, part of `EngineOptions`. */
export interface VectorIndexKnobs {
  /** Nearest-neighbour structure: `exact` scans every vector (the recall baseline; fine for small catalogs). @default 'hnsw' */
  readonly ann?: VectorIndexKind;
  /**
   * HNSW graph parameters (`ann: 'hnsw'`): `efSearch` trades a little latency for agreement with
   * the exact scan on large catalogs; `m` and `efConstruction` take effect on a fresh graph.
   * @default {m: 16, efConstruction: 200, efSearch: 128}
   */
  readonly hnsw?: Partial<HnswOptions>;
}

export interface ResolvedVectorIndexKnobs {
  readonly ann: VectorIndexKind;
  readonly hnsw: HnswOptions;
}

/** The values of {@link VectorIndexKnobs}; an HNSW index given no parameters uses these. */
export const VECTOR_INDEX_DEFAULTS: ResolvedVectorIndexKnobs = Object.freeze({
  ann: 'hnsw',
  hnsw: Object.freeze({ m: 16, efConstruction: 200, efSearch: 128 }),
});

/** Merges over {@link VECTOR_INDEX_DEFAULTS} (`hnsw` field by field), validates, freezes. */
export function resolveVectorIndexKnobs(given: { readonly [knob in keyof VectorIndexKnobs]?: unknown }): ResolvedVectorIndexKnobs {
  const merged = { ...VECTOR_INDEX_DEFAULTS, ...definedOnly(given) };
  if (merged.ann !== 'hnsw' && merged.ann !== 'exact') throw badKnob('ann', '"hnsw" or "exact"', merged.ann);
  const hnsw = nestedKnobs('hnsw', VECTOR_INDEX_DEFAULTS.hnsw, merged.hnsw);
  return Object.freeze({
    ann: merged.ann,
    hnsw: Object.freeze({
      m: assertPositiveInteger('hnsw.m', hnsw.m),
      efConstruction: assertPositiveInteger('hnsw.efConstruction', hnsw.efConstruction),
      efSearch: assertPositiveInteger('hnsw.efSearch', hnsw.efSearch),
    }),
  });
}
