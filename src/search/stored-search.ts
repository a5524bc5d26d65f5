import path from 'node:path';
import { closedError, SkillSearchError, errorMessage } from '../errors.js';
import { CrossLingual } from '../lang/cross-lingual.js';
import type { LexicalSearcher } from '../lexical/lexical-index.js';
import { STORE_DEFAULTS, type EntryStore, type MemoryOverlay, type StoredCatalog } from '../store/entry-store.js';
import { SharedStore } from '../store/shared-store.js';
import { getOrAdd } from '../util/get-or-add.js';
import type { Diagnostic, Skill } from '../types.js';
import { LabelGraph } from '../vector-index/label-graph.js';
import { StoredVectors } from '../vector-index/stored-vectors.js';
import { catalogKey, catalogKeyOf, catalogModel } from './catalog-format.js';
import { movedBase, type MovedCatalog } from './catalog-change.js';
import { renameDiagnostic, renameSkill, type CatalogCopy, type EditedCopy } from '../load/tools-copy.js';
import type { ReadStamps, StatStamps } from '../load/source-stamp.js';
import type { HeldCatalog } from './catalog-writer.js';
import { resolveEngineOptions, type EngineOptions, type ResolvedEngineOptions } from './options.js';
import { RankedSearch, type RankedCatalog } from './ranker.js';
import { StoredMembers } from '../store/stored-members.js';

/** Why {@link StoredSearch.open} opened nothing when the store holds no catalog for the skills on disk. */
export const NO_SAVED_CATALOG = 'no saved catalog for these skills';

/** A read-only search of a saved catalog, with the catalog's load problems as saved. */
export interface OpenedCatalog {
  readonly engine: StoredSearch;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * A read-only search over a catalog saved in the store (`SkillSearchEngine.saveCatalog`): what
 * a cold process (a hook without a server, `query`, MCP) opens instead of building the catalog.
 * Opening reads one row and views the catalog's graph file; a skill is decoded from its record,
 * and its vector read, only when a query reaches it ({@link StoredMembers}).
 */
export class StoredSearch extends RankedSearch {
  protected readonly catalog: RankedCatalog;
  readonly #store: SharedStore;
  #closed = false;

  private constructor(options: { engine: ResolvedEngineOptions; dimensions: number; language: CrossLingual }, catalog: RankedCatalog, store: SharedStore) {
    super(options);
    this.catalog = catalog;
    this.#store = store;
  }

  /**
   * The saved catalog whose portable stamp `stamps` gives (a promise: the caller computes it while
   * this loads the model), else the one of its `withDemo` stamp (no catalog is saved empty, so one
   * under the first holds a skill and the demo rule adds nothing to it), or why there is none: no
   * store, no catalog saved for these skills and this model, a graph or lexical index that cannot
   * be read (the model then still loading).
   */
  static async open(options: EngineOptions, stamps: Promise<StatStamps>): Promise<OpenedCatalog | { readonly reason: string }> {
    const resolved = resolveEngineOptions(options);
    const source = storeSource(resolved);
    if (source === undefined) return { reason: 'no store' };
    const warming = resolved.embedder.warm?.();
    const { portableStamp: stamp, withDemo } = await stamps;
    if (stamp === undefined) {
      await warming;
      return { reason: 'a tools file cannot be read' };
    }
    const store = new SharedStore(source);
    const saved = (key: string | undefined) => (key === undefined ? undefined : store.catalog(catalogKey(key, resolved)));
    const row = saved(stamp) ?? saved(withDemo?.portableStamp);
    const opened =
      row === undefined
        ? { reason: store.problem === undefined ? NO_SAVED_CATALOG : `the store cannot be read: ${store.problem}` }
        : StoredSearch.#openRow(resolved, store, row);
    // With a reason the model is not waited for: the caller's next path reads the disk while it goes on loading.
    if ('reason' in opened) store.close();
    else await warming;
    return opened;
  }

  /**
   * The catalog of `skills` searched as the saved catalog holding the same skills at other paths
   * (`movedBase`), the records and load problems taken from memory; undefined when the store holds
   * none such. When a few skills changed too, `hold` (`CatalogWriter.holdMoved`) is given the moved
   * catalog and the base is searched with the changed members it holds over it; undefined without
   * `hold` or when it holds nothing. Nothing is written.
   */
  static openMoved(
    options: EngineOptions,
    skills: readonly Skill[],
    diagnostics: readonly Diagnostic[],
    hold?: (moved: MovedCatalog) => Promise<HeldCatalog | undefined>,
  ): Promise<OpenedCatalog | undefined> {
    return StoredSearch.#opened(options, async (resolved, store) => {
      const language = crossLingual(resolved, store);
      const moved = await movedBase(store, catalogModel(resolved), skills, language);
      const changed = moved?.members.some((m) => typeof m !== 'number') === true;
      const held = changed && hold !== undefined ? await hold(moved!) : undefined;
      if (moved === undefined || (changed && held === undefined)) return undefined;
      return StoredSearch.#openRow(
        resolved,
        store,
        held === undefined ? moved.base : { ...moved.base, mean: held.mean, graph: held.graph },
        { skill: () => (id) => moved.skills.get(id), diagnostics: () => diagnostics, language },
        held?.overlay,
      );
    });
  }

  /**
   * The catalog `find` names a copy of (a tools file copied or moved, `SkillCatalog.copyOf`)
   * searched as that saved catalog, each skill and load problem moved to the copy's path, with the
   * copy; undefined when there is none.
   */
  static async openCopy(
    options: EngineOptions,
    find: (held: (base: ReadStamps) => boolean) => Promise<CatalogCopy | undefined>,
  ): Promise<{ readonly opened: OpenedCatalog; readonly copy: CatalogCopy } | undefined> {
    let copy: CatalogCopy | undefined;
    const opened = await StoredSearch.#opened(options, async (resolved, store) => {
      copy = await find((base) => store.catalog(catalogKeyOf(base, resolved)) !== undefined);
      const row = copy === undefined ? undefined : store.catalog(catalogKeyOf(copy.base, resolved));
      if (row === undefined || copy === undefined) return undefined;
      const found = copy;
      return StoredSearch.#openRow(resolved, store, row, {
        skill: renamedSkills(found),
        diagnostics: (saved) => saved.map((diagnostic) => renameDiagnostic(diagnostic, found)),
      });
    });
    return opened === undefined ? undefined : { opened, copy: copy! };
  }

  /**
   * The changed catalog `held` over the saved catalog stamped `base` it changes
   * (`CatalogWriter.holdDelta`), searched as that catalog written would be; `diagnostics`: its load
   * problems. With `copy` (an edited copy, `SkillCatalog.editedCopyOf`), each kept skill moved to
   * the copy's path. Why there is none when the base is no longer saved as it was held.
   */
  static openHeld(
    options: EngineOptions,
    held: HeldCatalog,
    base: ReadStamps,
    diagnostics: readonly Diagnostic[],
    copy?: Pick<EditedCopy, 'files'>,
  ): OpenedCatalog | { readonly reason: string } {
    const opening = storeOf(options);
    if (opening === undefined) return { reason: 'no store' };
    const { resolved, store } = opening;
    const row = store.catalog(catalogKeyOf(base, resolved));
    const view: CatalogView = { skill: copy === undefined ? (stored) => stored : renamedSkills(copy), diagnostics: () => diagnostics };
    const opened =
      row?.id === held.base.id
        ? StoredSearch.#openRow(resolved, store, { ...row, mean: held.mean, graph: held.graph }, view, held.overlay)
        : { reason: "the changed catalog's base is no longer saved" };
    if ('reason' in opened) store.close();
    return opened;
  }

  /**
   * What `open` opens over the options' store once the model is loaded; undefined without a store,
   * or (the store closed) when `open` throws or opens no search.
   */
  static async #opened(
    options: EngineOptions,
    open: (resolved: ResolvedEngineOptions, store: SharedStore) => Promise<OpenedCatalog | { readonly reason: string } | undefined>,
  ): Promise<OpenedCatalog | undefined> {
    const opening = storeOf(options);
    if (opening === undefined) return undefined;
    const { resolved, store } = opening;
    const opened = await open(resolved, store).catch((error: unknown) => {
      store.close();
      throw error;
    });
    if (opened === undefined || 'reason' in opened) {
      store.close();
      return undefined;
    }
    await resolved.embedder.warm?.();
    return opened;
  }

  /**
   * The search of saved catalog `row`; `view` makes its skills and load problems those of another
   * catalog of the same members; `overlay`: changed documents held in memory over its own.
   */
  static #openRow(
    options: ResolvedEngineOptions,
    store: SharedStore,
    row: StoredCatalog,
    view?: CatalogView,
    overlay?: MemoryOverlay,
  ): OpenedCatalog | { readonly reason: string } {
    const dimensions = row.mean?.length ?? 0;
    if (dimensions === 0 || (options.embedder.dimensions > 0 && options.embedder.dimensions !== dimensions))
      return { reason: 'the saved catalog has no vectors of this model' };
    let graph: LabelGraph | undefined;
    let lexical: LexicalSearcher;
    let diagnostics: Diagnostic[];
    try {
      if (row.graph !== undefined) {
        const file = store.graphFile(row.graph);
        if (file === undefined) return { reason: `the store cannot be read: ${store.problem}` };
        graph = LabelGraph.view(file, dimensions, options.hnsw);
      }
      lexical = store.catalogLexical(row.id, overlay);
      const saved = JSON.parse(row.diagnostics) as Diagnostic[];
      diagnostics = view === undefined ? saved : [...view.diagnostics(saved)];
    } catch (error) {
      return { reason: `saved catalog unusable: ${errorMessage(error)}` };
    }
    const members = new StoredMembers(store.members(row.id, overlay), dimensions);
    const skills = new Map<string, Skill | null>();
    const dense = new StoredVectors({ members, dimensions, graph, mean: row.mean! });
    const catalog: RankedCatalog = {
      size: row.size,
      generation: 0,
      skill: (view?.skill ?? ((stored) => stored))((id) => skillOf(members, skills, id)),
      idsNamed: (name) => members.catalog.idsNamed(name),
      lexical: prefetching(lexical, members),
      dense: () => Promise.resolve(dense),
    };
    const language = view?.language ?? crossLingual(options, store);
    return { engine: new StoredSearch({ engine: options, dimensions, language }, catalog, store), diagnostics };
  }

  /** A store-backed search saves nothing. */
  get saveProblem(): undefined {
    return undefined;
  }

  close(): Promise<void> {
    if (!this.#closed) this.#store.close();
    this.#closed = true;
    return Promise.resolve();
  }

  protected assertOpen(): void {
    if (this.#closed) throw closedError('the search');
  }
}

/** How a search of a saved catalog answers for another catalog of the same members (`openMoved`, `openCopy`). */
interface CatalogView {
  /** Each skill, given how the saved catalog's record decodes. */
  readonly skill: (stored: (id: string) => Skill | undefined) => (id: string) => Skill | undefined;
  /** The load problems, given the saved catalog's. */
  readonly diagnostics: (saved: readonly Diagnostic[]) => readonly Diagnostic[];
  /** The language step (prepared with the catalog's skills), when there is one already. */
  readonly language?: CrossLingual;
}

/** A catalog view's skills moved from the base's paths to the copy's (`renameSkill`), each once. */
function renamedSkills(copy: Pick<EditedCopy, 'files'>): CatalogView['skill'] {
  // null: the base has no skill of that id.
  const renamed = new Map<string, Skill | null>();
  return (stored) => (id) =>
    getOrAdd(renamed, id, () => {
      const skill = stored(id);
      return skill === undefined ? null : Object.freeze(renameSkill(skill, copy));
    }) ?? undefined;
}

/** The options resolved and the store they name, opened; undefined without one. */
function storeOf(options: EngineOptions): { readonly resolved: ResolvedEngineOptions; readonly store: SharedStore } | undefined {
  const resolved = resolveEngineOptions(options);
  const source = storeSource(resolved);
  return source === undefined ? undefined : { resolved, store: new SharedStore(source) };
}

/** The store a search opens: the one named, else `store.sqlite` in the index folder; undefined with neither. */
export function storeSource(options: {
  readonly store?: string | EntryStore | undefined;
  readonly indexDir?: string | undefined;
}): string | EntryStore | undefined {
  return options.store ?? (options.indexDir === undefined ? undefined : path.join(options.indexDir, STORE_DEFAULTS.file));
}

/** The language step of a search over `store`'s catalogs (CJK glosses kept in the store, when there is one). */
export function crossLingual(options: ResolvedEngineOptions, store: SharedStore | undefined): CrossLingual {
  return new CrossLingual({ ...options.crossLingual, multilingual: options.embedder.multilingual === true, ...(store === undefined ? {} : { cache: store }) });
}

/** `lexical`, its matches' members read together as it finds them: ranking asks for each one's record and vector. */
function prefetching(lexical: LexicalSearcher, members: StoredMembers): LexicalSearcher {
  return {
    get size() {
      return lexical.size;
    },
    get fieldLengths() {
      return lexical.fieldLengths;
    },
    search(query, limit, options) {
      const matches = lexical.search(query, limit, options);
      members.prefetch(matches.map((match) => match.id));
      return matches;
    },
  };
}

/** Member `id` decoded from its record (once), or undefined for a non-member. */
function skillOf(members: StoredMembers, decoded: Map<string, Skill | null>, id: string): Skill | undefined {
  return (
    getOrAdd(decoded, id, () => {
      const record = members.record(id);
      if (record === undefined) return null;
      const parsed = JSON.parse(record) as Skill;
      if (typeof parsed !== 'object' || parsed === null || parsed.id !== id || typeof parsed.name !== 'string') {
        throw new SkillSearchError('INDEX_CORRUPT', `saved catalog: the record of ${id} is not that skill`);
      }
      if (parsed.keywords !== undefined) Object.freeze(parsed.keywords);
      return Object.freeze(parsed);
    }) ?? undefined
  );
}
