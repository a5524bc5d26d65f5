/** {@link VocabularyTables} as bytes and back, checked on the way in (the store keeps them as one row). */
import { tablesOfUnits, type VocabularyTables } from './vocabulary-tables.js';

/** The first word of an encoded {@link VocabularyTables}: its format (a blob of another is not read). */
const TABLES_FORMAT = 0x76_6f_63_01;
const HEADER_WORDS = 4;

/**
 * {@link VocabularyTables} as bytes in the machine's order (callers check it is little-endian): a
 * header of four uint32s (format, terms, code units, `lengthStarts` entries), then `units` (padded
 * to whole uint32s), `starts`, `lengthStarts`, `byLength` and `charSets`.
 */
export function encodeVocabularyTables({ units, starts, lengthStarts, byLength, charSets }: VocabularyTables): Uint8Array {
  const terms = starts.length - 1;
  const unitWords = Math.ceil(units.length / 2);
  const words = new Uint32Array(HEADER_WORDS + unitWords + starts.length + lengthStarts.length + 2 * terms);
  words.set([TABLES_FORMAT, terms, units.length, lengthStarts.length]);
  let at = HEADER_WORDS;
  new Uint16Array(words.buffer, at * 4, units.length).set(units);
  at += unitWords;
  for (const array of [starts, lengthStarts, byLength, new Uint32Array(charSets.buffer, charSets.byteOffset, charSets.length)]) {
    words.set(array, at);
    at += array.length;
  }
  return new Uint8Array(words.buffer);
}

/** The tables {@link encodeVocabularyTables} wrote, or undefined when `bytes` are not exactly what `vocabularyTables` would build from the stored terms. */
export function decodeVocabularyTables(bytes: Uint8Array): VocabularyTables | undefined {
  if (bytes.byteLength < HEADER_WORDS * 4 || bytes.byteLength % 4 !== 0) return undefined;
  // Copied: a blob's bytes need not be aligned for uint32 views.
  const words = new Uint32Array(bytes.byteLength / 4);
  new Uint8Array(words.buffer).set(bytes);
  const [format, terms, unitCount, lengthStartCount] = words as unknown as [number, number, number, number];
  const unitWords = Math.ceil(unitCount / 2);
  if (format !== TABLES_FORMAT || words.length !== HEADER_WORDS + unitWords + (terms + 1) + lengthStartCount + 2 * terms) return undefined;
  let at = HEADER_WORDS;
  const units = new Uint16Array(words.buffer, at * 4, unitCount);
  at += unitWords;
  const take = (length: number): Uint32Array => {
    const array = words.subarray(at, at + length);
    at += length;
    return array;
  };
  const starts = take(terms + 1);
  const lengthStarts = take(lengthStartCount);
  const byLength = take(terms);
  const charSets = new Int32Array(words.buffer, at * 4, terms);
  if (starts[0] !== 0 || starts[terms] !== unitCount) return undefined;
  for (let position = 0; position < terms; position += 1) if (starts[position + 1]! < starts[position]!) return undefined;
  // The rest must be what `vocabularyTables` builds from the stored terms.
  const built = tablesOfUnits(units, starts);
  const same = (a: Uint32Array | Int32Array, b: Uint32Array | Int32Array) =>
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  return same(built.lengthStarts, lengthStarts) && same(built.byLength, byLength) && same(built.charSets, charSets) ? built : undefined;
}
