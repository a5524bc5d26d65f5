import type { CatalogMembers, MemberRead } from './entry-store.js';

/**
 * A saved catalog's members as its searches read them: each member's record and vector read
 * once, and the ids a search meets together (a graph's hits, the lexical side's candidates)
 * read in one statement rather than one or two per id.
 */
export class StoredMembers {
  /** The catalog's members, for the reads not cached here. */
  readonly catalog: CatalogMembers;
  readonly #dimensions: number;
  /** Read so far by id; null for an id that is no member. */
  readonly #read = new Map<string, MemberRead | null>();

  constructor(members: CatalogMembers, dimensions: number) {
    this.catalog = members;
    this.#dimensions = dimensions;
  }

  /** Reads the members of `ids` not read yet, together. */
  prefetch(ids: Iterable<string>): void {
    const missing = [...new Set(ids)].filter((id) => !this.#read.has(id));
    if (missing.length === 0) return;
    const found = this.catalog.membersOf(missing, this.#dimensions);
    for (const id of missing) this.#read.set(id, found.get(id) ?? null);
  }

  /** Member `id`'s record. */
  record(id: string): string | undefined {
    return this.#get(id)?.record;
  }

  /** Member `id`'s vector key and vector. */
  stored(id: string): MemberRead['stored'] {
    return this.#get(id)?.stored;
  }

  /** The ids of each label's members, in catalog order, in one read; the members themselves are read with them. */
  idsLabelled(labels: readonly number[]): Map<number, readonly string[]> {
    const ids = labels.length === 0 ? new Map<number, readonly string[]>() : this.catalog.idsLabelled(labels);
    this.prefetch([...ids.values()].flat());
    return ids;
  }

  #get(id: string): MemberRead | undefined {
    if (!this.#read.has(id)) this.prefetch([id]);
    return this.#read.get(id) ?? undefined;
  }
}
