import { IndexFolder, type CheckedArtefact, type ReadArtefact, type WrittenArtefact } from '../index-folder/index-folder.js';
import { EmbeddingCache } from '../embed/embedding-cache.js';
import { ENTRY_TABLE_FORMAT, EntryTable } from './entry-table.js';
import { ExactIndex } from './exact-index.js';
import { hnswlibVectors } from './hnswlib-graph.js';
import { UsearchIndex, type HnswOptions } from './usearch-index.js';
import type { SavedEntry, VectorIndex, VectorIndexKind } from './vector-index.js';
import { array, number, object, oneOf, shapeIssue, shapeProblem, string, tuple, unknown } from '../util/shape.js';

/**
 * A vector index bound to its index folder, holding each skill's vector once: the index is
 * the only copy (in memory and on disk), and a vector is found by skill id or by tag (the
 * engine's content key), so a renamed skill or one whose text came back needs no embedding.
 *
 * Two artefacts in the folder's manifest (`index-folder.ts`): `vector-data` (the usearch graph
 * with the vectors' rows, see `usearch-index.ts`, or the raw rows of the exact index) and `vector-entries` (an
 * {@link EntryTable}: every entry's id, tag, label and row offset, and the running sum of the
 * vectors, so the catalog's mean for centering is known without reading them; format 1, the
 * same as JSON, is still read, and the next save writes both files anew). A save with few changes since
 * those files appends one record to the data's delta log (the removed ids, the upserted ids and
 * tags, their rows) instead; past {@link LOG_MAX_ROWS} rows the next save writes both files
 * anew and the log starts over. Any doubt on open (another model, dimensions, kind or format,
 * a file missing or failing its checksum) means "rebuild", with the reason in `status`.
 */
export const VECTOR_DATA = 'vector-data';
export const VECTOR_ENTRIES = 'vector-entries';
/**
 * `vector-data`'s format by kind: the exact index's raw rows are 1; the graph is 2 since it is
 * usearch's, so a format-1 graph (hnswlib's, from before) is rebuilt, never handed to usearch.
 */
function dataFormat(kind: VectorIndexKind): number {
  return kind === 'hnsw' ? 2 : 1;
}
/** `vector-entries` as JSON, before the {@link EntryTable}: read, never written. */
const ENTRIES_JSON_FORMAT = 1;
/**
 * Rows the delta log may hold before a save compacts it. Each logged upsert is an HNSW
 * insertion (2–4 ms at 24k skills on a busy machine) replayed by every process that opens the
 * index, a hook without a server included, and a compaction rewrites the whole graph (~50 MB,
 * about half a second at 24k), so this balances the two.
 */
export const LOG_MAX_ROWS = 32;

export interface VectorStoreOptions {
  readonly kind: VectorIndexKind;
  readonly model: string;
  readonly dimensions: number;
  /** Index folder to persist into (opened or a path); in-memory only when absent. */
  readonly folder?: IndexFolder | string;
  readonly hnsw?: HnswOptions;
}

export type VectorStoreStatus =
  | { readonly state: 'memory' }
  | { readonly state: 'created' }
  | { readonly state: 'loaded'; readonly count: number }
  | { readonly state: 'rebuilt'; readonly reason: string };

export function createVectorIndex(kind: VectorIndexKind, dimensions: number, hnsw?: HnswOptions): VectorIndex {
  return kind === 'hnsw' ? new UsearchIndex(dimensions, hnsw) : new ExactIndex(dimensions);
}

/** `vector-entries` as JSON (format 1) as read: anything else means "rebuild". */
interface PersistedEntries {
  readonly kind: VectorIndexKind;
  /** [id, tag, label, byte offset of the row in the data file or -1], each checked by `isEntry` (a fast loop at 24k). */
  readonly entries: readonly unknown[];
  /** Σ of the stored vectors, per dimension. */
  readonly sum: readonly number[];
}
const entriesShape = object({ kind: oneOf(['hnsw', 'exact']), entries: array(unknown), sum: array(number) });

function isEntry(value: unknown): value is SavedEntry {
  return (
    Array.isArray(value) &&
    value.length === 4 &&
    typeof value[0] === 'string' &&
    typeof value[1] === 'string' &&
    Number.isSafeInteger(value[2]) &&
    (value[2] as number) >= 0 &&
    Number.isSafeInteger(value[3])
  );
}

/** One save's changes in the delta log: a JSON line, then one f32 row per upsert. */
interface LogRecord {
  readonly removed: readonly string[];
  readonly upserts: readonly (readonly [string, string])[];
}
const logRecordShape = object({ removed: array(string()), upserts: array(tuple([string(), string()])) });

export class VectorStore {
  readonly options: VectorStoreOptions;
  #status: VectorStoreStatus;
  readonly index: VectorIndex;
  /**
   * tag → the id holding it, or the ids when several do (skills with the same text). Built on
   * first use from the index (a cold search rarely asks by tag); kept in step from then on.
   */
  #byTagMap: Map<string, string | string[]> | undefined;
  /** Σ of the stored vectors (float64 so that updates in any order agree to ~1e-12). */
  readonly #sum: Float64Array;
  /**
   * Vectors by tag that survived what made the index rebuild (an index of the other kind, the
   * delta log of an unreadable base, an index folder of the layout before the manifest): used
   * instead of embedding, dropped at the first save.
   */
  #salvaged: Map<string, Float32Array> | undefined;
  /** The base files exist; changes since go to the log. */
  #hasBase = false;
  /** The base's entries are JSON (format 1): the next save writes both base files anew. */
  #baseOutdated = false;
  /** Rows the log holds. */
  #loggedRows = 0;
  /** Records the log holds (a removal-only record has no rows). */
  #loggedRecords = 0;
  readonly #pending = { removed: new Set<string>(), upserted: new Set<string>() };

  private constructor(options: VectorStoreOptions, index: VectorIndex, status: VectorStoreStatus, sum?: Float64Array) {
    this.options = options;
    this.index = index;
    this.#status = status;
    this.#sum = sum ?? new Float64Array(options.dimensions);
  }

  static open(options: VectorStoreOptions): VectorStore {
    const fresh = (): VectorIndex => createVectorIndex(options.kind, options.dimensions, options.hnsw);
    if (options.folder === undefined) return new VectorStore(options, fresh(), { state: 'memory' });
    const folder = typeof options.folder === 'string' ? IndexFolder.open(options.folder) : options.folder;
    options = { ...options, folder };
    if (folder.entry(VECTOR_DATA) === undefined && folder.problem === undefined) {
      const legacy = folder.legacy.includes('vectors.json') ? 'vectors.json' : folder.legacy.find((file) => file.startsWith('embeddings-'));
      if (legacy === undefined) return new VectorStore(options, fresh(), { state: 'created' });
      const store = new VectorStore(options, fresh(), { state: 'rebuilt', reason: `index folder of an older layout (${legacy})` });
      store.#salvaged = salvageLegacy(folder, options);
      return store;
    }
    const loaded = load(folder, options);
    if (typeof loaded === 'string') {
      const store = new VectorStore(options, fresh(), { state: 'rebuilt', reason: loaded });
      store.#salvaged = salvageOtherKind(folder, options) ?? salvageHnswlib(folder, options) ?? salvageLog(folder, options);
      return store;
    }
    return VectorStore.#loaded(options, folder, loaded.index, loaded);
  }

  /** A store over a base read from `folder`, its delta log replayed. */
  static #loaded(options: VectorStoreOptions, folder: IndexFolder, index: VectorIndex, base: { sum: Float64Array; outdated: boolean }): VectorStore {
    const store = new VectorStore(options, index, { state: 'loaded', count: index.size }, base.sum);
    store.#hasBase = true;
    store.#baseOutdated = base.outdated;
    store.#replayLog(folder);
    store.#status = { state: 'loaded', count: store.index.size };
    return store;
  }

  /**
   * The saved index of `options.folder` for reading, with the HNSW graph read on the thread pool
   * (so the caller can load other things meanwhile), or why it cannot be used. Unlike
   * {@link open} it rebuilds nothing: a cold search with no usable index falls back elsewhere.
   */
  static async openSaved(options: VectorStoreOptions & { readonly folder: IndexFolder }): Promise<VectorStore | { readonly reason: string }> {
    const folder = options.folder;
    if (folder.entry(VECTOR_DATA) === undefined) return { reason: 'no vector index' };
    const data = folder.check(VECTOR_DATA, dataFormat(options.kind));
    if ('reason' in data) return { reason: data.reason };
    // The entries are read on the thread pool; the graph is memory-mapped, so opening it costs no read.
    const entries = await folder.readAsync(VECTOR_ENTRIES, entriesFormat(folder));
    const loaded = load(folder, options, { data, entries });
    if (typeof loaded === 'string') return { reason: loaded };
    return VectorStore.#loaded(options, folder, loaded.index, loaded);
  }

  /**
   * A new, empty store in place of this one, whose index failed (`INDEX_CORRUPT`): this one is
   * closed, and its vectors for `tags` that can still be read are kept as salvage with the
   * `fresh` vectors (by tag) not stored yet, so the rebuild embeds only what was lost. The next save writes new base files.
   */
  discard(reason: string, tags: Iterable<string>, fresh: ReadonlyMap<string, Float32Array> = new Map()): VectorStore {
    const salvaged = new Map(fresh);
    for (const tag of tags) {
      try {
        const vector = this.vectorOfTag(tag);
        if (vector !== undefined) salvaged.set(tag, vector.slice());
      } catch {
        // Unreadable: embedded again.
      }
    }
    this.close();
    const options = this.options;
    const store = new VectorStore(options, createVectorIndex(options.kind, options.dimensions, options.hnsw), { state: 'rebuilt', reason });
    store.#salvaged = salvaged;
    return store;
  }

  /** How the persisted index was found at open (`rebuilt` carries the reason). */
  get status(): VectorStoreStatus {
    return this.#status;
  }

  get size(): number {
    return this.index.size;
  }

  /** Whether some entry holds `tag`, or a salvaged vector has it. */
  hasTag(tag: string): boolean {
    return this.#byTag.has(tag) || this.#salvaged?.has(tag) === true;
  }

  /** The vector stored under `tag` (any id holding it, else a salvaged one); a view valid until the next change. */
  vectorOfTag(tag: string): Float32Array | undefined {
    const ids = this.#byTag.get(tag);
    if (ids !== undefined) return this.index.vectorOf(typeof ids === 'string' ? ids : ids[0]!);
    return this.#salvaged?.get(tag);
  }

  /** The mean of the stored vectors (zero when empty), as `Centroid` wants it. */
  mean(): Float32Array {
    const mean = new Float32Array(this.options.dimensions);
    const count = this.index.size;
    if (count > 0) for (let i = 0; i < mean.length; i += 1) mean[i] = this.#sum[i]! / count;
    return mean;
  }

  upsert(id: string, vector: Float32Array, tag: string): void {
    const old = this.index.vectorOf(id);
    const oldTag = this.index.tagOf(id);
    if (old !== undefined) for (let i = 0; i < this.#sum.length; i += 1) this.#sum[i]! -= old[i]!;
    this.index.upsert(id, vector, tag);
    for (let i = 0; i < this.#sum.length; i += 1) this.#sum[i]! += vector[i]!;
    if (oldTag !== undefined) this.#tagDelete(oldTag, id);
    this.#tagAdd(tag, id);
    this.#pending.removed.delete(id);
    this.#pending.upserted.add(id);
  }

  remove(id: string): boolean {
    const old = this.index.vectorOf(id);
    const tag = this.index.tagOf(id);
    if (old === undefined || tag === undefined) return false;
    for (let i = 0; i < this.#sum.length; i += 1) this.#sum[i]! -= old[i]!;
    this.index.remove(id);
    this.#tagDelete(tag, id);
    this.#pending.upserted.delete(id);
    this.#pending.removed.add(id);
    return true;
  }

  /**
   * Persists the changes since the last save (no-op in memory mode or when nothing changed
   * and the base files exist): one appended log record, or both base files when there are none
   * yet, they are of an older format, or the log would pass {@link LOG_MAX_ROWS}.
   */
  save(): void {
    const folder = this.options.folder as IndexFolder | undefined;
    if (folder === undefined) return;
    const changes = this.#pending.removed.size + this.#pending.upserted.size;
    if (this.#hasBase && !this.#baseOutdated && changes === 0) return;
    if (this.#hasBase && !this.#baseOutdated && this.#loggedRows + this.#pending.upserted.size <= LOG_MAX_ROWS) this.#saveLog(folder);
    else this.#saveBase(folder);
    this.#pending.removed.clear();
    this.#pending.upserted.clear();
    this.#salvaged = undefined;
  }

  /**
   * Saves, then writes the base files anew if the delta log holds any record, so later opens
   * replay nothing. Each logged upsert is an HNSW insertion that every opening process repeats,
   * a hook without a server included (docs/cold-start.md). For processes off a prompt's path
   * (`skill-search index`); a no-op in memory mode.
   */
  compact(): void {
    const folder = this.options.folder as IndexFolder | undefined;
    if (folder === undefined) return;
    this.save();
    if (this.#loggedRecords > 0) this.#saveBase(folder);
  }

  /** Releases the graph file handle; the store must not be used after. */
  close(): void {
    this.index.close();
  }

  #saveLog(folder: IndexFolder): void {
    const upserts = [...this.#pending.upserted].map((id) => [id, this.index.tagOf(id)!] as const);
    const header = Buffer.from(`${JSON.stringify({ removed: [...this.#pending.removed], upserts })}\n`, 'utf8');
    const rowBytes = 4 * this.options.dimensions;
    const record = Buffer.alloc(header.length + upserts.length * rowBytes);
    header.copy(record);
    upserts.forEach(([id], i) => {
      const vector = this.index.vectorOf(id)!;
      Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(record, header.length + i * rowBytes);
    });
    folder.appendLog(VECTOR_DATA, record);
    this.#loggedRows += upserts.length;
    this.#loggedRecords += 1;
  }

  #saveBase(folder: IndexFolder): void {
    const data = folder.write(VECTOR_DATA, (temp) => this.index.writeData(temp), { format: dataFormat(this.index.kind), meta: { kind: this.index.kind } });
    const entries: SavedEntry[] = this.index.entries().map(({ id, tag, label }) => [id, tag, label, -1]);
    const table = EntryTable.encode(this.index.kind, entries, this.#sum);
    const written: WrittenArtefact[] = [data, folder.write(VECTOR_ENTRIES, table, { format: ENTRY_TABLE_FORMAT })];
    folder.commit(written, { model: this.options.model, dimensions: this.options.dimensions });
    if (this.index instanceof UsearchIndex) this.index.readRowsFrom(folder.path(data.entry.file));
    this.#hasBase = true;
    this.#baseOutdated = false;
    this.#loggedRows = 0;
    this.#loggedRecords = 0;
  }

  /** Replays the log's records onto the loaded base, up to the first that does not fit. */
  #replayLog(folder: IndexFolder): void {
    for (const record of folder.readLog(VECTOR_DATA)) {
      const parsed = parseLogRecord(record, this.options.dimensions);
      if (parsed === undefined) break;
      for (const id of parsed.removed) this.remove(id);
      parsed.upserts.forEach(([id, tag], i) => this.upsert(id, parsed.rows[i]!, tag));
      this.#loggedRows += parsed.upserts.length;
      this.#loggedRecords += 1;
    }
    this.#pending.removed.clear();
    this.#pending.upserted.clear();
  }

  get #byTag(): Map<string, string | string[]> {
    if (this.#byTagMap === undefined) {
      const map = new Map<string, string | string[]>();
      for (const id of this.index.ids()) addTag(map, this.index.tagOf(id)!, id);
      this.#byTagMap = map;
    }
    return this.#byTagMap;
  }

  /** Keeps the tag map in step once built; until then it is built from the index as it is. */
  #tagAdd(tag: string, id: string): void {
    if (this.#byTagMap !== undefined) addTag(this.#byTagMap, tag, id);
  }

  #tagDelete(tag: string, id: string): void {
    const map = this.#byTagMap;
    const ids = map?.get(tag);
    if (map === undefined || ids === undefined) return;
    if (ids === id) map.delete(tag);
    else if (Array.isArray(ids)) {
      const rest = ids.filter((other) => other !== id);
      map.set(tag, rest.length === 1 ? rest[0]! : rest);
    }
  }
}

function addTag(map: Map<string, string | string[]>, tag: string, id: string): void {
  const ids = map.get(tag);
  if (ids === undefined) map.set(tag, id);
  else if (typeof ids === 'string') map.set(tag, [ids, id]);
  else ids.push(id);
}

/** One log record: the removed ids, the upserted [id, tag] pairs and their rows; undefined when it does not parse. */
function parseLogRecord(
  record: Buffer,
  dimensions: number,
): { removed: readonly string[]; upserts: readonly (readonly [string, string])[]; rows: Float32Array[] } | undefined {
  const newline = record.indexOf(0x0a);
  if (newline < 0) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(record.toString('utf8', 0, newline));
  } catch {
    return undefined;
  }
  if (shapeIssue(logRecordShape, data) !== undefined) return undefined;
  const parsed = data as LogRecord;
  const body = record.subarray(newline + 1);
  const rowBytes = 4 * dimensions;
  if (body.length !== parsed.upserts.length * rowBytes) return undefined;
  const rows = parsed.upserts.map((_, i) => {
    const vector = new Float32Array(dimensions);
    new Uint8Array(vector.buffer).set(body.subarray(i * rowBytes, (i + 1) * rowBytes));
    return vector;
  });
  return { removed: parsed.removed, upserts: parsed.upserts, rows };
}

function restore(options: VectorStoreOptions, path: string, entries: readonly SavedEntry[] | EntryTable): VectorIndex {
  return options.kind === 'hnsw'
    ? UsearchIndex.restore(path, options.dimensions, entries, options.hnsw)
    : ExactIndex.restore(path, options.dimensions, entries);
}

/** A saved index as {@link load} finds it; `outdated` when its entries are of the JSON format. */
interface LoadedBase {
  readonly index: VectorIndex;
  readonly sum: Float64Array;
  readonly outdated: boolean;
}

/** What a caller of {@link load} did already: the data file it checked and the entries it read. */
interface LoadStart {
  readonly data: CheckedArtefact;
  readonly entries: ReadArtefact;
}

/** The format the folder's `vector-entries` is read as. */
function entriesFormat(folder: IndexFolder): number {
  return folder.entry(VECTOR_ENTRIES)?.format === ENTRIES_JSON_FORMAT ? ENTRIES_JSON_FORMAT : ENTRY_TABLE_FORMAT;
}

/** The saved index of `folder`, or why it cannot be used. */
function load(folder: IndexFolder, options: VectorStoreOptions, start?: LoadStart): LoadedBase | string {
  if (folder.problem !== undefined) return folder.problem;
  if (folder.model !== options.model) return `model ${String(folder.model)} ≠ ${options.model}`;
  if (folder.dimensions !== options.dimensions) return `dimensions ${String(folder.dimensions)} ≠ ${options.dimensions}`;
  const kind = folder.entry(VECTOR_DATA)?.meta?.['kind'];
  if (kind !== options.kind) return `index kind ${String(kind)} ≠ ${options.kind}`;
  const format = entriesFormat(folder);
  const outdated = format === ENTRIES_JSON_FORMAT;
  const entriesRead = start?.entries ?? folder.read(VECTOR_ENTRIES, format);
  if ('reason' in entriesRead) return entriesRead.reason;
  const saved = outdated ? parseJsonEntries(entriesRead.bytes) : decodeEntryTable(entriesRead.bytes, options.dimensions);
  if (typeof saved === 'string') return saved;
  if (saved.kind !== options.kind || saved.sum.length !== options.dimensions) return `${VECTOR_ENTRIES} does not match the data`;
  const checked = start?.data ?? folder.check(VECTOR_DATA, dataFormat(options.kind));
  if ('reason' in checked) return checked.reason;
  try {
    const index = restore(options, checked.path, saved.entries);
    return { index, sum: Float64Array.from(saved.sum), outdated };
  } catch (error) {
    return unreadableData(checked.entry.file, error);
  }
}

/** Saved entries as a restore takes them, with the kind and Σ saved beside them. */
interface SavedEntries {
  readonly kind: VectorIndexKind;
  readonly entries: readonly SavedEntry[] | EntryTable;
  readonly sum: ArrayLike<number>;
}

function decodeEntryTable(bytes: Buffer, dimensions: number): SavedEntries | string {
  try {
    const table = EntryTable.decode(bytes, dimensions);
    return { kind: table.kind, entries: table, sum: table.sum };
  } catch (error) {
    return `${VECTOR_ENTRIES} is unreadable: ${(error as Error).message}`;
  }
}

function parseJsonEntries(bytes: Buffer): SavedEntries | string {
  let data: unknown;
  try {
    data = JSON.parse(bytes.toString('utf8'));
  } catch {
    return `${VECTOR_ENTRIES} is not valid JSON`;
  }
  const issue = shapeIssue(entriesShape, data);
  if (issue !== undefined) return `${VECTOR_ENTRIES} has the wrong shape (${shapeProblem(issue)})`;
  const parsed = data as PersistedEntries;
  const bad = parsed.entries.findIndex((entry) => !isEntry(entry));
  if (bad !== -1) return `${VECTOR_ENTRIES} has the wrong shape (entries.${bad}: expected [id, tag, label, offset])`;
  return { kind: parsed.kind, entries: parsed.entries as SavedEntry[], sum: parsed.sum };
}

function unreadableData(file: string, error: unknown): string {
  return `${VECTOR_DATA} file ${file} is unreadable: ${(error as Error).message}`;
}

/** Every vector of a saved index of the other kind (`ann` was switched), by tag, when it is otherwise usable. */
function salvageOtherKind(folder: IndexFolder, options: VectorStoreOptions): Map<string, Float32Array> | undefined {
  const kind = folder.entry(VECTOR_DATA)?.meta?.['kind'];
  if ((kind !== 'hnsw' && kind !== 'exact') || kind === options.kind) return undefined;
  const other = load(folder, { ...options, kind });
  if (typeof other === 'string') return undefined;
  const vectors = new Map<string, Float32Array>();
  for (const id of other.index.ids()) vectors.set(other.index.tagOf(id)!, other.index.vectorOf(id)!.slice());
  other.index.close();
  return vectors;
}

/** Every vector of an hnswlib graph (`vector-data` format 1, before usearch) made with this model, by tag, then those of its delta log. */
function salvageHnswlib(folder: IndexFolder, options: VectorStoreOptions): Map<string, Float32Array> | undefined {
  const entry = folder.entry(VECTOR_DATA);
  if (entry?.format !== 1 || entry.meta?.['kind'] !== 'hnsw' || folder.model !== options.model || folder.dimensions !== options.dimensions) return undefined;
  const data = folder.read(VECTOR_DATA, 1);
  const entriesRead = folder.read(VECTOR_ENTRIES, entriesFormat(folder));
  if ('reason' in data || 'reason' in entriesRead) return undefined;
  const saved = entriesFormat(folder) === ENTRIES_JSON_FORMAT ? parseJsonEntries(entriesRead.bytes) : decodeEntryTable(entriesRead.bytes, options.dimensions);
  const byLabel = hnswlibVectors(data.bytes, options.dimensions);
  if (typeof saved === 'string' || byLabel === undefined) return undefined;
  const rows = saved.entries instanceof EntryTable ? saved.entries.rows() : saved.entries;
  const vectors = new Map<string, Float32Array>();
  for (const [, tag, label] of rows) {
    const vector = byLabel.get(label);
    if (vector !== undefined) vectors.set(tag, vector);
  }
  for (const [tag, vector] of salvageLog(folder, options) ?? []) vectors.set(tag, vector);
  return vectors.size === 0 ? undefined : vectors;
}

/** The rows of the delta log of a base that cannot be used (changed since it was written), by tag, when made with this model. */
function salvageLog(folder: IndexFolder, options: VectorStoreOptions): Map<string, Float32Array> | undefined {
  if (folder.problem !== undefined || folder.model !== options.model || folder.dimensions !== options.dimensions) return undefined;
  const vectors = new Map<string, Float32Array>();
  for (const record of folder.readLog(VECTOR_DATA)) {
    const parsed = parseLogRecord(record, options.dimensions);
    if (parsed === undefined) break;
    parsed.upserts.forEach(([, tag], i) => vectors.set(tag, parsed.rows[i]!));
  }
  return vectors.size === 0 ? undefined : vectors;
}

/** The vectors an index folder of the layout before the manifest kept in its embedding cache, when made with this model. */
function salvageLegacy(folder: IndexFolder, options: VectorStoreOptions): Map<string, Float32Array> | undefined {
  try {
    const cache = new EmbeddingCache({ model: options.model, dimensions: options.dimensions, dir: folder.dir });
    return cache.status === 'loaded' ? cache.entries() : undefined;
  } catch {
    return undefined;
  }
}
