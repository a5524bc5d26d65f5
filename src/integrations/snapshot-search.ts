/** A cold search: the catalog saved in the store opened read-only, written or held in memory first when it changed. */
import type { SkillCatalog } from '../load/index.js';
import { SkillSearchEngine, type EngineOptions, type SnapshotCatalog } from '../search/index.js';
import type { AssembledCatalog } from '../search/engine.js';
import type { HeldCatalog } from '../search/catalog-writer.js';
import type { CatalogDelta } from '../load/tools-delta.js';
import type { EditedCopy } from '../load/tools-copy.js';
import { NO_SAVED_CATALOG, StoredSearch, type OpenedCatalog } from '../search/stored-search.js';
import type { Diagnostic, Skill } from '../types.js';
import type { CatalogStamps } from '../load/source-stamp.js';
import type { ClosableSearcher } from './service.js';
import { engineOptions, openCatalog, snapshotFacts, type LiveIndexOptions } from './live-index-options.js';

/**
 * A read-only search of the catalog as it is now, from a catalog saved in the store, or why there
 * is none. Opening it only stats the files a scan would read: what a cold hook or `query` tries first.
 */
export async function openSnapshot(
  options: LiveIndexOptions,
  { assemble = false }: SnapshotOptions = {},
): Promise<SnapshotSearch | { readonly reason: string }> {
  const { catalog, toolsCache } = openCatalog(options, { deferWrites: true });
  // One embedder for the stored search and the assembly: the model loads once.
  const engineOpts = engineOptions(options);
  let opened = await StoredSearch.open(engineOpts, catalog.stamps());
  let assembled: AssembledCatalog | undefined;
  let held: { readonly embedded: number } | undefined;
  let written: (() => Promise<unknown>) | undefined;
  if ('reason' in opened && assemble && opened.reason === NO_SAVED_CATALOG) {
    let made: Assembly;
    try {
      // With a writer to hand the write to (the hook's detached indexer), an edit is searched held in memory.
      made = await assembleHoldOrMove(engineOpts, catalog, options.onSnapshotDue !== undefined);
    } catch (error) {
      toolsCache?.close();
      throw error;
    } finally {
      await catalog.close();
    }
    if ('moved' in made) {
      opened = made.moved;
      // Written off the prompt's path: by a detached indexer (the hook), which loads the tools file again, else once the search closes.
      if (options.onSnapshotDue !== undefined) {
        toolsCache?.drop();
        options.onSnapshotDue(made.sourceStamp);
      } else written = made.write;
    } else if ('held' in made) {
      const { delta } = made;
      opened = StoredSearch.openHeld(engineOpts, made.held, delta.base, delta.diagnostics, made.copy);
      if (!('reason' in opened)) {
        held = { embedded: made.held.embedded };
        // The indexer saves the edit against the line table this delta was told from.
        toolsCache?.drop();
        options.onSnapshotDue?.(delta.sourceStamp);
      }
    } else if (made.assembled !== undefined) {
      assembled = made.assembled;
      // The catalog written is the one just scanned: opened by its stamps, not by stat'ing every file again.
      opened = await StoredSearch.open(engineOpts, Promise.resolve(made.stamps ?? (await catalog.stamps())));
    }
  }
  // Closed, which writes what it holds, at once or after the search (a moved catalog written at close).
  if (written === undefined) toolsCache?.close();
  if ('reason' in opened) return opened;
  const { engine, diagnostics } = opened;
  return {
    engine,
    diagnostics,
    ...(assembled === undefined ? {} : { assembled }),
    ...(held === undefined ? {} : { held }),
    search: (query, request) => engine.search(query, request),
    close: async () => {
      await engine.close();
      await written?.();
      toolsCache?.close();
    },
  };
}

/**
 * The catalog on disk written in the store from the one saved last; with `hold`, a tools file's
 * edit held in memory over it instead; or, when a saved catalog holds its skills at another path,
 * that catalog's search with the skills moved there, nothing written (docs/store.md, "A catalog
 * at a new path"): a copy found byte for byte, an edited copy (with `hold`), or the skills loaded.
 */
async function assembleHoldOrMove(options: EngineOptions, catalog: SkillCatalog, hold: boolean): Promise<Assembly> {
  // A tools file's changed lines, or a few skill files edited in place (held only), when that is all that changed, else the catalog loaded whole.
  const toolsDelta = await catalog.delta();
  // Skill files edited in place told without a scan (their documents from the base's members), else by one.
  const edits = toolsDelta === undefined && hold ? await catalog.folderEdits() : undefined;
  const engine = await SkillSearchEngine.open(options);
  const writer = engine.catalogWriter;
  try {
    const delta = toolsDelta ?? (edits === undefined ? undefined : writer?.deltaOfEdits(edits)) ?? (hold ? await catalog.folderDelta() : undefined);
    const held = delta !== undefined && hold ? await writer?.holdDelta(delta) : undefined;
    if (held !== undefined) return { held, delta: delta! };
    const assembled = delta === undefined ? undefined : await writer?.assembleDelta(delta);
    if (assembled !== undefined) return { assembled };
    const copied = await StoredSearch.openCopy(options, (saved) => catalog.copyOf(saved));
    if (copied !== undefined)
      return {
        moved: copied.opened,
        sourceStamp: copied.copy.sourceStamp,
        write: async () => {
          const snapshot = await catalog.get();
          const facts = snapshotFacts(snapshot);
          if (facts !== undefined) await writeCatalog(options, { ...facts, skills: snapshot.skills });
        },
      };
    // A copy then edited: told against the line tables it was copied from, its changed lines held over their catalog.
    const edited = hold && writer !== undefined ? await catalog.editedCopyOf((base) => writer.holds(base)) : undefined;
    const heldCopy = edited === undefined ? undefined : await writer?.holdDelta(edited.delta);
    if (heldCopy !== undefined) return { held: heldCopy, delta: edited!.delta, copy: edited };
    const snapshot = await catalog.get();
    const facts = snapshotFacts(snapshot);
    if (facts === undefined || snapshot.skills.length === 0) return { assembled: undefined };
    const whole = { ...facts, skills: snapshot.skills };
    // A copy, or a copy with a few skills edited (those held over the saved catalog): the records from memory.
    const moved = await StoredSearch.openMoved(options, snapshot.skills, snapshot.diagnostics, writer && ((found) => writer.holdMoved(found)));
    if (moved !== undefined) return { moved, sourceStamp: facts.sourceStamp, write: () => writeCatalog(options, whole) };
    return { assembled: await writer?.assemble(whole), stamps: { sourceStamp: facts.sourceStamp, portableStamp: facts.portableStamp } };
  } finally {
    await engine.close();
  }
}

/** Writes `catalog` in the store (`CatalogWriter.assemble`); undefined when it was not written. */
async function writeCatalog(options: EngineOptions, catalog: SnapshotCatalog & { readonly skills: readonly Skill[] }): Promise<AssembledCatalog | undefined> {
  const engine = await SkillSearchEngine.open(options);
  try {
    return await engine.catalogWriter?.assemble(catalog);
  } finally {
    await engine.close();
  }
}

export interface SnapshotOptions {
  /** When no saved catalog matches the disk, write it from the one saved last (only what changed embedded) and open that. */
  readonly assemble?: boolean;
}

/** A changed catalog written in the store (undefined: not written), held in memory, or searched as a saved one at another path (`write`: still to do). */
type Assembly =
  | { readonly assembled: AssembledCatalog | undefined; readonly stamps?: CatalogStamps }
  | { readonly held: HeldCatalog; readonly delta: CatalogDelta; readonly copy?: EditedCopy }
  | { readonly moved: OpenedCatalog; readonly sourceStamp: string; readonly write: () => Promise<unknown> };

/** The read-only search {@link openSnapshot} opens. */
export interface SnapshotSearch extends ClosableSearcher {
  /** What writing the catalog cost, when it was assembled for this search ({@link SnapshotOptions.assemble}). */
  readonly assembled?: AssembledCatalog;
  /** Set when the changed catalog is searched held in memory (its write handed to `onSnapshotDue`); `embedded`: skills embedded for it. */
  readonly held?: { readonly embedded: number };
  /** For `size` and `explain`. */
  readonly engine: StoredSearch;
  /** The catalog's load problems when it was saved. */
  readonly diagnostics: readonly Diagnostic[];
}
