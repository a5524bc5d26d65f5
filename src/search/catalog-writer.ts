import { createHash } from 'node:crypto';
import { errorMessage, throwIfAborted } from '../errors.js';
import { lexicalEntry, type LexicalEntry } from '../lexical/lexical-entry.js';
import type { ReadStamps } from '../load/source-stamp.js';
import type { CatalogDelta } from '../load/tools-delta.js';
import type { FolderEdits } from '../load/folder-delta.js';
import type { CatalogMember, MemoryOverlay, OverlaidMember, StoredCatalog } from '../store/entry-store.js';
import type { SharedStore } from '../store/shared-store.js';
import type { Diagnostic, Skill } from '../types.js';
import { CatalogVectors, meanOf } from '../vector-index/catalog-vectors.js';
import { LabelGraph } from '../vector-index/label-graph.js';
import { changeOfDelta, memberOf, type BaseChange, type MovedCatalog } from './catalog-change.js';
import { catalogKeyOf, catalogModel, CATALOG_FORMAT } from './catalog-format.js';
import { LiveVectors, LOCAL_LABELS } from './live-vectors.js';
import { supplyVectors, type VectorSources } from './vector-supply.js';

/** The catalog a live engine saves in the store (`LiveIndex` passes what it last synced). */
export interface SnapshotCatalog {
  readonly sourceStamp: string;
  /** Its stamp without the working folder: the catalog is saved under it, so every folder over the same skills finds it. */
  readonly portableStamp?: string | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/** What {@link CatalogWriter.assemble} cost: skills embedded and lexical entries tokenised. */
export interface AssembledCatalog {
  readonly embedded: number;
  readonly tokenised: number;
}

/** A changed catalog held in memory over the saved one it changes ({@link CatalogWriter.holdDelta}). */
export interface HeldCatalog {
  readonly base: StoredCatalog;
  /** Its changed members, by document. */
  readonly overlay: MemoryOverlay;
  readonly mean: Float32Array;
  /** The graph file it is searched with (the base's), or undefined: searched exactly. */
  readonly graph: string | undefined;
  readonly embedded: number;
}

/** Where a catalog's glosses and vectors come from and where it is written: a store there is. */
type CatalogWriterOptions = VectorSources & { readonly shared: SharedStore };

/**
 * Writes catalogs in the store: a live engine's synced catalog ({@link write}), or one assembled
 * from the catalog saved last without syncing an engine ({@link assemble}; docs/store.md,
 * "Assembling a changed catalog"); or holds a changed catalog in memory over the saved one it
 * changes, not written ({@link holdDelta}; docs/store.md, "Searched before it is written").
 */
export class CatalogWriter {
  readonly #options: CatalogWriterOptions;
  #problem: string | undefined;

  constructor(options: CatalogWriterOptions) {
    this.#options = options;
  }

  /** Why a catalog could not be written, when a write failed; undefined otherwise. */
  get problem(): string | undefined {
    return this.#problem;
  }

  /**
   * Writes the catalog of `skills` (their lexical glosses, their vectors in `vectors`) in the
   * store; returns how many lexical entries were tokenised for it, or undefined when it was not
   * written (a skill without a stored vector, a store that failed).
   */
  write(catalog: SnapshotCatalog, skills: readonly Skill[], glosses: ReadonlyMap<string, string>, vectors: CatalogVectors): number | undefined {
    for (const skill of skills) {
      const label = vectors.labelOf(skill.id);
      if (label === undefined || label >= LOCAL_LABELS) return undefined;
    }
    const members = skills.map((skill) => memberOf(skill, glosses.get(skill.id)));
    return this.#putCatalog(catalog, {
      members,
      mean: vectors.mean(),
      sum: vectors.sum(),
      graph: () => vectors.graph(),
      entryOf: (doc) => lexicalEntry(skills[doc]!, glosses.get(skills[doc]!.id)),
    });
  }

  /**
   * Writes the catalog of `catalog.skills` in the store, answering as a clean build would: only
   * the skills whose content the store lacks are embedded and tokenised, the graph derived from
   * the last saved one. Returns what it cost, or undefined when nothing was written (no catalog
   * saved before for this model, a lexical-only engine, a store that failed).
   */
  async assemble(catalog: SnapshotCatalog & { readonly skills: readonly Skill[] }, signal?: AbortSignal): Promise<AssembledCatalog | undefined> {
    const { shared, engine, language } = this.#options;
    if (engine.mode === 'lexical') return undefined;
    const base = shared.latestCatalog(catalogModel(engine), CATALOG_FORMAT);
    if (base === undefined) return undefined;
    if (shared.catalog(catalogKeyOf(catalog, engine)) !== undefined) return { embedded: 0, tokenised: 0 };
    const desired = new Map<string, Skill>();
    for (const skill of catalog.skills) if (!desired.has(skill.id)) desired.set(skill.id, skill);
    if (desired.size === 0) return undefined;
    await language.prepare(desired.values(), signal);
    const skills = [...desired.values()];
    const glosses = new Map<string, string>();
    for (const skill of skills) {
      const lexical = language.glossesOf(skill)?.lexical;
      if (lexical !== undefined) glosses.set(skill.id, lexical);
    }
    const change = base.sum === undefined ? undefined : this.#changeFrom(base, skills, glosses);
    return (
      (change === undefined ? undefined : await this.#assembleFrom(catalog, base, change, signal)) ?? this.#assembleWhole(catalog, desired, glosses, signal)
    );
  }

  /** Writes the catalog `delta` describes (`SkillCatalog.delta`) from the saved catalog it changes; undefined when it cannot be written so. */
  async assembleDelta(delta: CatalogDelta, signal?: AbortSignal): Promise<AssembledCatalog | undefined> {
    const { shared, engine } = this.#options;
    if (engine.mode === 'lexical') return undefined;
    if (shared.catalog(catalogKeyOf(delta, engine)) !== undefined) return { embedded: 0, tokenised: 0 };
    const base = shared.catalog(catalogKeyOf(delta.base, engine));
    if (base === undefined) return undefined;
    const change = await this.#changeOfDeltaAlone(delta, base, signal);
    return change === undefined ? undefined : this.#assembleFrom(delta, base, change, signal);
  }

  /** {@link assemble}'s change of `base`: each skill whose member is the base's of the same id kept by its document there. */
  #changeFrom(base: StoredCatalog, skills: readonly Skill[], glosses: ReadonlyMap<string, string>): BaseChange | undefined {
    const stored = this.#options.shared.members(base.id);
    const before = stored.all();
    const docOf = new Map(before.map((m, doc) => [m.id, doc]));
    const members = skills.map((skill) => {
      const at = docOf.get(skill.id);
      const m = memberOf(skill, glosses.get(skill.id));
      const old = at === undefined ? undefined : before[at];
      return old?.record === m.record && old.lexicalKey === m.lexicalKey && old.vectorKey === m.vectorKey && old.name === m.name ? at! : skill;
    });
    return changeOfDelta({ members, baseIds: before.map((m) => m.id) }, base, stored, (skill) => glosses.get(skill.id));
  }

  /**
   * Writes the catalog `change` makes of `base`: its sum moved by the vectors of the members that
   * left and came, its graph by their labels (or, every member in place, an overlay naming the
   * base's graph). Undefined when `base` cannot serve: the catalog is then written whole.
   */
  async #assembleFrom(
    catalog: SnapshotCatalog,
    base: StoredCatalog,
    change: BaseChange,
    signal: AbortSignal | undefined,
  ): Promise<AssembledCatalog | undefined> {
    const { shared, engine, model, dimensions } = this.#options;
    const { docs, gone, added } = change;
    const moved = await this.#changeVectors(base, change, signal);
    if (moved === undefined) return undefined;
    const { sum, vectorOf, graphed } = moved;
    const labels = shared.labels(model, [...gone, ...added]);
    if (added.some((key) => !labels.has(key) || vectorOf(key) === undefined)) return undefined;
    let graph: LabelGraph | string | undefined;
    if (graphed && change.inPlace) {
      graph = base.graph!;
    } else if (graphed) {
      // Not when the base's graph holds another catalog's members.
      if (base.graphHolder !== undefined && base.graphHolder !== base.id) return undefined;
      const file = shared.graphFile(base.graph!);
      if (file === undefined) return undefined;
      try {
        graph = LabelGraph.load(file, dimensions, engine.hnsw);
      } catch {
        return undefined;
      }
      graph.update(
        gone.flatMap((key) => labels.get(key) ?? []),
        added.map((key) => [labels.get(key)!, vectorOf(key)!] as const),
      );
      if (graph.tooStale(change.distinct)) return undefined;
    }
    const tokenised = this.#putCatalog(catalog, {
      members: docs,
      base: base.id,
      mean: meanOf(sum, docs.length),
      sum,
      graph: () => graph,
      entryOf: change.entryOf,
    });
    return tokenised === undefined ? undefined : { embedded: moved.embedded, tokenised };
  }

  /** Whether the store holds the catalog of these stamps (a copy's base, `SkillCatalog.editedCopyOf`). */
  holds(stamps: ReadStamps): boolean {
    const { shared, engine } = this.#options;
    return shared.catalog(catalogKeyOf(stamps, engine)) !== undefined;
  }

  /**
   * `edits` as the {@link CatalogDelta} of the saved catalog it changes: each edited skill at the document of the base's member of
   * its id, when that member is the same file (its record's path, source and rank: else the edited file was shadowed); the base's
   * load problems (`folderEdits` keeps only edits that leave a file's problems as they were). Undefined when the base is not saved.
   */
  deltaOfEdits(edits: FolderEdits): CatalogDelta | undefined {
    const { shared, engine, dimensions } = this.#options;
    const base = shared.catalog(catalogKeyOf(edits.base, engine));
    if (base === undefined) return undefined;
    const stored = shared.members(base.id);
    const baseIds = stored.ids();
    if (baseIds.length !== base.size) return undefined;
    const docOf = new Map<string, number>();
    baseIds.forEach((id, doc) => {
      if (!docOf.has(id)) docOf.set(id, doc);
    });
    const records = stored.membersOf(
      edits.edited.map((skill) => skill.id),
      dimensions,
    );
    const members: (number | Skill)[] = baseIds.map((_, doc) => doc);
    for (const skill of edits.edited) {
      const doc = docOf.get(skill.id);
      const record = records.get(skill.id)?.record;
      if (doc === undefined || record === undefined) return undefined;
      const was = JSON.parse(record) as Skill;
      if (was.path !== skill.path || was.source !== skill.source || was.rank !== skill.rank || typeof members[doc] !== 'number') return undefined;
      members[doc] = skill;
    }
    return {
      sourceStamp: edits.sourceStamp,
      portableStamp: edits.portableStamp,
      diagnostics: JSON.parse(base.diagnostics) as Diagnostic[],
      base: edits.base,
      members,
      baseIds,
      tables: () => [],
    };
  }

  /**
   * The catalog `delta` describes held in memory over the saved catalog it changes, when it keeps
   * every member in place (what the store would write as an overlay): the changed members with
   * their vectors (embedded when the store lacks them, not stored), labels and lexical entries, the
   * mean moved by them. Undefined when it cannot be held so.
   */
  async holdDelta(delta: CatalogDelta, signal?: AbortSignal): Promise<HeldCatalog | undefined> {
    const { shared, engine } = this.#options;
    if (engine.mode === 'lexical') return undefined;
    const base = shared.catalog(catalogKeyOf(delta.base, engine));
    if (base === undefined) return undefined;
    return this.#hold(base, await this.#changeOfDeltaAlone(delta, base, signal), signal);
  }

  /**
   * The catalog `moved` (as `movedBase` told it: the same ids at the same documents at other paths,
   * a few changed: a tools file or skill library copied and edited) held over its base as
   * {@link holdDelta} holds an edit. The kept members' records are the base's, at the old paths:
   * the caller searches it with the skills' records (`StoredSearch.openMoved`). Undefined when it
   * cannot be held so.
   */
  async holdMoved(moved: MovedCatalog, signal?: AbortSignal): Promise<HeldCatalog | undefined> {
    const { shared, engine, language, dimensions } = this.#options;
    if (engine.mode === 'lexical') return undefined;
    const { base, members, keys } = moved;
    const changed: Skill[] = [];
    let kept: number | undefined;
    for (const m of members) {
      if (typeof m !== 'number') changed.push(m);
      else kept ??= m;
    }
    // Moved: a kept member's record names another path (an edit in place is a folder delta, `holdDelta`'s, or assembled).
    if (changed.length === 0 || kept === undefined) return undefined;
    const stored = shared.members(base.id);
    const record = stored.membersOf([keys[kept]!.id], dimensions).get(keys[kept]!.id)?.record;
    if (record === undefined || (JSON.parse(record) as Skill).path === moved.skills.get(keys[kept]!.id)?.path) return undefined;
    if (!(await language.prepareAlone(changed, signal))) await language.prepare(moved.skills.values(), signal);
    const change = changeOfDelta({ members, baseIds: keys.map((key) => key.id) }, base, stored, (skill) => language.glossesOf(skill)?.lexical);
    return this.#hold(base, change, signal);
  }

  /** {@link holdDelta} of `change` over `base` once told: undefined unless it keeps every member in place. */
  async #hold(base: StoredCatalog, change: BaseChange | undefined, signal: AbortSignal | undefined): Promise<HeldCatalog | undefined> {
    const { shared, model } = this.#options;
    if (change === undefined || !change.inPlace) return undefined;
    // Nothing is written: a vector the store lacks is embedded and named by a label of this process only.
    const moved = await this.#changeVectors(base, change, signal, false);
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

  /** `changeOfDelta` with the changed skills' glosses, when they can be told without the rest of the catalog; undefined otherwise. */
  async #changeOfDeltaAlone(delta: CatalogDelta, base: StoredCatalog, signal: AbortSignal | undefined): Promise<BaseChange | undefined> {
    const { shared, language } = this.#options;
    const changed: Skill[] = [];
    for (const m of delta.members) if (typeof m !== 'number') changed.push(m);
    if (!(await language.prepareAlone(changed, signal))) return undefined;
    return changeOfDelta(delta, base, shared.members(base.id), (skill) => language.glossesOf(skill)?.lexical);
  }

  /**
   * The vectors `change` brings (embedded when the store lacks them, stored when `keep`) and drops,
   * `base`'s sum moved by them, and whether the changed catalog is searched through a graph
   * (derived from the base's); undefined when one is missing or `base` cannot serve.
   */
  async #changeVectors(base: StoredCatalog, change: BaseChange, signal: AbortSignal | undefined, keep = true) {
    const { shared, engine, model, dimensions } = this.#options;
    if (base.sum === undefined || base.sum.length !== dimensions) return undefined;
    const graphed = CatalogVectors.graphs({ kind: engine.ann }, change.distinct);
    if (graphed && base.graph === undefined) return undefined;
    const { docs, leaving } = change;
    const coming = new Map<string, number>();
    for (const [doc, m] of writtenDocs(docs)) coming.set(m.vectorKey, doc);
    const found = await supplyVectors(this.#options, new Map([...coming].map(([key, doc]) => [key, change.skillAt(doc)])), signal, undefined, { keep });
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

  /** {@link assemble} with every member's vector read from the store. */
  async #assembleWhole(
    catalog: SnapshotCatalog,
    desired: ReadonlyMap<string, Skill>,
    glosses: ReadonlyMap<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<AssembledCatalog | undefined> {
    // A new live vector side, seeded from the graph saved last for the model.
    const vectors = new LiveVectors(this.#options);
    const found = await vectors.missing(desired.values(), signal);
    throwIfAborted(signal);
    // A vector the store could not label is labelled locally: `write` then refuses the catalog.
    vectors.apply(desired, found);
    const tokenised = this.write(catalog, [...desired.values()], glosses, vectors.load());
    return tokenised === undefined ? undefined : { embedded: found.embedded, tokenised };
  }

  /** Writes the graph (when there is one) and the catalog row; returns how many lexical entries were tokenised, or undefined when the store failed. */
  #putCatalog(
    catalog: SnapshotCatalog,
    written: {
      readonly members: readonly (CatalogMember | number)[];
      readonly base?: number;
      readonly mean: Float32Array;
      readonly sum: Float64Array;
      /** A graph to save, or the file of a saved one the catalog names as it is. */
      readonly graph: () => LabelGraph | string | undefined;
      /** The lexical entry of a written member (called only for those the store lacks). */
      readonly entryOf: (doc: number) => LexicalEntry;
    },
  ): number | undefined {
    const { shared, engine } = this.#options;
    const key = catalogKeyOf(catalog, engine);
    let tokenised = 0;
    try {
      const graph = written.graph();
      let file = typeof graph === 'string' ? graph : undefined;
      if (graph !== undefined && typeof graph !== 'string') {
        file = `${createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 16)}-${Date.now().toString(36)}-${process.pid}.usearch`;
        const target = shared.graphFile(file);
        if (target === undefined) return undefined;
        graph.save(target);
      }
      const id = shared.putCatalog({
        ...key,
        sourceStamp: catalog.sourceStamp,
        diagnostics: JSON.stringify(catalog.diagnostics),
        members: written.members,
        base: written.base,
        mean: written.mean,
        sum: written.sum,
        graph: file,
        lexicalEntry: (doc) => {
          tokenised += 1;
          return written.entryOf(doc);
        },
      });
      if (id < 0) return undefined;
    } catch (error) {
      if (!isSystemError(error)) throw error;
      this.#problem ??= errorMessage(error);
      return undefined;
    }
    return tokenised;
  }
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

/** An error from a system call (Node's fs errors carry the errno `code` and the `syscall`). */
function isSystemError(error: unknown): boolean {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  return typeof code === 'string' && typeof syscall === 'string';
}
