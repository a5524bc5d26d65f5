/**
 * The byte layout of a flat lexical index (`flat-lexical.ts`), in one place for the writer and
 * the reader: a header of 32-bit words, then sections in a fixed order, each starting on an
 * 8-byte boundary so a typed array can view it in place. Every section's size follows from the
 * header's counts, so the layout needs no table of offsets and a file whose length differs from
 * the one its header implies is rejected before anything is read.
 *
 * Little-endian throughout (the reader refuses a big-endian machine rather than swap).
 */

/** `SSLX` read as a little-endian 32-bit word. */
export const FLAT_LEXICAL_MAGIC = 0x584c5353;
/**
 * Bump on any change to the layout or to what a section means. The terms inside also depend on
 * the tokenizer (`LEXICAL_FORMAT_VERSION`): whoever stores a buffer keys it by both.
 */
export const FLAT_LEXICAL_VERSION = 2;

/** The header's words, by position. */
export const HEADER = {
  magic: 0,
  version: 1,
  byteLength: 2,
  /** The document count (the inverse document frequency's N). */
  documentCount: 3,
  /** Documents stored, numbered 0…documents − 1 in the index's id order. */
  documents: 4,
  fieldCount: 5,
  terms: 6,
  /** UTF-16 code units of all terms together. */
  units: 7,
  /** The longest term's length in code units. */
  longest: 8,
  /** (term, field) pairs that have postings. */
  segments: 9,
  postings: 10,
  /** Bytes per document number in the postings: 2 or 4. */
  docWidth: 11,
  /** Bytes per term frequency: 1, 2 or 4. */
  frequencyWidth: 12,
  /** UTF-8 bytes of all external ids together. */
  idBytes: 13,
  /** UTF-8 bytes of the JSON list of field names (by field id). */
  fieldNameBytes: 14,
} as const;
export const HEADER_WORDS = 16;
export const HEADER_BYTES = HEADER_WORDS * 4;

export type HeaderWords = Readonly<Record<keyof typeof HEADER, number>>;

type Width = 1 | 2 | 4 | 8;

/** The sections in file order: each one's element width and element count. */
function sectionList(h: HeaderWords): readonly (readonly [SectionName, Width, number])[] {
  return [
    ['averageFieldLengths', 8, h.fieldCount],
    ['fieldLengths', 4, h.documents * h.fieldCount],
    ['idStarts', 4, h.documents + 1],
    ['termStarts', 4, h.terms + 1],
    ['sorted', 4, h.terms],
    ['prefixRank', 4, h.terms],
    ['byPrefixRank', 4, h.terms],
    ['lengthStarts', 4, h.longest + 2],
    ['byLength', 4, h.terms],
    ['charSets', 4, h.terms],
    ['termSegments', 4, h.terms + 1],
    ['segmentStarts', 4, h.segments + 1],
    ['postingDocs', h.docWidth as Width, h.postings],
    ['units', 2, h.units],
    ['postingFrequencies', h.frequencyWidth as Width, h.postings],
    ['segmentFields', 1, h.segments],
    ['ids', 1, h.idBytes],
    ['fieldNames', 1, h.fieldNameBytes],
  ];
}

/**
 * What each section holds (terms are numbered in code-unit order, the order the index's prefix
 * and typo lookups list them; documents in the index's id order):
 * - `averageFieldLengths` (float64 per field), `fieldLengths` (per document, per field);
 * - `idStarts` + `ids`: document `d`'s external id is `ids[idStarts[d] .. idStarts[d + 1])`, UTF-8;
 * - `termStarts` + `units`: term `t` is `units[termStarts[t] .. termStarts[t + 1])`;
 * - `sorted`: the terms in code-unit order (binary search, prefix ranges);
 * - `prefixRank` / `byPrefixRank`: each term's position in the order prefix lookups list
 *   them, and its inverse (both the identity since version 2: terms are stored sorted);
 * - `lengthStarts`, `byLength`, `charSets`: the typo lookup tables (`VocabularyTables`);
 * - `termSegments`: term `t`'s (field, postings) segments are `termSegments[t] .. termSegments[t + 1]`,
 *   each with its field in `segmentFields` and its postings at `segmentStarts[s] .. segmentStarts[s + 1]`;
 * - `postingDocs`, `postingFrequencies`: document and term frequency per posting, in the index's order.
 */
export type SectionName =
  | 'averageFieldLengths'
  | 'fieldLengths'
  | 'idStarts'
  | 'termStarts'
  | 'sorted'
  | 'prefixRank'
  | 'byPrefixRank'
  | 'lengthStarts'
  | 'byLength'
  | 'charSets'
  | 'termSegments'
  | 'segmentStarts'
  | 'postingDocs'
  | 'units'
  | 'postingFrequencies'
  | 'segmentFields'
  | 'ids'
  | 'fieldNames';

export interface Section {
  /** Byte offset from the start of the file (a multiple of 8). */
  readonly offset: number;
  /** Elements. */
  readonly length: number;
  readonly width: Width;
}

export interface Layout {
  readonly sections: Readonly<Record<SectionName, Section>>;
  readonly byteLength: number;
}

const align8 = (n: number): number => Math.ceil(n / 8) * 8;

/** Where every section of a file with these header words sits, and the file's length. */
export function layoutOf(header: HeaderWords): Layout {
  let at = HEADER_BYTES;
  const sections = {} as Record<SectionName, Section>;
  for (const [name, width, length] of sectionList(header)) {
    sections[name] = { offset: at, length, width };
    at = align8(at + width * length);
  }
  return { sections, byteLength: at };
}

export type View = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;

/** A view of `length` elements of `width` bytes at `offset` (signed for 4-byte `signed`, float for 8-byte). */
export function typedView(bytes: Uint8Array, offset: number, width: 1 | 2 | 4 | 8, length: number, signed = false): View {
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
