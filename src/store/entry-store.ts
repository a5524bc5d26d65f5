import type { LexicalEntry } from '../lexical/lexical-entry.js';
import type { LexicalSearcher } from '../lexical/lexical-index.js';

/**
 * What the search needs from the store shared by every project folder and process: vectors keyed
 * by model and content hash (a skill is embedded once, anywhere), and saved catalogs with what a
 * cold search reads (docs/store.md, "The seam"). Small, so another engine could sit behind it;
 * `SqliteStore` is the implementation. A cache: every method may fail, and the callers
 * (`SharedStore`) treat a failure as "not stored".
 */
export interface EntryStore {
  /** The vectors stored under `model` for those of `keys` it holds (each `dimensions` long), marked used today. */
  vectors(model: string, dimensions: number, keys: readonly string[]): Map<string, Float32Array>;
  /** Stores vectors by content key under `model`; entries stored already are kept and marked used today. */
  putVectors(model: string, vectors: ReadonlyMap<string, Float32Array>): void;
  /** The label of each of `keys` stored under `model`: an integer naming the vector while it is stored, so a graph keyed by labels serves every catalog holding it. */
  labels(model: string, keys: readonly string[]): Map<string, number>;
  /** The catalog saved under `key`, marked used today; undefined when none was. */
  catalog(key: CatalogKey): StoredCatalog | undefined;
  /** The graph of the catalog of `model` and `format` saved last with one (what a new graph is derived from), with the catalog whose labels it holds. */
  latestGraph(model: string, format: number): { readonly catalog: number; readonly graph: string } | undefined;
  /** The catalog of `model` and `format` saved last: what a changed catalog is written from ({@link NewCatalog.base}). */
  latestCatalog(model: string, format: number): StoredCatalog | undefined;
  /** Saves `catalog` (replacing one saved under the same key) in one transaction; returns its id. */
  putCatalog(catalog: NewCatalog): number;
  /** The members of the saved catalog `catalog` (by id); with `overlay`, as those documents held in memory make of it. */
  members(catalog: number, overlay?: MemoryOverlay): CatalogMembers;
  /** The lexical index of the saved catalog `catalog` (BM25 over the project's own tokens), with `overlay` held over it. */
  catalogLexical(catalog: number, overlay?: MemoryOverlay): LexicalSearcher;
  /** What a language step recorded per content key under `scope` (its settings), as it wrote it. */
  glosses(scope: string): Map<string, string>;
  /** Records per content key under `scope`, replacing what `scope` held. */
  putGlosses(scope: string, entries: ReadonlyMap<string, string>): void;
  /** Runs `write` (writes on this store) once its write lock is free; how it waits is the store's (`SqliteStore.whenFree`). */
  whenFree<T>(write: () => T, options?: WhenFreeOptions): Promise<T>;
  /** Where the graph files named by catalogs live. */
  readonly graphDir: string;
  /** Removes the entries and catalogs no one used in the last `days` days, and graph files no catalog names; returns how many went. */
  collect(days: number): number;
  close(): void;
}

export interface WhenFreeOptions {
  /** Stops the wait: `write` then runs as a reader's would. */
  readonly signal?: AbortSignal | undefined;
  /** Called once when the write lock is first found held by another connection (the wait begins). */
  readonly onWait?: () => void;
}

/** What a catalog is saved under: any working folder computes it alike for the same skills. */
export interface CatalogKey {
  /** The catalog's portable stamp (`src/load/source-stamp.ts`). */
  readonly stamp: string;
  /** The model, its text version and the index kind. */
  readonly model: string;
  /** The layout of what is saved per catalog (bumped when it changes). */
  readonly format: number;
}

/** A saved catalog's row. */
export interface StoredCatalog {
  readonly id: number;
  /** The source stamp of the folder that saved it. */
  readonly sourceStamp: string;
  /** The catalog's load problems, JSON. */
  readonly diagnostics: string;
  readonly size: number;
  /** The mean of its members' vectors. */
  readonly mean: Float32Array | undefined;
  /** The float64 sum of its members' vectors: a catalog written from this one moves it by the changed members' only. */
  readonly sum: Float64Array | undefined;
  /** The graph file (under `SqliteStore.graphDir`) that serves it; undefined when it is searched exactly. */
  readonly graph: string | undefined;
  /** The catalog whose members' labels {@link graph} holds: itself, or the base of an overlay that names the base's graph. */
  readonly graphHolder?: number;
}

export interface NewCatalog extends CatalogKey {
  readonly sourceStamp: string;
  readonly diagnostics: string;
  /** In catalog order (a member's `doc` is its position); a number is {@link base}'s document of that number, kept as it is (copied in SQL). */
  readonly members: readonly (CatalogMember | number)[];
  /** The saved catalog (by id) the numbered members are copied from; needed when any is. */
  readonly base?: number | undefined;
  readonly mean?: Float32Array | undefined;
  /** The float64 sum of the members' vectors ({@link StoredCatalog.sum}). */
  readonly sum?: Float64Array | undefined;
  readonly graph?: string | undefined;
  /** The lexical entry of member `doc`: asked only for the entries the store does not hold yet (by lexical key). */
  readonly lexicalEntry: (doc: number) => LexicalEntry;
}

export interface CatalogMember {
  readonly id: string;
  /** Normalised, for the exact-name path. */
  readonly name: string;
  /** `lexicalKey` of the skill and its glosses: its lexical entry is stored once under it. */
  readonly lexicalKey: string;
  readonly vectorKey: string;
  /** The skill as JSON, decoded only when a query returns it. */
  readonly record: string;
}

/** A member's record and stored vector, as {@link CatalogMembers.membersOf} reads them. */
export interface MemberRead {
  readonly record: string;
  readonly stored: { readonly key: string; readonly vector: Float32Array } | undefined;
}

/** The members of one saved catalog, read a few at a time (a cold search reaches a few dozen). */
export interface CatalogMembers {
  /** The ids with this normalised name, in catalog order. */
  idsNamed(name: string): readonly string[];
  /** The ids whose vector has each of `labels`, in catalog order, in one read: labels no member has are absent. */
  idsLabelled(labels: readonly number[]): Map<number, readonly string[]>;
  /** The record and vector key and vector (`dimensions` long) of each of `ids` in one read: ids that are no member are absent. */
  membersOf(ids: readonly string[], dimensions: number): Map<string, MemberRead>;
  /** Every member, in catalog order. */
  all(): CatalogMember[];
  /** Every member's id, in catalog order. */
  ids(): string[];
  /** Every member without its record, in catalog order (what a catalog's search is built from). */
  keys(): Omit<CatalogMember, 'record'>[];
  /** The id and vector key of the member at each of `docs` (documents the catalog lacks are absent). */
  at(docs: readonly number[]): Map<number, { readonly id: string; readonly vectorKey: string }>;
  /** How many members hold each of `keys` as their vector key. */
  holding(keys: readonly string[]): Map<string, number>;
  /** How many distinct vector keys the members hold. */
  distinctVectors(): number;
  /** Every distinct label of the members' vectors. */
  labels(): number[];
  /** Every distinct label of the members with the vector it names (an exact search, a graph derived from this catalog's). */
  labelled(dimensions: number): Map<number, Float32Array>;
  /**
   * For an overlay, every distinct label of the members it changed with the vector it names
   * (empty for a catalog written whole): a search scans them beside the base's graph, which lacks them.
   */
  overlaid(dimensions: number): Map<number, Float32Array>;
}

/** A member held in memory in place of a saved catalog's document: a changed catalog searched before it is written (docs/store.md). */
export interface OverlaidMember {
  readonly member: CatalogMember;
  /** The label the store names its vector by, and the vector. */
  readonly label: number;
  readonly vector: Float32Array;
  readonly entry: LexicalEntry;
}

/** Members held in memory by the document they take, each with the same id as the saved one there. */
export type MemoryOverlay = ReadonlyMap<number, OverlaidMember>;

/** How `SqliteStore.open` opens the store (here, not beside it, so the public declarations never name better-sqlite3's types). */
export interface StoreOpenOptions {
  /**
   * A catalog's writer, whose writes wait long for another process's (docs/store.md, "Concurrency"): `true` (a one-shot
   * `index`) with SQLite's busy timeout; `'async'` (`watch`, MCP, a `LiveIndex`) through `SqliteStore.whenFree`. @default false
   */
  readonly writer?: boolean | 'async';
}

/** The store's knobs, in one place. */
export const STORE_DEFAULTS = Object.freeze({
  /** The store's file under the cache root. */
  file: 'store.sqlite',
  /** The folder beside it holding the catalogs' graph files. */
  graphDir: 'graphs',
  /** Entries unused this long are collected (by `skill-search index`, off a prompt's path). */
  collectAfterDays: 30,
  /** How long a reader's write (a hook's vectors, glosses, an assembled catalog) waits for another process's, in ms; past it the write is skipped. */
  busyTimeoutMs: 250,
  /** How long a catalog's writer (a store opened as `writer`) waits for another process's write, in ms: it must not lose the build (docs/store.md). */
  writerBusyTimeoutMs: 120_000,
  /** SQLite's page cache per connection, in KiB (pages are read lazily: a reader uses a few). */
  cacheKiB: 65_536,
});
