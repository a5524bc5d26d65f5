import { endianness } from 'node:os';
import { SkillSearchError } from '../errors.js';
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
  typedView,
} from './flat-lexical-layout.js';
import { charBit, TermVocabulary } from './term-vocabulary.js';

/** The error for a buffer that is not a sound flat lexical index. */
export function corrupt(detail: string): SkillSearchError {
  return new SkillSearchError('INDEX_CORRUPT', `flat lexical index: ${detail}`);
}

/** The sections of an opened buffer as typed arrays. */
export interface FlatTables {
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
  readonly units: Uint16Array;
  readonly termStarts: Uint32Array;
  readonly lengthStarts: Uint32Array;
  readonly byLength: Uint32Array;
  readonly charSets: Int32Array;
  readonly vocabulary: TermVocabulary;
}

/**
 * Reads and checks the header, the section ends and the (short) length table: O(fields +
 * longest term), whatever the index size. What is read later is bounds-checked where it is
 * read; {@link verifyTables} checks everything.
 */
export function readTables(input: Uint8Array): FlatTables {
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
    lengthStarts: view('lengthStarts') as Uint32Array,
    byLength: view('byLength') as Uint32Array,
    charSets: view('charSets', true) as Int32Array,
  };
  const { lengthStarts } = tables;
  const ends: [string, number, number][] = [
    ['term starts', tables.termStarts[header.terms]!, header.units],
    ['id starts', tables.idStarts[header.documents]!, header.idBytes],
    ['term segments', tables.termSegments[header.terms]!, header.segments],
    ['segment starts', tables.segmentStarts[header.segments]!, header.postings],
    ['length starts', lengthStarts[header.longest + 1]!, header.terms],
  ];
  for (const [what, last, expected] of ends) if (last !== expected) throw corrupt(`${what} end at ${last}, expected ${expected}`);
  // Typo lookups loop over these bounds: checked here so a bad one cannot make a lookup run away.
  ascending('length starts', lengthStarts);
  const vocabulary = new TermVocabulary({ units: tables.units, starts: tables.termStarts, lengthStarts, byLength: tables.byLength, charSets: tables.charSets });
  return { ...tables, vocabulary };
}

function ascending(what: string, values: Uint32Array): void {
  for (let i = 1; i < values.length; i += 1) if (values[i]! < values[i - 1]!) throw corrupt(`${what} go down at ${i}`);
}

/** Throws unless `order` holds each of 0…length − 1 once. */
function permutation(what: string, order: Uint32Array): void {
  const seen = new Uint8Array(order.length);
  for (const value of order) {
    if (value >= order.length || seen[value] === 1) throw corrupt(`${what} is not a permutation (${value})`);
    seen[value] = 1;
  }
}

/**
 * Every structural invariant the reader relies on, O(terms + postings + documents): offsets ascending, the three term orders sound (the sorted order
 * strictly ascending, the prefix ranks a permutation and its inverse), the typo tables matching
 * the terms, every posting naming a stored document and every segment a field. For a pass off
 * the query path (after a write, or in the background), not for every open.
 */
export function verifyTables(tables: FlatTables): void {
  const { header, termStarts, units, sorted, prefixRank, byPrefixRank, lengthStarts, byLength, charSets } = tables;
  ascending('id starts', tables.idStarts);
  ascending('term starts', termStarts);
  ascending('term segments', tables.termSegments);
  ascending('segment starts', tables.segmentStarts);
  permutation('the sorted order', sorted);
  permutation('the prefix order', byPrefixRank);
  for (let rank = 0; rank < byPrefixRank.length; rank += 1) {
    if (prefixRank[byPrefixRank[rank]!] !== rank) throw corrupt(`prefix ranks and their inverse disagree at ${rank}`);
  }
  /** Code-unit order of two stored terms, as JavaScript's `<` orders strings. */
  const compare = (a: number, b: number): number => {
    const aFrom = termStarts[a]!;
    const bFrom = termStarts[b]!;
    const aLength = termStarts[a + 1]! - aFrom;
    const bLength = termStarts[b + 1]! - bFrom;
    for (let i = 0; i < Math.min(aLength, bLength); i += 1) {
      const difference = units[aFrom + i]! - units[bFrom + i]!;
      if (difference !== 0) return difference;
    }
    return aLength - bLength;
  };
  for (let i = 1; i < sorted.length; i += 1) {
    if (!(compare(sorted[i - 1]!, sorted[i]!) < 0)) throw corrupt(`the sorted order is not ascending at ${i}`);
  }
  permutation('the length order', byLength);
  for (let length = 0; length + 1 < lengthStarts.length; length += 1) {
    for (let i = lengthStarts[length]!; i < lengthStarts[length + 1]!; i += 1) {
      const position = byLength[i]!;
      const from = termStarts[position]!;
      let set = 0;
      for (let unit = from; unit < termStarts[position + 1]!; unit += 1) set |= charBit(units[unit]!);
      if (termStarts[position + 1]! - from !== length || charSets[i] !== set) throw corrupt(`the typo table disagrees with term ${position}`);
    }
  }
  for (const field of tables.segmentFields) if (field >= header.fieldCount) throw corrupt(`a segment names field ${field} of ${header.fieldCount}`);
  for (const doc of tables.postingDocs) if (doc >= header.documents) throw corrupt(`a posting names document ${doc} of ${header.documents}`);
}
