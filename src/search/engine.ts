import { closedError, SkillSearchError, throwIfAborted } from '../errors.js';
import { lexicalKey } from '../lexical/lexical-entry.js';
import { LexicalIndex } from '../lexical/lexical-index.js';
import { STORE_DEFAULTS } from '../store/entry-store.js';
import { SharedStore } from '../store/shared-store.js';
import type { Skill } from '../types.js';
import { getOrAdd } from '../util/get-or-add.js';
import { loopTurns } from '../util/loop-turns.js';
import type { DenseSide } from '../vector-index/vector-index.js';
import { applyDiff, type DiffCounts } from './apply-diff.js';
import { catalogKeyOf, catalogModel, CATALOG_FORMAT } from './catalog-format.js';
import { CatalogWriter, type SnapshotCatalog } from './catalog-writer.js';
import { normalizeName } from './exact-name.js';
import { LiveVectors } from './live-vectors.js';
import { resolveEngineOptions, type EngineOptions, type ResolvedEngineOptions } from './options.js';
import { RankedSearch, type RankedCatalog } from './ranker.js';
import { EMBEDDING_TEXT_VERSION } from './skill-text.js';
import { crossLingual, storeSource } from './stored-search.js';
import type { EmbedProgress } from './vector-supply.js';

export type { AssembledCatalog, SnapshotCatalog } from './catalog-writer.js';

export interface SyncOptions {
  readonly signal?: AbortSignal;
  /** Called as embedding progresses: `done` of `total` skills that needed a new vector. */
  readonly onProgress?: EmbedProgress;
  /**
   * Bring the vector index up to date now (embedding new skills); when false the vectors catch up
   * at the first dense or hybrid search. @default true unless the engine's default `mode` is `lexical`
   */
  readonly dense?: boolean;
  /** The catalog's stamps: a new engine's first counts are what changed since the store's copy of it, else since the model's catalog saved last. */
  readonly savedAs?: Pick<SnapshotCatalog, 'sourceStamp' | 'portableStamp'>;
}

export interface SyncResult extends DiffCounts {
  /** Skills whose vector came from the embedder (the rest were stored already). */
  readonly embedded: number;
}

export interface EngineInfo {
  readonly model: string;
  readonly dimensions: number;
  readonly ann: 'hnsw' | 'exact';
  readonly skills: number;
  /** Where saved catalogs go: the store's file, or `memory` without one. */
  readonly store: string;
}

/** A lexical index built off the engine, with the glosses it was built with and their epoch (`CrossLingual.glossesEpoch`). */
interface LexicalAside {
  readonly index: LexicalIndex;
  readonly glossed: ReadonlyMap<string, string>;
  readonly glossesEpoch: number;
}

/**
 * The live search engine: keeps a lexical index and the vectors of a catalog in memory, in step
 * with the skills it is given (`sync`), embeds only content the store has no vector for, and
 * saves the synced catalog in the store (`saveCatalog`) for cold processes (`stored-search.ts`).
 *
 * Invariants: `#skills` and the lexical index always hold the same ids; the vectors hold them too
 * unless `#denseStale` (then a dense or hybrid search first brings them up to date, queued like a
 * sync). A sync awaits every embedding, then changes the indexes in one synchronous block.
 */
export class SkillSearchEngine extends RankedSearch {
  readonly #shared: SharedStore | undefined;
  readonly #writer: CatalogWriter | undefined;
  readonly #dense: LiveVectors;
  #denseStale = false;
  #lexical = new LexicalIndex();
  /** The catalog as last synced; replaced whole by each sync, never changed in place. */
  #skills: ReadonlyMap<string, Skill> = new Map();
  #names = new Map<string, string[]>();
  /** The lexical glosses each glossed skill was indexed with. */
  #lexicalGlosses: ReadonlyMap<string, string> = new Map();
  /** `CrossLingual.glossesEpoch` when `#lexicalGlosses` was taken. */
  #glossesEpoch = -1;
  /** Bumped whenever `#skills` and the lexical index are brought to a new catalog. */
  #generation = 0;
  /** `#generation` when the catalog was last saved, with its key. */
  #saved: { generation: number; key: string } | undefined;
  #syncing: Promise<unknown> = Promise.resolve();
  #closing: Promise<void> | undefined;
  protected readonly catalog: RankedCatalog;

  private constructor(options: ResolvedEngineOptions, dimensions: number, shared: SharedStore | undefined) {
    const language = crossLingual(options, shared);
    super({ engine: options, dimensions, language });
    this.#shared = shared;
    // The store's model id: the embedder's with its text version.
    const sources = { engine: options, model: `${options.embedder.id}#${EMBEDDING_TEXT_VERSION}`, dimensions, shared, language };
    this.#dense = new LiveVectors(sources);
    this.#writer = shared === undefined ? undefined : new CatalogWriter({ ...sources, shared });
    const engine = this;
    this.catalog = {
      get size() {
        return engine.#skills.size;
      },
      get generation() {
        return engine.#generation;
      },
      skill: (id) => this.#skills.get(id),
      idsNamed: (name) => this.#names.get(name),
      get lexical() {
        return engine.#lexical;
      },
      dense: (signal) => this.#denseReady(signal),
    };
  }

  static async open(options: EngineOptions): Promise<SkillSearchEngine> {
    const resolved = resolveEngineOptions(options);
    let dimensions = resolved.embedder.dimensions;
    if (!(dimensions > 0)) {
      const [probe] = await resolved.embedder.embed(['dimension probe']);
      dimensions = probe?.length ?? 0;
    }
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw new SkillSearchError('INTERNAL', `embedder ${resolved.embedder.id} reports ${String(dimensions)} dimensions`);
    }
    const store = storeSource(resolved);
    return new SkillSearchEngine(resolved, dimensions, store === undefined ? undefined : new SharedStore(store, { writer: resolved.storeWriter }));
  }

  get info(): EngineInfo {
    const store = storeSource(this.options);
    return {
      model: this.options.embedder.id,
      dimensions: this.dimensions,
      ann: this.options.ann,
      skills: this.#skills.size,
      store: this.#shared === undefined ? 'memory' : typeof store === 'string' ? store : 'given',
    };
  }

  /** Why the catalog could not be saved, when a save failed (the engine answered from memory); undefined otherwise. */
  get saveProblem(): string | undefined {
    return this.#writer?.problem ?? this.#shared?.problem;
  }

  /** True when {@link saveCatalog} would write `catalog` (this engine has not, and the store does not hold it). */
  needsCatalogSave(catalog: SnapshotCatalog): boolean {
    if (this.#shared === undefined || this.#denseStale || this.#dense.current === undefined || this.#skills.size === 0) return false;
    const key = catalogKeyOf(catalog, this.options);
    if (this.#saved?.generation === this.#generation && this.#saved.key === JSON.stringify(key)) return false;
    return this.#shared.catalog(key) === undefined;
  }

  /**
   * Saves the synced catalog in the store for cold processes (docs/store.md). Returns whether it
   * was written; a store that fails costs only the next cold process its shortcut ({@link saveProblem}).
   */
  saveCatalog(catalog: SnapshotCatalog): boolean {
    const writer = this.#writer;
    const vectors = this.#dense.current;
    if (writer === undefined || vectors === undefined || !this.needsCatalogSave(catalog)) return false;
    if (writer.write(catalog, [...this.#skills.values()], this.#lexicalGlosses, vectors) === undefined) return false;
    this.#saved = { generation: this.#generation, key: JSON.stringify(catalogKeyOf(catalog, this.options)) };
    return true;
  }

  /** What writes a changed catalog in the store without syncing this engine: for a new engine (nothing synced) with a store, else undefined. */
  get catalogWriter(): CatalogWriter | undefined {
    this.assertOpen();
    return this.#generation === 0 ? this.#writer : undefined;
  }

  /**
   * Runs `write` (this engine's store writes: {@link saveCatalog}, {@link collectStore}) once the
   * store's write lock is free (`SharedStore.whenFree`); `otherwise` without a store, or once it failed.
   */
  whenStoreFree<T>(write: () => T, otherwise: T): Promise<T> {
    return this.#shared === undefined ? Promise.resolve(otherwise) : this.#shared.whenFree(write, otherwise);
  }

  /** Resolves once a store write of this engine waits for another process's write lock (`SharedStore.waiting`); never without a store. */
  storeWaiting(signal: AbortSignal): Promise<void> {
    return this.#shared?.waiting(signal) ?? new Promise<void>(() => undefined);
  }

  /** Collects the store's entries no one used for `STORE_DEFAULTS.collectAfterDays`; returns how many went. */
  collectStore(): number {
    return this.#shared?.collect(STORE_DEFAULTS.collectAfterDays) ?? 0;
  }

  /**
   * Makes the indexes hold exactly `skills` (by id; first wins on duplicate ids). Only skills
   * whose content hash has no stored vector are embedded. Calls are serialised. With
   * `dense: false` the counts are the lexical index's and nothing is embedded yet.
   */
  async sync(skills: readonly Skill[], options: SyncOptions = {}): Promise<SyncResult> {
    this.assertOpen();
    return this.#queued(() => this.#sync(skills, options));
  }

  /** `run` once every sync queued before it has settled; later ones wait for it. */
  #queued<T>(run: () => Promise<T>): Promise<T> {
    const queued = this.#syncing.then(run);
    this.#syncing = queued.catch(() => undefined);
    return queued;
  }

  async #sync(skills: readonly Skill[], { signal, onProgress, dense, savedAs }: SyncOptions): Promise<SyncResult> {
    throwIfAborted(signal);
    const desired = new Map<string, Skill>();
    for (const skill of skills) if (!desired.has(skill.id)) desired.set(skill.id, skill);
    await this.language.prepare(desired.values(), signal);

    const withDense = dense ?? this.options.mode !== 'lexical';
    const found = withDense ? await this.#dense.missing(desired.values(), signal, onProgress) : undefined;
    throwIfAborted(signal);

    const aside = await this.#lexicalAside(desired, signal);
    const first = this.#generation === 0;
    const lexical = this.#applyLexical(desired, aside);
    // A new engine holds nothing yet: its first counts say what changed since the last saved catalog.
    const since = (counts: DiffCounts): DiffCounts => (first ? (this.#sinceSaved(desired, savedAs) ?? counts) : counts);
    if (found === undefined) {
      this.#denseStale = true;
      return { ...since(lexical), embedded: 0 };
    }
    const counts = this.#dense.apply(desired, found);
    this.#denseStale = false;
    return { ...since(counts), embedded: found.embedded };
  }

  /** How `desired` differs, by lexical key, from its saved copy, else from this model's catalog saved last; undefined when neither is. */
  #sinceSaved(desired: ReadonlyMap<string, Skill>, savedAs: SyncOptions['savedAs']): DiffCounts | undefined {
    const shared = this.#shared;
    const own = savedAs === undefined ? undefined : shared?.catalog(catalogKeyOf(savedAs, this.options));
    const base = own ?? shared?.latestCatalog(catalogModel(this.options), CATALOG_FORMAT);
    if (base === undefined) return undefined;
    const members = shared!.members(base.id).keys();
    const saved = new Map(members.map((m) => [m.id, m.lexicalKey]));
    let added = 0;
    let updated = 0;
    let unchanged = 0;
    for (const [id, skill] of desired) {
      const key = saved.get(id);
      if (key === undefined) added += 1;
      else if (key === lexicalKey(skill, this.#lexicalGlosses.get(id))) unchanged += 1;
      else updated += 1;
    }
    return { added, updated, unchanged, removed: saved.size - updated - unchanged };
  }

  /** The vector side, first brought up to the current catalog when a lexical-only sync left it behind. */
  #denseReady(signal?: AbortSignal): Promise<DenseSide> {
    const current = this.#dense.current;
    if (!this.#denseStale && current !== undefined) return Promise.resolve(current);
    // Queued behind every sync and ahead of later ones, so `#skills` cannot move meanwhile.
    return this.#queued(async () => {
      if (!this.#denseStale) return this.#dense.load();
      const skills = this.#skills;
      const found = await this.#dense.missing(skills.values(), signal);
      throwIfAborted(signal);
      this.#dense.apply(skills, found);
      this.#denseStale = false;
      return this.#dense.load();
    });
  }

  /**
   * With nothing indexed yet (a new engine's first sync), the lexical index of `desired` and its
   * glosses, built aside with turns for the event loop, so that `#applyLexical` (one synchronous
   * step) only swaps it in: a first sync of 312 skills indexed there blocked a loaded machine's hook
   * past its watchdog (docs/cold-start.md). Undefined when something is indexed: a sync files changes.
   */
  async #lexicalAside(desired: ReadonlyMap<string, Skill>, signal?: AbortSignal): Promise<LexicalAside | undefined> {
    if (this.#lexical.size > 0) return undefined;
    const index = new LexicalIndex();
    const glossed = new Map<string, string>();
    const glossesEpoch = this.language.glossesEpoch;
    const turn = loopTurns();
    for (const [id, skill] of desired) {
      await turn();
      throwIfAborted(signal);
      const glosses = this.language.glossesOf(skill)?.lexical;
      if (glosses !== undefined) glossed.set(id, glosses);
      index.upsert(skill, glosses);
    }
    return { index, glossed, glossesEpoch };
  }

  /** Synchronous: the lexical index (or the one built `aside` for the same `desired`), `#skills` and `#names` now hold `desired` (which the engine keeps). */
  #applyLexical(desired: ReadonlyMap<string, Skill>, aside: LexicalAside | undefined): DiffCounts {
    this.#generation += 1;
    const previous = this.#skills;
    if (aside !== undefined) {
      this.#lexical = aside.index;
      this.#skills = desired;
      this.#lexicalGlosses = aside.glossed;
      this.#glossesEpoch = aside.glossesEpoch;
      this.#names = namesOf(desired);
      return { added: desired.size, updated: 0, removed: 0, unchanged: 0 };
    }
    const lexical = this.#lexical;
    // Glosses of a skill seen before change only when the language step says so (its epoch).
    const glossesKept = this.#glossesEpoch === this.language.glossesEpoch;
    const glossed = glossesKept ? new Map(this.#lexicalGlosses) : new Map<string, string>();
    if (!glossesKept) {
      for (const [id, skill] of desired) {
        const glosses = this.language.glossesOf(skill)?.lexical;
        if (glosses !== undefined) glossed.set(id, glosses);
      }
    }
    let renamed = false;
    const counts = applyDiff(desired, {
      size: lexical.size,
      ids: () => lexical.ids(),
      has: (id) => lexical.has(id),
      holds: (id, skill) => previous.get(id) === skill && (glossesKept || this.#lexicalGlosses.get(id) === glossed.get(id)),
      remove: (id) => {
        lexical.remove(id);
        glossed.delete(id);
      },
      upsert: (id, skill) => {
        const glosses = this.language.glossesOf(skill)?.lexical;
        if (glosses === undefined) glossed.delete(id);
        else glossed.set(id, glosses);
        if (previous.get(id)?.name !== skill.name) renamed = true;
        const had = lexical.has(id);
        if (!lexical.upsert(skill, glosses)) return 'unchanged';
        return had ? 'updated' : 'added';
      },
    });
    // Equal lexical scores are listed in catalog order, as a clean build of `desired` lists them.
    lexical.arrange(desired.keys());
    this.#skills = desired;
    this.#lexicalGlosses = glossed;
    this.#glossesEpoch = this.language.glossesEpoch;
    if (renamed || counts.removed > 0 || previous.size !== desired.size) {
      this.#names = namesOf(desired);
    }
    return counts;
  }

  /** Settles once every sync queued so far has (whether or not it succeeded). */
  idle(): Promise<void> {
    return this.#syncing.then(() => undefined);
  }

  /** Idempotent; waits for a running sync, then releases the store. Later calls return the same promise. */
  close(): Promise<void> {
    this.#closing ??= this.#syncing.then(() => {
      this.#shared?.close();
    });
    return this.#closing;
  }

  protected assertOpen(): void {
    if (this.#closing !== undefined) throw closedError('the search engine');
  }
}

/** Each normalized name's skill ids, in catalog order (skills sharing a name keep the order they are listed in). */
function namesOf(skills: ReadonlyMap<string, Skill>): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const skill of skills.values()) getOrAdd(names, normalizeName(skill.name), () => []).push(skill.id);
  return names;
}
