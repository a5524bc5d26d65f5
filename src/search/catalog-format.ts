import { LEXICAL_FORMAT_VERSION } from '../lexical/lexical-index.js';
import type { CatalogKey } from '../store/entry-store.js';
import type { ResolvedEngineOptions } from './options.js';
import { EMBEDDING_TEXT_VERSION } from './skill-text.js';

/** Bump when what is saved per catalog changes meaning (its members, its lexical index, its graph). */
const CATALOG_LAYOUT = 2;

/** The format a catalog is saved in: its own layout and the lexical index's version, so another version's is never misread. */
export const CATALOG_FORMAT = CATALOG_LAYOUT * 100 + LEXICAL_FORMAT_VERSION;

/** The model, its text version, the index kind and the graph's build parameters a catalog is saved for; vectors are stored under the part before `|`. */
export function catalogModel(options: Pick<ResolvedEngineOptions, 'embedder' | 'ann' | 'hnsw'>): string {
  const graph = options.ann === 'hnsw' ? `:m${options.hnsw.m}:ef${options.hnsw.efConstruction}` : '';
  return `${options.embedder.id}#${EMBEDDING_TEXT_VERSION}|${options.ann}${graph}`;
}

/** Where the catalog stamped `stamp` (its portable stamp) is saved for an engine with `options`. */
export function catalogKey(stamp: string, options: Pick<ResolvedEngineOptions, 'embedder' | 'ann' | 'hnsw'>): CatalogKey {
  return { stamp, model: catalogModel(options), format: CATALOG_FORMAT };
}

/** Where a catalog with these stamps is saved: under its portable stamp when it has one (so a copy of its folder finds it), else its source stamp. */
export function catalogKeyOf(
  stamps: { readonly sourceStamp: string; readonly portableStamp?: string | undefined },
  options: Pick<ResolvedEngineOptions, 'embedder' | 'ann' | 'hnsw'>,
): CatalogKey {
  return catalogKey(stamps.portableStamp ?? stamps.sourceStamp, options);
}
