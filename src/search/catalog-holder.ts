/** A saved catalog's change told from the store (its glosses, the vectors it brings and drops), and held in memory over it, not written. */
import { throwIfAborted } from '../errors.js';
import type { CatalogDelta } from '../load/tools-delta.js';
import type { CatalogMember, MemoryOverlay, OverlaidMember, StoredCatalog } from '../store/entry-store.js';
import type { SharedStore } from '../store/shared-store.js';
import type { Skill } from '../types.js';
import { CatalogVectors, meanOf } from '../vector-index/catalog-vectors.js';
import { changeOfDelta, type BaseChange } from './catalog-change.js';
import { catalogKeyOf } from './catalog-format.js';
import { LOCAL_LABELS } from './live-vectors.js';
import type { MovedCatalog } from './moved-catalog.js';
import { supplyVectors, type VectorSources } from './vector-supply.js';

/** Where a change's glosses and vectors come from: a store there is. */
export type ChangeSources = VectorSources & { readonly shared: SharedStore };

/** The vectors a change brings and drops, and the base's sum moved by them ({@link changeVectors}). */
export interface ChangeVectors {
  readonly sum: Float64Array;
  readonly vectorOf: (key: string) => Float32Array | undefined;
  readonly embedded: number;
  /** Whether the changed catalog is searched through a graph (derived from the base's). */
  readonly graphed: boolean;
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

/** The vectors `change` brings (embedded when the store lacks them, stored when `keep`) and drops, and `base`'s sum moved by them; undefined when one is missing or `base` cannot serve. */
export async function changeVectors(
  sources: ChangeSources,
  base: StoredCatalog,
  change: BaseChange,
  signal: AbortSignal | undefined,
  keep = true,
): Promise<ChangeVectors | undefined> {
  const { shared, engine, model, dimensions } = sources;
  if (base.sum === undefined || base.sum.length !== dimensions) return undefined;
  const graphed = CatalogVectors.graphs({ kind: engine.ann }, change.distinct);
  if (graphed && base.graph === undefined) return undefined;
  const { docs, leaving } = change;
  const coming = new Map<string, number>();
  for (const [doc, m] of writtenDocs(docs)) coming.set(m.vectorKey, doc);
  const found = await supplyVectors(sources, new Map([...coming].map(([key, doc]) => [key, change.skillAt(doc)])), signal, undefined, { keep });
  throwIfAborted(signal);
  const left = shared.vectors(
    model,
    dimensions,
    [...new Set(leaving)].filter((key) => !found.vectors.has(key)),
  );
  const vectorOf = (key: string): Float32Array | undefined => found.vectors.get(key) ?? left.get(key);
  const sum = base.sum.slice();
  const move = (key: string, sign: 1 | -1): boolean => {
    const vector = vectorOf(key);
    if (vector?.length !== dimensions) return false;
    for (let i = 0; i < vector.length; i += 1) sum[i]! += sign * vector[i]!;
    return true;
  };
  if (!leaving.every((key) => move(key, -1)) || !docs.every((m) => typeof m === 'number' || move(m.vectorKey, 1))) return undefined;
  return { sum, vectorOf, embedded: found.embedded, graphed };
}

/** The members `docs` writes, with their documents. */
function writtenDocs(docs: readonly (CatalogMember | number)[]): [number, CatalogMember][] {
  const written: [number, CatalogMember][] = [];
  for (let doc = 0; doc < docs.length; doc += 1) {
    const m = docs[doc]!;
    if (typeof m !== 'number') written.push([doc, m]);
  }
  return written;
}

/** A changed catalog held in memory over the saved one it changes ({@link holdDelta}). */
export interface HeldCatalog {
  readonly base: StoredCatalog;
  /** Its changed members, by document. */
  readonly overlay: MemoryOverlay;
  readonly mean: Float32Array;
  /** The graph file it is searched with (the base's), or undefined: searched exactly. */
  readonly graph: string | undefined;
  readonly embedded: number;
}

/**
 * The catalog `delta` describes held in memory over the saved catalog it changes, when it keeps
 * every member in place (what the store would write as an overlay): the changed members with
 * their vectors (embedded when the store lacks them, not stored), labels and lexical entries, the
 * mean moved by them (docs/store.md, "Searched before it is written"). Undefined when it cannot be
 * held so.
 */
export async function holdDelta(options: ChangeSources, delta: CatalogDelta, signal?: AbortSignal): Promise<HeldCatalog | undefined> {
  const { shared, engine } = options;
  if (engine.mode === 'lexical') return undefined;
  const base = shared.catalog(catalogKeyOf(delta.base, engine));
  if (base === undefined) return undefined;
  return hold(options, base, await changeOfDeltaAlone(options, delta, base, signal), signal);
}

/**
 * The catalog `moved` describes (the same ids at the same documents at other paths, a few
 * changed: a tools file or skill library copied and edited) held over its base as {@link holdDelta}
 * holds an edit. The kept members' records are the base's, at the old paths: the caller searches
 * it with the skills' records (`StoredSearch.openMoved`). Undefined when it cannot be held so.
 */
export async function holdMoved(options: ChangeSources, moved: MovedCatalog, signal?: AbortSignal): Promise<HeldCatalog | undefined> {
  const { shared, engine, language } = options;
  if (engine.mode === 'lexical') return undefined;
  const { base, members, keys } = moved;
  const changed: Skill[] = [];
  let kept: number | undefined;
  for (const m of members) {
    if (typeof m !== 'number') changed.push(m);
    else kept ??= m;
  }
  // Moved: a kept member's record names another path (an edit in place is assembled).
  if (changed.length === 0 || kept === undefined) return undefined;
  const stored = shared.members(base.id);
  const record = stored.membersOf([keys[kept]!.id], options.dimensions).get(keys[kept]!.id)?.record;
  if (record === undefined || (JSON.parse(record) as Skill).path === moved.skills.get(keys[kept]!.id)?.path) return undefined;
  if (!(await language.prepareAlone(changed, signal))) await language.prepare(moved.skills.values(), signal);
  const change = changeOfDelta({ members, baseIds: keys.map((key) => key.id) }, base, stored, (skill) => language.glossesOf(skill)?.lexical);
  return hold(options, base, change, signal);
}

/** {@link holdDelta} of `change` over `base` once told: undefined unless it keeps every member in place. */
async function hold(
  options: ChangeSources,
  base: StoredCatalog,
  change: BaseChange | undefined,
  signal: AbortSignal | undefined,
): Promise<HeldCatalog | undefined> {
  const { shared, model } = options;
  if (change === undefined || !change.inPlace) return undefined;
  // Nothing is written: a vector the store lacks is embedded and named by a label of this process only.
  const moved = await changeVectors(options, base, change, signal, false);
  if (moved === undefined) return undefined;
  const written = writtenDocs(change.docs);
  const labels = shared.labels(
    model,
    written.map(([, m]) => m.vectorKey),
  );
  const overlay = new Map<number, OverlaidMember>();
  for (const [doc, member] of written) {
    const vector = moved.vectorOf(member.vectorKey);
    if (vector === undefined) return undefined;
    let label = labels.get(member.vectorKey);
    if (label === undefined) {
      label = LOCAL_LABELS + labels.size;
      labels.set(member.vectorKey, label);
    }
    overlay.set(doc, { member, label, vector, entry: change.entryOf(doc) });
  }
  return { base, overlay, mean: meanOf(moved.sum, change.docs.length), graph: moved.graphed ? base.graph : undefined, embedded: moved.embedded };
}
