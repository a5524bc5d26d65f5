import type { LexicalEntry } from '../lexical/lexical-entry.js';

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
  /**
   * The float64 sum of its members' vectors (one per member): a catalog written from this one
   * moves it by the changed members' vectors only. Undefined when it was saved without.
   */
  readonly sum: Float64Array | undefined;
  /** The graph file (under `SqliteStore.graphDir`) that serves it; undefined when it is searched exactly. */
  readonly graph: string | undefined;
  /** The catalog whose members' labels {@link graph} holds: itself, or the base of an overlay that names the base's graph. */
  readonly graphHolder?: number;
}

export interface NewCatalog extends CatalogKey {
  readonly sourceStamp: string;
  readonly diagnostics: string;
  /**
   * In catalog order (a member's `doc` is its position). A number is a member of {@link base}
   * kept as it is: that catalog's document of this number, copied in SQL with its lexical
   * statistics (a changed catalog binds only its changed members).
   */
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
  /** `lexicalKey` of the skill and the glosses it is indexed with: its lexical entry is stored once under it. */
  readonly lexicalKey: string;
  readonly vectorKey: string;
  /** The skill as JSON, decoded only when a query returns it. */
  readonly record: string;
}

/** The members of one saved catalog, read a few at a time (a cold search reaches a few dozen). */
/** A member's record and stored vector, as {@link CatalogMembers.membersOf} reads them. */
export interface MemberRead {
  readonly record: string;
  readonly stored: { readonly key: string; readonly vector: Float32Array } | undefined;
}

export interface CatalogMembers {
  /** The ids with this normalised name, in catalog order. */
  idsNamed(name: string): readonly string[];
  /** The ids whose vector has each of `labels`, in catalog order, in one read: labels no member has are absent. */
  idsLabelled(labels: readonly number[]): Map<number, readonly string[]>;
  /** The record and vector key and vector (`dimensions` long) of each of `ids` in one read: ids that are no member are absent. */
  membersOf(ids: readonly string[], dimensions: number): Map<string, MemberRead>;
  /** Every member, in catalog order. */
  all(): CatalogMember[];
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
   * For an overlay, every distinct label of the members it holds rows for (those it changed)
   * with the vector it names; empty for a catalog written whole. An overlay may name its base's
   * graph, which lacks these: a search scans them exactly beside the graph.
   */
  overlaid(dimensions: number): Map<number, Float32Array>;
}

/**
 * A member held in memory in place of a saved catalog's document: a changed catalog searched
 * before it is written (docs/store.md, "Searched before it is written").
 */
export interface OverlaidMember {
  readonly member: CatalogMember;
  /** The label the store names its vector by, and the vector. */
  readonly label: number;
  readonly vector: Float32Array;
  readonly entry: LexicalEntry;
}

/** Members held in memory by the document they take, each with the same id as the saved one there. */
export type MemoryOverlay = ReadonlyMap<number, OverlaidMember>;

/** The store's knobs, in one place. */
export const STORE_DEFAULTS = Object.freeze({
  /** The store's file under the cache root. */
  file: 'store.sqlite',
  /** The folder beside it holding the catalogs' graph files. */
  graphDir: 'graphs',
  /** Entries unused this long are collected (by `skill-search index`, off a prompt's path). */
  collectAfterDays: 30,
  /**
   * How long a reader's write (a hook's or `query`'s vectors, glosses, an assembled catalog)
   * waits for another process's write, in ms. Readers never wait (WAL); a write that still
   * finds the store busy is skipped, since the store is a cache.
   */
  busyTimeoutMs: 250,
  /**
   * How long a catalog's writer (`index`, `watch`, a library `LiveIndex` saving: a store opened
   * as `writer`) waits for another process's write, in ms: a hook or a second indexer holding
   * the write lock for seconds at 24k skills must not lose the build (docs/store.md, "Concurrency").
   */
  writerBusyTimeoutMs: 120_000,
  /** SQLite's page cache per connection, in KiB (pages are read lazily: a reader uses a few). */
  cacheKiB: 65_536,
});
