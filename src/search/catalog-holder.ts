/** A changed catalog held in memory over the saved one it changes, not written: searched as the written one would be. */
import type { CatalogDelta } from '../load/tools-delta.js';
import type { MemoryOverlay, OverlaidMember, StoredCatalog } from '../store/entry-store.js';
import type { Skill } from '../types.js';
import { CatalogVectors, meanOf } from '../vector-index/catalog-vectors.js';
import { changeOfDelta, type BaseChange } from './catalog-change.js';
import { catalogKeyOf } from './catalog-format.js';
import { changeOfDeltaAlone, changeVectors, writtenDocs, type ChangeSources } from './change-from-store.js';
import { LOCAL_LABELS } from './live-vectors.js';
import type { MovedCatalog } from './moved-catalog.js';

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
  const { shared, engine, model, dimensions } = options;
  if (base.sum === undefined || base.sum.length !== dimensions) return undefined;
  if (change === undefined || !change.inPlace) return undefined;
  const graphed = CatalogVectors.graphs({ kind: engine.ann }, change.distinct);
  if (graphed && base.graph === undefined) return undefined;
  // Nothing is written: a vector the store lacks is embedded and named by a label of this process only.
  const moved = await changeVectors(options, base.sum, change, signal, false);
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
  return { base, overlay, mean: meanOf(moved.sum, change.docs.length), graph: graphed ? base.graph : undefined, embedded: moved.embedded };
}
