import type { Skill } from '../types.js';
import { getOrAdd } from '../util/get-or-add.js';
import { FIELD_COUNT, type LexicalEntry, lexicalEntry, lexicalKey } from './lexical-entry.js';
import type { LexicalMatch, LexicalSearcher, LexicalSearchOptions } from './lexical-query.js';
import type { NearTerm, PostingsSource } from './postings-source.js';
import { Bm25Scorer } from './bm25-scorer.js';
import { TermVocabulary } from './term-vocabulary.js';
import { vocabularyTables } from './vocabulary-tables.js';

export type { GroupedTerms, LexicalMatch, LexicalSearcher, LexicalSearchOptions } from './lexical-query.js';

/** Bump when anything that shapes the built index changes (fields, tokenizer, stemmer, stop words): a catalog saved under another is not used. */
export const LEXICAL_FORMAT_VERSION = 5;

/** Changed terms at most that {@link LexicalIndex.sortedTerms} splices into its array in place; past this, it merges into a new array. */
const MAX_SPLICED_TERMS = 64;

/** The first index of `sorted` whose term is not below `term` (code-unit order). */
function lowerBound(sorted: readonly string[], term: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < term) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One term's postings: per field (by number), document → term frequency, in the order documents were added; undefined where the field has none. */
type MemoryTerm = (Map<number, number> | undefined)[];

/**
 * The live engine's lexical index, in memory (a saved catalog is searched from the store's
 * tables instead), tokenised by `lexicalEntry` as those tables are; `Bm25Scorer` answers queries
 * over it as a {@link PostingsSource}. A removed document's postings are deleted at once, so
 * document frequencies and average lengths are always those of a fresh build.
 *
 * Documents are numbered by slot, a removed document's slot reused by the next one added. Each
 * slot has a catalog position (ties in a search are listed by it): a document added goes after
 * every other, one replaced keeps its place, and {@link arrange} sets them to a catalog's order.
 */
export class LexicalIndex implements LexicalSearcher, PostingsSource {
  readonly #terms = new Map<string, MemoryTerm>();
  /** Slot → external id (undefined: free). */
  readonly #ids: (string | undefined)[] = [];
  /** Slot → the content key ({@link lexicalKey}) of the document there, so an unchanged upsert is a no-op. */
  readonly #keys: (string | undefined)[] = [];
  /** Slot → the distinct terms of the document there, for removal. */
  readonly #docTerms: (readonly string[] | undefined)[] = [];
  readonly #slotOf = new Map<string, number>();
  readonly #free: number[] = [];
  #lengths = new Uint32Array(64 * FIELD_COUNT);
  /** Slot → catalog position. */
  #positions = new Float64Array(64);
  /** Above every position handed out so far. */
  #nextPosition = 0;
  /** Per field, the sum of the present documents' lengths (integers: exact). */
  readonly #totals = new Array<number>(FIELD_COUNT).fill(0);
  /** The terms in code-unit order, or undefined until asked for after a change ({@link #pendingAdded}, {@link #pendingRemoved} hold the changes since). */
  #sorted: string[] | undefined;
  #pendingAdded = new Set<string>();
  #pendingRemoved = new Set<string>();
  #vocabulary: TermVocabulary | undefined;
  /** Searches the index as it was when made: dropped on every change. */
  #search: Bm25Scorer | undefined;

  get size(): number {
    return this.#slotOf.size;
  }

  /** One more than the highest slot ever used. */
  get slots(): number {
    return this.#ids.length;
  }

  has(id: string): boolean {
    return this.#slotOf.has(id);
  }

  /** The indexed ids. */
  ids(): IterableIterator<string> {
    return this.#slotOf.keys();
  }

  /** Adds or replaces a skill (keeping its catalog position); false when the same content is indexed already. `glosses`: English indexed beside a skill in another language. */
  upsert(skill: Skill, glosses = ''): boolean {
    const slot = this.#slotOf.get(skill.id);
    if (slot !== undefined && this.#keys[slot] === lexicalKey(skill, glosses)) return false;
    const position = slot === undefined ? undefined : this.#positions[slot];
    this.remove(skill.id);
    this.add(skill.id, lexicalEntry(skill, glosses), position);
    return true;
  }

  /** Adds document `id` (not present) at catalog `position` (default: after every document so far). */
  add(id: string, entry: LexicalEntry, position = this.#nextPosition): void {
    this.#search = undefined;
    const slot = this.#free.pop() ?? this.#ids.length;
    if ((slot + 1) * FIELD_COUNT > this.#lengths.length) {
      const larger = new Uint32Array(Math.max(2 * this.#lengths.length, (slot + 1) * FIELD_COUNT));
      larger.set(this.#lengths);
      this.#lengths = larger;
    }
    if (slot >= this.#positions.length) {
      const larger = new Float64Array(Math.max(2 * this.#positions.length, slot + 1));
      larger.set(this.#positions);
      this.#positions = larger;
    }
    this.#positions[slot] = position;
    this.#nextPosition = Math.max(this.#nextPosition, position + 1);
    this.#ids[slot] = id;
    this.#keys[slot] = entry.key;
    this.#slotOf.set(id, slot);
    const distinct = new Set<string>();
    entry.terms.forEach((counts, field) => {
      for (const [term, frequency] of counts) {
        const postings = getOrAdd(this.#terms, term, () => {
          this.#termChanged(term, true);
          return new Array<Map<number, number> | undefined>(FIELD_COUNT).fill(undefined);
        });
        postings[field] ??= new Map();
        postings[field]!.set(slot, frequency);
        distinct.add(term);
      }
    });
    this.#docTerms[slot] = [...distinct];
    for (let field = 0; field < FIELD_COUNT; field += 1) {
      const length = entry.lengths[field] ?? 0;
      this.#lengths[slot * FIELD_COUNT + field] = length;
      this.#totals[field] = this.#totals[field]! + length;
    }
  }

  /** Removes document `id` and all its postings; false when it is not present. */
  remove(id: string): boolean {
    const slot = this.#slotOf.get(id);
    if (slot === undefined) return false;
    this.#search = undefined;
    for (const term of this.#docTerms[slot] ?? []) {
      const postings = this.#terms.get(term);
      if (postings === undefined) continue;
      let left = false;
      for (let field = 0; field < FIELD_COUNT; field += 1) {
        const byDoc = postings[field];
        if (byDoc === undefined) continue;
        byDoc.delete(slot);
        if (byDoc.size === 0) postings[field] = undefined;
        else left = true;
      }
      if (!left) {
        this.#terms.delete(term);
        this.#termChanged(term, false);
      }
    }
    for (let field = 0; field < FIELD_COUNT; field += 1) {
      this.#totals[field] = this.#totals[field]! - this.#lengths[slot * FIELD_COUNT + field]!;
      this.#lengths[slot * FIELD_COUNT + field] = 0;
    }
    this.#slotOf.delete(id);
    this.#ids[slot] = undefined;
    this.#keys[slot] = undefined;
    this.#docTerms[slot] = undefined;
    this.#free.push(slot);
    return true;
  }

  /** Sets the catalog order: the documents `ids` lists take the positions 0, 1, … (ids not present are skipped, documents not listed keep theirs). */
  arrange(ids: Iterable<string>): void {
    let moved = false;
    let position = 0;
    for (const id of ids) {
      const slot = this.#slotOf.get(id);
      if (slot === undefined) continue;
      if (this.#positions[slot] !== position) {
        this.#positions[slot] = position;
        moved = true;
      }
      position += 1;
    }
    this.#nextPosition = Math.max(this.#nextPosition, position);
    if (moved) this.#search = undefined;
  }

  /** Catalog positions by slot. */
  get positions(): Float64Array {
    return this.#positions;
  }

  /** Notes that `term` came into the index (`added`) or left it: a change undoes a pending opposite one. */
  #termChanged(term: string, added: boolean): void {
    this.#vocabulary = undefined;
    if (this.#sorted === undefined) return;
    const [opposite, pending] = added ? [this.#pendingRemoved, this.#pendingAdded] : [this.#pendingAdded, this.#pendingRemoved];
    if (!opposite.delete(term)) pending.add(term);
  }

  /**
   * The terms in code-unit order, valid until the next change: sorted once, then a few changed
   * terms are spliced in and out of the same array (a resident server leaves no catalog-sized
   * array behind per edit), a larger batch merged into a new one.
   */
  sortedTerms(): readonly string[] {
    if (this.#sorted === undefined) this.#sorted = [...this.#terms.keys()].sort();
    else if (this.#pendingAdded.size + this.#pendingRemoved.size > MAX_SPLICED_TERMS) this.#sorted = this.#merged(this.#sorted);
    else {
      const sorted = this.#sorted;
      for (const term of this.#pendingRemoved) {
        const at = lowerBound(sorted, term);
        if (sorted[at] === term) sorted.splice(at, 1);
      }
      for (const term of this.#pendingAdded) sorted.splice(lowerBound(sorted, term), 0, term);
    }
    this.#pendingAdded.clear();
    this.#pendingRemoved.clear();
    return this.#sorted;
  }

  /** `sorted` without the pending removed terms and with the pending added ones, as a new array. */
  #merged(sorted: readonly string[]): string[] {
    const removed = this.#pendingRemoved;
    const added = [...this.#pendingAdded].sort();
    const merged: string[] = [];
    let a = 0;
    for (const term of sorted) {
      if (removed.has(term)) continue;
      while (a < added.length && added[a]! < term) merged.push(added[a++]!);
      merged.push(term);
    }
    while (a < added.length) merged.push(added[a++]!);
    return merged;
  }

  exact(term: string): MemoryTerm | undefined {
    return this.#terms.get(term);
  }

  externalId(slot: number): string {
    return this.#ids[slot] ?? '';
  }

  get averageFieldLengths(): number[] {
    const count = this.size;
    return this.#totals.map((total) => (count === 0 ? 0 : total / count));
  }

  *prefixed(prefix: string): Iterable<readonly [string, MemoryTerm]> {
    const sorted = this.sortedTerms();
    for (let i = lowerBound(sorted, prefix); i < sorted.length && sorted[i]!.startsWith(prefix); i += 1) yield [sorted[i]!, this.#terms.get(sorted[i]!)!];
  }

  near(word: string, maxDistance: number): NearTerm[] {
    const vocabulary = this.vocabulary();
    return vocabulary.near(word, maxDistance).map(({ position, distance }) => {
      const term = vocabulary.term(position);
      return { term, handle: this.#terms.get(term)!, distance };
    });
  }

  /** Matches in descending score order; at most `limit`. */
  search(query: string, limit: number, options: LexicalSearchOptions = {}): LexicalMatch[] {
    this.#search ??= new Bm25Scorer(this);
    return this.#search.search(query, limit, options);
  }

  /** Typo lookups over the sorted terms (rebuilt after a change that adds or removes a term). */
  vocabulary(): TermVocabulary {
    this.#vocabulary ??= new TermVocabulary(vocabularyTables(this.sortedTerms()));
    return this.#vocabulary;
  }

  /** Field lengths by `slot · fieldCount + field`. */
  get fieldLengths(): Uint32Array {
    return this.#lengths;
  }
}
