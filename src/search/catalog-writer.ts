import { createHash } from 'node:crypto';
import path from 'node:path';
import { errorMessage, throwIfAborted } from '../errors.js';
import type { CrossLingual } from '../lang/cross-lingual.js';
import { lexicalEntry, lexicalKey } from '../lexical/lexical-entry.js';
import type { CatalogMember, StoredCatalog } from '../store/entry-store.js';
import type { SharedStore } from '../store/shared-store.js';
import type { Diagnostic, Skill } from '../types.js';
import { CatalogVectors, meanOf } from '../vector-index/catalog-vectors.js';
import { LabelGraph } from '../vector-index/label-graph.js';
import { catalogKey, catalogModel, CATALOG_FORMAT } from './catalog-format.js';
import { normalizeName } from './exact-name.js';
import type { ResolvedEngineOptions } from './options.js';
import { vectorKey } from './skill-text.js';
import type { VectorSupply } from './vector-supply.js';

/**
 * Labels of vectors the store could not name (it failed or was busy) start here, far above any
 * rowid the store hands out; a catalog holding one is not saved.
 */
export const LOCAL_LABELS = 2 ** 48;

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

export interface CatalogWriterOptions {
  readonly shared: SharedStore;
  readonly engine: ResolvedEngineOptions;
  /** The store's model id (the embedder's with its text version). */
  readonly model: string;
  readonly dimensions: number;
  readonly language: CrossLingual;
  readonly supply: VectorSupply;
  /** A new vector side, seeded (`withBase`) from the graph saved last for the model. */
  readonly newVectors: (withBase: boolean) => CatalogVectors;
}

/**
 * Writes catalogs in the store: a live engine's synced catalog ({@link write}), or one assembled
 * from the catalog saved last without syncing an engine ({@link assemble}, what a cold process
 * does after one description changed: docs/store.md, "Assembling a changed catalog").
 */
export class CatalogWriter {
  readonly #options: CatalogWriterOptions;
  /** The first failure to write (see {@link problem}). */
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
   * store; returns how many lexical entries were tokenised for it (those the store lacked), or
   * undefined when it was not written (a skill without a stored vector, a store that failed).
   */
  write(catalog: SnapshotCatalog, skills: readonly Skill[], glosses: ReadonlyMap<string, string>, vectors: CatalogVectors): number | undefined {
    for (const skill of skills) {
      const label = vectors.labelOf(skill.id);
      if (label === undefined || label >= LOCAL_LABELS) return undefined;
    }
    const members = skills.map((skill) => memberOf(skill, glosses.get(skill.id)));
    return this.#putCatalog(catalog, skills, glosses, { members, mean: vectors.mean(), sum: vectors.sum(), graph: () => vectors.graph() });
  }

  /**
   * Writes the catalog of `catalog.skills` in the store: only the skills whose content the store
   * lacks are embedded and tokenised; the other vectors are read from the store, the graph
   * derived from the last saved one, so the catalog answers as a clean build of the same skills
   * would. Returns what it cost, or undefined when nothing was written (no catalog saved before
   * for this model, a lexical-only engine, a store that failed).
   */
  async assemble(catalog: SnapshotCatalog & { readonly skills: readonly Skill[] }, signal?: AbortSignal): Promise<AssembledCatalog | undefined> {
    const { shared, engine, language } = this.#options;
    if (engine.mode === 'lexical') return undefined;
    const base = shared.latestCatalog(catalogModel(engine), CATALOG_FORMAT);
    if (base === undefined) return undefined;
    if (shared.catalog(catalogKey(catalog.portableStamp ?? catalog.sourceStamp, engine)) !== undefined) return { embedded: 0, tokenised: 0 };
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
    return (await this.#assembleFrom(catalog, base, skills, glosses, signal)) ?? this.#assembleWhole(catalog, desired, glosses, signal);
  }

  /**
   * {@link assemble} from `base`, a saved catalog it mostly keeps: its unchanged members
   * are copied in the store, its float64 sum moved by the vectors of the members that left and
   * came, its graph by their labels; only those vectors are read. Undefined when `base` cannot
   * serve (saved without a sum, or without the graph the new catalog needs): the catalog is then
   * written whole.
   */
  async #assembleFrom(
    catalog: SnapshotCatalog,
    base: StoredCatalog,
    skills: readonly Skill[],
    glosses: ReadonlyMap<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<AssembledCatalog | undefined> {
    const { shared, engine, model, dimensions, supply } = this.#options;
    if (base.sum === undefined || base.sum.length !== dimensions) return undefined;
    const members = skills.map((skill) => memberOf(skill, glosses.get(skill.id)));
    const distinct = new Set(members.map((m) => m.vectorKey));
    const graphed = CatalogVectors.graphs({ kind: engine.ann }, distinct.size);
    if (graphed && base.graph === undefined) return undefined;
    const before = shared.members(base.id).all();
    const docOf = new Map(before.map((m, doc) => [m.id, doc]));
    const kept = new Uint8Array(before.length);
    const docs: (CatalogMember | number)[] = [];
    const coming = new Map<string, Skill>();
    members.forEach((m, doc) => {
      const at = docOf.get(m.id);
      const old = at === undefined ? undefined : before[at]!;
      if (old !== undefined && old.record === m.record && old.lexicalKey === m.lexicalKey && old.vectorKey === m.vectorKey && old.name === m.name) {
        docs.push(at!);
        kept[at!] = 1;
      } else {
        docs.push(m);
        coming.set(m.vectorKey, skills[doc]!);
      }
    });
    const leaving = before.filter((_, doc) => kept[doc] === 0).map((m) => m.vectorKey);
    const found = await supply.vectors(coming, signal);
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
    const held = new Set(before.map((m) => m.vectorKey));
    const gone = [...held].filter((key) => !distinct.has(key));
    const added = [...distinct].filter((key) => !held.has(key));
    const labels = shared.labels(model, [...gone, ...added]);
    if (added.some((key) => !labels.has(key) || vectorOf(key) === undefined)) return undefined;
    let graph: LabelGraph | string | undefined;
    if (graphed && keepsInPlace(docs, before)) {
      // An overlay (docs/store.md): it names the base's graph, and a search scans its changed vectors beside it.
      graph = base.graph!;
    } else if (graphed) {
      // Derived from the base's graph by the base's members: not when the graph holds another catalog's.
      if (base.graphHolder !== undefined && base.graphHolder !== base.id) return undefined;
      try {
        graph = LabelGraph.load(path.join(shared.graphDir, base.graph!), dimensions, engine.hnsw);
      } catch {
        return undefined;
      }
      graph.update(
        gone.flatMap((key) => labels.get(key) ?? []),
        added.map((key) => [labels.get(key)!, vectorOf(key)!] as const),
      );
      if (graph.tooStale(distinct.size)) return undefined;
    }
    const tokenised = this.#putCatalog(catalog, skills, glosses, {
      members: docs,
      base: base.id,
      mean: meanOf(sum, docs.length),
      sum,
      graph: () => graph,
    });
    return tokenised === undefined ? undefined : { embedded: found.embedded, tokenised };
  }

  /** {@link assemble} with every member's vector read from the store. */
  async #assembleWhole(
    catalog: SnapshotCatalog,
    desired: ReadonlyMap<string, Skill>,
    glosses: ReadonlyMap<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<AssembledCatalog | undefined> {
    const { shared, model, supply } = this.#options;
    const vectors = this.#options.newVectors(true);
    const missing = new Map<string, Skill>();
    for (const skill of desired.values()) missing.set(vectorKey(skill), skill);
    const found = await supply.vectors(missing, signal);
    throwIfAborted(signal);
    const labels = shared.labels(model, [...found.vectors.keys()]);
    for (const [id, skill] of desired) {
      const key = vectorKey(skill);
      const vector = found.vectors.get(key);
      const label = labels.get(key);
      if (vector === undefined || label === undefined) return undefined;
      vectors.set(id, key, vector, label);
    }
    const tokenised = this.write(catalog, [...desired.values()], glosses, vectors);
    return tokenised === undefined ? undefined : { embedded: found.embedded, tokenised };
  }

  /**
   * Writes the graph (when there is one) and the catalog row with its members; returns how many
   * lexical entries were tokenised, or undefined when the store failed.
   */
  #putCatalog(
    catalog: SnapshotCatalog,
    skills: readonly Skill[],
    glosses: ReadonlyMap<string, string>,
    written: {
      readonly members: readonly (CatalogMember | number)[];
      readonly base?: number;
      readonly mean: Float32Array;
      readonly sum: Float64Array;
      /** A graph to save, or the file of a saved one the catalog names as it is. */
      readonly graph: () => LabelGraph | string | undefined;
    },
  ): number | undefined {
    const { shared, engine } = this.#options;
    const key = catalogKey(catalog.portableStamp ?? catalog.sourceStamp, engine);
    let tokenised = 0;
    try {
      const graph = written.graph();
      let file = typeof graph === 'string' ? graph : undefined;
      if (graph !== undefined && typeof graph !== 'string') {
        file = `${createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 16)}-${Date.now().toString(36)}-${process.pid}.usearch`;
        graph.save(path.join(shared.graphDir, file));
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
          return lexicalEntry(skills[doc]!, glosses.get(skills[doc]!.id));
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

/**
 * True when `docs` (base documents kept, members written) keeps every member of `before` (the
 * base's) in place and changes at most half: what the store writes as an overlay of the base
 * (`overlayBase` in `src/store/catalog-members.ts`).
 */
function keepsInPlace(docs: readonly (CatalogMember | number)[], before: readonly CatalogMember[]): boolean {
  if (docs.length !== before.length) return false;
  let changed = 0;
  for (const [doc, m] of docs.entries()) {
    if (typeof m === 'number') {
      if (m !== doc) return false;
    } else if (m.id !== before[doc]!.id) return false;
    else changed += 1;
  }
  return 2 * changed <= docs.length;
}

/** What the store keeps of `skill` as a catalog member (`glosses`: the lexical glosses it is indexed with). */
function memberOf(skill: Skill, glosses: string | undefined): CatalogMember {
  return { id: skill.id, name: normalizeName(skill.name), lexicalKey: lexicalKey(skill, glosses), vectorKey: vectorKey(skill), record: JSON.stringify(skill) };
}

/** An error from a system call (Node's fs errors carry the errno `code` and the `syscall`). */
function isSystemError(error: unknown): boolean {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  return typeof code === 'string' && typeof syscall === 'string';
}
