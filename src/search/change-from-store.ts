/** A change of a saved catalog told from the store: a delta's change with its glosses, the vectors it brings and drops. */
import { throwIfAborted } from '../errors.js';
import type { CatalogDelta } from '../load/tools-delta.js';
import type { CatalogMember, StoredCatalog } from '../store/entry-store.js';
import type { SharedStore } from '../store/shared-store.js';
import type { Skill } from '../types.js';
import { changeOfDelta, type BaseChange } from './catalog-change.js';
import type { VectorSources, VectorSupply } from './vector-supply.js';

/** Where a change's glosses and vectors come from: a store there is. */
export type ChangeSources = VectorSources & { readonly shared: SharedStore; readonly supply: VectorSupply };

/** The vectors a change brings and drops, and the base's sum moved by them ({@link changeVectors}). */
export interface ChangeVectors {
  readonly sum: Float64Array;
  readonly vectorOf: (key: string) => Float32Array | undefined;
  readonly embedded: number;
}

/** `changeOfDelta` with the changed skills' glosses, when they can be told without the rest of the catalog; undefined otherwise. */
export async function changeOfDeltaAlone(
  { shared, language }: ChangeSources,
  delta: CatalogDelta,
  base: StoredCatalog,
  signal: AbortSignal | undefined,
): Promise<BaseChange | undefined> {
  const changed: Skill[] = [];
  for (const m of delta.members) if (typeof m !== 'number') changed.push(m);
  if (!(await language.prepareAlone(changed, signal))) return undefined;
  return changeOfDelta(delta, base, shared.members(base.id), (skill) => language.glossesOf(skill)?.lexical);
}

/** The vectors `change` brings (embedded when the store lacks them, stored when `keep`) and drops, and the base's sum moved by them; undefined when one is missing. */
export async function changeVectors(
  { shared, model, dimensions, supply }: ChangeSources,
  baseSum: Float64Array,
  change: BaseChange,
  signal: AbortSignal | undefined,
  keep = true,
): Promise<ChangeVectors | undefined> {
  const { docs, leaving } = change;
  const coming = new Map<string, number>();
  for (const [doc, m] of writtenDocs(docs)) coming.set(m.vectorKey, doc);
  const found = await supply.vectors(new Map([...coming].map(([key, doc]) => [key, change.skillAt(doc)])), signal, undefined, { keep });
  throwIfAborted(signal);
  const left = shared.vectors(
    model,
    dimensions,
    [...new Set(leaving)].filter((key) => !found.vectors.has(key)),
  );
  const vectorOf = (key: string): Float32Array | undefined => found.vectors.get(key) ?? left.get(key);
  const sum = baseSum.slice();
  const move = (key: string, sign: 1 | -1): boolean => {
    const vector = vectorOf(key);
    if (vector?.length !== dimensions) return false;
    for (let i = 0; i < vector.length; i += 1) sum[i]! += sign * vector[i]!;
    return true;
  };
  if (!leaving.every((key) => move(key, -1)) || !docs.every((m) => typeof m === 'number' || move(m.vectorKey, 1))) return undefined;
  return { sum, vectorOf, embedded: found.embedded };
}

/** The members `docs` writes, with their documents. */
export function writtenDocs(docs: readonly (CatalogMember | number)[]): [number, CatalogMember][] {
  const written: [number, CatalogMember][] = [];
  for (let doc = 0; doc < docs.length; doc += 1) {
    const m = docs[doc]!;
    if (typeof m !== 'number') written.push([doc, m]);
  }
  return written;
}
