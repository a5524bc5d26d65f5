import { endianness } from 'node:os';
import { SkillSearchError } from '../errors.js';
import { Bm25Scorer, type QueryTerm, type ScoredDocument, type SearchedField } from './bm25-scorer.js';
import {
  FLAT_LEXICAL_MAGIC,
  FLAT_LEXICAL_VERSION,
  HEADER,
  HEADER_BYTES,
  HEADER_WORDS,
  type HeaderWords,
  type Layout,
  layoutOf,
  type SectionName,
} from './flat-lexical-layout.js';
import type { LexicalIndex } from './lexical-index.js';
import { type LexicalMatch, type LexicalSearchOptions, searchLexical } from './lexical-query.js';
import type { RadixNode, TermPostings } from './minisearch-internals.js';
import { treeTerms } from './minisearch-postings.js';
import type { FieldPostings, NearTerm, PostingsSource } from './postings-source.js';
import { TermVocabulary, vocabularyTables } from './term-vocabulary.js';

/**
 * A lexical index as one read-only buffer, for a process that only searches (a hook without a
 * server): {@link encodeFlatLexical} writes it from a {@link LexicalIndex}, and
 * {@link FlatLexicalIndex.open} searches it in place, answering exactly like
 * `LexicalIndex.search` (same ids, order, scores to the last bit, coverage and explained
 * fields; `test/lexical/flat-lexical.test.ts`), through the same {@link Bm25Scorer}.
 *
 * Opening reads the header and builds typed-array views: no term or posting is visited, and a
 * term's postings are read when a query first reaches it. Layout: `flat-lexical-layout.ts`.
 */

function corrupt(detail: string): SkillSearchError {
  return new SkillSearchError('INDEX_CORRUPT', `flat lexical index: ${detail}`);
}

/** The order MiniSearch's `atPrefix` iterates a subtree in: depth first, each node's keys last to first. */
function prefixIterationOrder(tree: RadixNode): string[] {
  const order: string[] = [];
  const walk = (node: RadixNode, prefix: string): void => {
    const keys = Array.from(node.keys());
    for (let i = keys.length - 1; i >= 0; i -= 1) {
      const key = keys[i]!;
      if (key === '') order.push(prefix);
      else walk(node.get(key) as RadixNode, prefix + key);
    }
  };
  walk(tree, '');
  return order;
}

const widthFor = (max: number): 1 | 2 | 4 => (max <= 0xff ? 1 : max <= 0xffff ? 2 : 4);

/**
 * The index as a flat buffer (see the module comment). Postings of discarded documents are left
 * out (`compactedInternals` has none). Throws when this MiniSearch keeps its index differently
 * or a value does not fit the format (a bug, not bad input).
 */
export function encodeFlatLexical(index: LexicalIndex): Buffer {
  const internals = index.compactedInternals();
  if (internals === undefined) throw new SkillSearchError('INTERNAL', 'flat lexical index: this MiniSearch keeps its index differently');
  const fieldCount = Math.max(0, ...Object.values(internals._fieldIds)) + 1;
  const fieldNames: string[] = [];
  for (const [name, id] of Object.entries(internals._fieldIds)) fieldNames[id] = name;
  if (fieldNames.length !== fieldCount || fieldNames.some((name) => name === undefined)) {
    throw new SkillSearchError('INTERNAL', `flat lexical index: field ids are not 0…${fieldCount - 1}: ${JSON.stringify(internals._fieldIds)}`);
  }

  // Documents, renumbered densely in short-id order (scores and ties never depend on the numbers).
  const shortIds = [...internals._documentIds.keys()].sort((a, b) => a - b);
  const documents = shortIds.length;
  const dense = new Int32Array(internals._nextId).fill(-1);
  shortIds.forEach((shortId, doc) => {
    dense[shortId] = doc;
  });
  const idChunks = shortIds.map((shortId) => {
    const id = internals._documentIds.get(shortId);
    if (typeof id !== 'string') throw new SkillSearchError('INTERNAL', `flat lexical index: document id ${String(id)} is not a string`);
    return Buffer.from(id, 'utf8');
  });
  const idStarts = new Uint32Array(documents + 1);
  idChunks.forEach((chunk, doc) => {
    idStarts[doc + 1] = idStarts[doc]! + chunk.length;
  });
  const fieldLengths = new Uint32Array(documents * fieldCount);
  shortIds.forEach((shortId, doc) => {
    const lengths = internals._fieldLength.get(shortId) ?? [];
    for (let field = 0; field < fieldCount; field += 1) fieldLengths[doc * fieldCount + field] = lengths[field] ?? 0;
  });
  const averageFieldLengths = Float64Array.from({ length: fieldCount }, (_, field) => internals._avgFieldLength[field] ?? 0);

  // Terms in depth-first order (MiniSearch's fuzzyGet order), with the other two orders.
  const { terms, postings } = treeTerms(internals._index._tree);
  const termCount = terms.length;
  const positionOf = new Map(terms.map((term, position) => [term, position]));
  for (const term of terms) {
    if (Buffer.from(term, 'utf16le').toString('utf16le') !== term)
      throw new SkillSearchError('INTERNAL', `flat lexical index: term ${JSON.stringify(term)} is not valid UTF-16`);
  }
  const sorted = Uint32Array.from(terms.keys()).sort((a, b) => (terms[a]! < terms[b]! ? -1 : terms[a]! > terms[b]! ? 1 : 0));
  const prefixRank = new Uint32Array(termCount);
  const byPrefixRank = new Uint32Array(termCount);
  prefixIterationOrder(internals._index._tree).forEach((term, rank) => {
    const position = positionOf.get(term)!;
    prefixRank[position] = rank;
    byPrefixRank[rank] = position;
  });
  const vocabulary = vocabularyTables(terms);

  // Postings: per term, per field that has any (in field order), the live documents in MiniSearch's order.
  const termSegments = new Uint32Array(termCount + 1);
  const segmentFields: number[] = [];
  const segmentStarts: number[] = [0];
  const postingDocs: number[] = [];
  const postingFrequencies: number[] = [];
  postings.forEach((byField: TermPostings, position) => {
    for (let field = 0; field < fieldCount; field += 1) {
      const frequencies = byField.get(field);
      if (frequencies === undefined) continue;
      for (const [shortId, frequency] of frequencies) {
        const doc = dense[shortId] ?? -1;
        if (doc < 0) continue;
        if (!Number.isInteger(frequency) || frequency < 0 || frequency > 0xffffffff) {
          throw new SkillSearchError('INTERNAL', `flat lexical index: term frequency ${frequency} of ${JSON.stringify(terms[position])}`);
        }
        postingDocs.push(doc);
        postingFrequencies.push(frequency);
      }
      segmentFields.push(field);
      segmentStarts.push(postingDocs.length);
    }
    termSegments[position + 1] = segmentFields.length;
  });

  const fieldNameBytes = Buffer.from(JSON.stringify(fieldNames), 'utf8');
  const header: HeaderWords = {
    magic: FLAT_LEXICAL_MAGIC,
    version: FLAT_LEXICAL_VERSION,
    byteLength: 0,
    documentCount: internals._documentCount,
    documents,
    fieldCount,
    terms: termCount,
    units: vocabulary.units.length,
    longest: vocabulary.lengthStarts.length - 2,
    segments: segmentFields.length,
    postings: postingDocs.length,
    docWidth: documents <= 0x10000 ? 2 : 4,
    frequencyWidth: widthFor(maxOf(postingFrequencies)),
    idBytes: idStarts[documents]!,
    fieldNameBytes: fieldNameBytes.length,
  };
  const layout = layoutOf(header);
  const out = Buffer.alloc(layout.byteLength);
  const words = new Uint32Array(out.buffer, out.byteOffset, HEADER_WORDS);
  for (const [name, position] of Object.entries(HEADER)) words[position] = name === 'byteLength' ? layout.byteLength : header[name as keyof typeof HEADER];
  const put = (name: SectionName, data: ArrayLike<number> | Uint8Array): void => {
    const { offset, width, length } = layout.sections[name];
    if (data.length !== length) throw new SkillSearchError('INTERNAL', `flat lexical index: section ${name} has ${data.length} elements, layout ${length}`);
    typedView(out, offset, width, length, name === 'charSets' || name === 'averageFieldLengths').set(data);
  };
  put('averageFieldLengths', averageFieldLengths);
  put('fieldLengths', fieldLengths);
  put('idStarts', idStarts);
  put('termStarts', vocabulary.starts);
  put('sorted', sorted);
  put('prefixRank', prefixRank);
  put('byPrefixRank', byPrefixRank);
  put('lengthStarts', vocabulary.lengthStarts);
  put('byLength', vocabulary.byLength);
  put('charSets', vocabulary.charSets);
  put('termSegments', termSegments);
  put('segmentStarts', segmentStarts);
  put('postingDocs', postingDocs);
  put('units', vocabulary.units);
  put('postingFrequencies', postingFrequencies);
  put('segmentFields', segmentFields);
  put('ids', Buffer.concat(idChunks));
  put('fieldNames', fieldNameBytes);
  return out;
}

function maxOf(values: readonly number[]): number {
  let max = 0;
  for (const value of values) if (value > max) max = value;
  return max;
}

type View = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;

/** A view of `length` elements of `width` bytes at `offset` (signed for 4-byte `signed`, float for 8-byte). */
function typedView(bytes: Uint8Array, offset: number, width: 1 | 2 | 4 | 8, length: number, signed = false): View {
  const at = bytes.byteOffset + offset;
  switch (width) {
    case 1:
      return new Uint8Array(bytes.buffer, at, length);
    case 2:
      return new Uint16Array(bytes.buffer, at, length);
    case 4:
      return signed ? new Int32Array(bytes.buffer, at, length) : new Uint32Array(bytes.buffer, at, length);
    case 8:
      return new Float64Array(bytes.buffer, at, length);
  }
}

/** The sections of an opened buffer as typed arrays. */
interface FlatTables {
  readonly header: HeaderWords;
  readonly averageFieldLengths: Float64Array;
  readonly fieldLengths: Uint32Array;
  readonly idStarts: Uint32Array;
  readonly sorted: Uint32Array;
  readonly prefixRank: Uint32Array;
  readonly byPrefixRank: Uint32Array;
  readonly termSegments: Uint32Array;
  readonly segmentStarts: Uint32Array;
  readonly postingDocs: Uint16Array | Uint32Array;
  readonly postingFrequencies: Uint8Array | Uint16Array | Uint32Array;
  readonly segmentFields: Uint8Array;
  readonly ids: Buffer;
  readonly fieldNames: readonly string[];
  readonly vocabulary: TermVocabulary;
  readonly units: Uint16Array;
  readonly termStarts: Uint32Array;
}

/** Reads and checks the header and the section ends: O(fields), whatever the index size. */
function readTables(input: Uint8Array): FlatTables {
  if (endianness() !== 'LE') throw corrupt('this machine is big-endian; the format is little-endian');
  if (input.byteLength < HEADER_BYTES) throw corrupt(`${input.byteLength} bytes is shorter than the ${HEADER_BYTES}-byte header`);
  // Typed-array views need aligned offsets: a buffer from a pool may not be (one copy, then views).
  const bytes = input.byteOffset % 8 === 0 ? input : new Uint8Array(input);
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, HEADER_WORDS);
  const header = Object.fromEntries(Object.entries(HEADER).map(([name, position]) => [name, words[position]!])) as HeaderWords;
  if (header.magic !== FLAT_LEXICAL_MAGIC) throw corrupt('not a flat lexical index (bad magic)');
  if (header.version !== FLAT_LEXICAL_VERSION) throw corrupt(`format version ${header.version}, this build reads ${FLAT_LEXICAL_VERSION}`);
  if (![2, 4].includes(header.docWidth) || ![1, 2, 4].includes(header.frequencyWidth)) {
    throw corrupt(`bad widths (documents ${header.docWidth}, frequencies ${header.frequencyWidth})`);
  }
  if (header.fieldCount > 0xff || header.documentCount < header.documents)
    throw corrupt(`bad counts (fields ${header.fieldCount}, documents ${header.documents} of ${header.documentCount})`);
  const layout: Layout = layoutOf(header);
  if (header.byteLength !== layout.byteLength || bytes.byteLength !== layout.byteLength) {
    throw corrupt(`${bytes.byteLength} bytes, header says ${header.byteLength}, counts imply ${layout.byteLength} (truncated or corrupt)`);
  }
  const view = (name: SectionName, signed = false) => {
    const { offset, width, length } = layout.sections[name];
    return typedView(bytes, offset, width, length, signed);
  };
  const names = layout.sections.fieldNames;
  let fieldNames: unknown;
  try {
    fieldNames = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + names.offset, names.length).toString('utf8'));
  } catch {
    fieldNames = undefined;
  }
  if (!Array.isArray(fieldNames) || fieldNames.length !== header.fieldCount || !fieldNames.every((name) => typeof name === 'string')) {
    throw corrupt('the field names are unreadable');
  }
  const ids = layout.sections.ids;
  const tables = {
    header,
    averageFieldLengths: view('averageFieldLengths') as Float64Array,
    fieldLengths: view('fieldLengths') as Uint32Array,
    idStarts: view('idStarts') as Uint32Array,
    sorted: view('sorted') as Uint32Array,
    prefixRank: view('prefixRank') as Uint32Array,
    byPrefixRank: view('byPrefixRank') as Uint32Array,
    termSegments: view('termSegments') as Uint32Array,
    segmentStarts: view('segmentStarts') as Uint32Array,
    postingDocs: view('postingDocs') as Uint16Array | Uint32Array,
    postingFrequencies: view('postingFrequencies') as Uint8Array | Uint16Array | Uint32Array,
    segmentFields: view('segmentFields') as Uint8Array,
    ids: Buffer.from(bytes.buffer, bytes.byteOffset + ids.offset, ids.length),
    fieldNames: fieldNames as string[],
    units: view('units') as Uint16Array,
    termStarts: view('termStarts') as Uint32Array,
  };
  const lengthStarts = view('lengthStarts') as Uint32Array;
  const ends: [string, number, number][] = [
    ['term starts', tables.termStarts[header.terms]!, header.units],
    ['id starts', tables.idStarts[header.documents]!, header.idBytes],
    ['term segments', tables.termSegments[header.terms]!, header.segments],
    ['segment starts', tables.segmentStarts[header.segments]!, header.postings],
    ['length starts', lengthStarts[header.longest + 1]!, header.terms],
  ];
  for (const [what, last, expected] of ends) if (last !== expected) throw corrupt(`${what} end at ${last}, expected ${expected}`);
  const vocabulary = new TermVocabulary({
    units: tables.units,
    starts: tables.termStarts,
    lengthStarts,
    byLength: view('byLength') as Uint32Array,
    charSets: view('charSets', true) as Int32Array,
  });
  return { ...tables, vocabulary };
}

/** One term's postings in one field, viewed in place. */
class FlatFieldPostings implements FieldPostings {
  readonly #docs: Uint16Array | Uint32Array;
  readonly #frequencies: Uint8Array | Uint16Array | Uint32Array;
  readonly #from: number;
  readonly #to: number;
  readonly #documents: number;

  constructor(tables: FlatTables, from: number, to: number) {
    this.#docs = tables.postingDocs;
    this.#frequencies = tables.postingFrequencies;
    this.#from = from;
    this.#to = to;
    this.#documents = tables.header.documents;
  }

  get size(): number {
    return this.#to - this.#from;
  }

  forEach(visit: (frequency: number, doc: number) => void): void {
    const docs = this.#docs;
    const frequencies = this.#frequencies;
    for (let i = this.#from; i < this.#to; i += 1) {
      const doc = docs[i]!;
      if (doc >= this.#documents) throw corrupt(`posting ${i} names document ${doc} of ${this.#documents}`);
      visit(frequencies[i]!, doc);
    }
  }

  has(doc: number): boolean {
    return this.#docs.subarray(this.#from, this.#to).includes(doc);
  }
}

/** The flat tables as a {@link PostingsSource}: a term's handle is its number. */
class FlatPostings implements PostingsSource<number> {
  readonly #tables: FlatTables;
  readonly #fieldIds: ReadonlyMap<string, number>;
  /** {@link FieldPostings} by `term · fields + field`, so the scorer's caches see one object per pair. */
  readonly #postings = new Map<number, FieldPostings | undefined>();
  readonly #externalIds = new Map<number, string>();
  readonly documentCount: number;
  readonly slots: number;
  readonly fieldCount: number;

  constructor(tables: FlatTables) {
    this.#tables = tables;
    this.#fieldIds = new Map(tables.fieldNames.map((name, id) => [name, id]));
    this.documentCount = tables.header.documentCount;
    this.slots = tables.header.documents;
    this.fieldCount = tables.header.fieldCount;
  }

  fieldId(name: string): number | undefined {
    return this.#fieldIds.get(name);
  }

  averageFieldLength(field: number): number {
    return this.#tables.averageFieldLengths[field] ?? 0;
  }

  forEachFieldLength(visit: (doc: number, field: number, length: number) => void): void {
    const { fieldLengths } = this.#tables;
    const fieldCount = this.fieldCount;
    for (let doc = 0; doc < this.slots; doc += 1) {
      for (let field = 0; field < fieldCount; field += 1) visit(doc, field, fieldLengths[doc * fieldCount + field]!);
    }
  }

  isLive(): boolean {
    return true;
  }

  externalId(doc: number): string {
    let id = this.#externalIds.get(doc);
    if (id === undefined) {
      const { idStarts, ids } = this.#tables;
      const from = idStarts[doc]!;
      const to = idStarts[doc + 1]!;
      if (!(from <= to && to <= ids.length)) throw corrupt(`document ${doc}'s id is out of bounds`);
      id = ids.toString('utf8', from, to);
      this.#externalIds.set(doc, id);
    }
    return id;
  }

  /** Term `position` as a string. */
  term(position: number): string {
    const { units, termStarts } = this.#tables;
    const from = termStarts[position]!;
    const to = termStarts[position + 1]!;
    if (!(from <= to && to <= units.length)) throw corrupt(`term ${position} is out of bounds`);
    return String.fromCharCode(...units.subarray(from, to));
  }

  /** Compares `word` with term `position` in code-unit order (JavaScript's `<` on strings); `prefixOnly` counts a term that `word` starts as equal. */
  #compare(word: string, position: number, prefixOnly: boolean): number {
    const { units, termStarts } = this.#tables;
    const from = termStarts[position]!;
    const length = termStarts[position + 1]! - from;
    const shared = Math.min(word.length, length);
    for (let i = 0; i < shared; i += 1) {
      const difference = word.charCodeAt(i) - units[from + i]!;
      if (difference !== 0) return difference;
    }
    return prefixOnly && word.length <= length ? 0 : word.length - length;
  }

  /** The first sorted position whose term does not compare below `word` (`upper`: above it), by {@link #compare}. */
  #lowerBound(word: string, prefixOnly: boolean, upper: boolean): number {
    const { sorted } = this.#tables;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const order = this.#compare(word, sorted[mid]!, prefixOnly);
      if (order > 0 || (upper && order === 0)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  exact(term: string): number | undefined {
    const { sorted } = this.#tables;
    const at = this.#lowerBound(term, false, false);
    return at < sorted.length && this.#compare(term, sorted[at]!, false) === 0 ? sorted[at] : undefined;
  }

  *prefixed(prefix: string): Iterable<readonly [string, number]> {
    const { sorted, prefixRank, byPrefixRank } = this.#tables;
    const from = this.#lowerBound(prefix, true, false);
    const to = this.#lowerBound(prefix, true, true);
    if (from >= to) return;
    // A radix tree keeps the terms under one prefix in one subtree, so their ranks are consecutive.
    let first = Number.POSITIVE_INFINITY;
    let last = -1;
    for (let i = from; i < to; i += 1) {
      const rank = prefixRank[sorted[i]!]!;
      if (rank < first) first = rank;
      if (rank > last) last = rank;
    }
    const count = to - from;
    if (last - first + 1 === count) {
      for (let rank = first; rank <= last; rank += 1) {
        const position = byPrefixRank[rank]!;
        yield [this.term(position), position];
      }
      return;
    }
    const positions = Array.from(sorted.subarray(from, to)).sort((a, b) => prefixRank[a]! - prefixRank[b]!);
    for (const position of positions) yield [this.term(position), position];
  }

  near(word: string, maxDistance: number): NearTerm<number>[] {
    return this.#tables.vocabulary.near(word, maxDistance).map(({ position, distance }) => ({ term: this.term(position), handle: position, distance }));
  }

  postings(term: number, field: number): FieldPostings | undefined {
    const key = term * this.fieldCount + field;
    if (this.#postings.has(key)) return this.#postings.get(key);
    const { termSegments, segmentFields, segmentStarts, header } = this.#tables;
    const first = termSegments[term]!;
    const end = termSegments[term + 1]!;
    if (!(first <= end && end <= header.segments)) throw corrupt(`term ${term}'s segments are out of bounds`);
    let found: FieldPostings | undefined;
    for (let segment = first; segment < end; segment += 1) {
      if (segmentFields[segment] !== field) continue;
      const from = segmentStarts[segment]!;
      const to = segmentStarts[segment + 1]!;
      if (!(from <= to && to <= header.postings)) throw corrupt(`segment ${segment}'s postings are out of bounds`);
      found = new FlatFieldPostings(this.#tables, from, to);
      break;
    }
    this.#postings.set(key, found);
    return found;
  }
}

/**
 * A lexical index opened from {@link encodeFlatLexical}'s buffer: read-only, searched in place.
 * The buffer must not change while the index is in use.
 */
export class FlatLexicalIndex {
  readonly #source: FlatPostings;
  #scorer: Bm25Scorer<number> | undefined;
  #ids: Map<string, number> | undefined;

  private constructor(source: FlatPostings) {
    this.#source = source;
  }

  /**
   * Checks the header and the section bounds (not every term or posting) and views the buffer
   * in place. Throws a `SkillSearchError` (`INDEX_CORRUPT`) naming the problem when the buffer
   * is not one, is truncated, or is of another format version.
   */
  static open(bytes: Uint8Array): FlatLexicalIndex {
    return new FlatLexicalIndex(new FlatPostings(readTables(bytes)));
  }

  /** Documents indexed. */
  get size(): number {
    return this.#source.slots;
  }

  /** True when `id` is indexed; the first call reads every id (O(documents)). */
  has(id: string): boolean {
    if (this.#ids === undefined) {
      this.#ids = new Map();
      for (let doc = 0; doc < this.#source.slots; doc += 1) this.#ids.set(this.#source.externalId(doc), doc);
    }
    return this.#ids.has(id);
  }

  /** What `LexicalIndex.search` answers over the index this buffer was written from. */
  search(query: string, limit: number, options: LexicalSearchOptions = {}): LexicalMatch[] {
    return searchLexical(
      {
        size: this.size,
        isKnown: (term) => this.#source.exact(term) !== undefined,
        score: (_text, terms, fields, max, explain) => this.#score(terms, fields, max, explain),
      },
      query,
      limit,
      options,
    );
  }

  #score(terms: readonly QueryTerm[], fields: readonly SearchedField[], limit: number, explain: boolean): ScoredDocument[] {
    this.#scorer ??= new Bm25Scorer(this.#source);
    return this.#scorer.search(terms, fields, limit, explain);
  }
}
