/**
 * Writes a `LexicalIndex` as a flat lexical index (layout: `flat-lexical-layout.ts`; reader:
 * `flat-lexical.ts`). O(terms + postings), once per save.
 */
import { SkillSearchError } from '../errors.js';
import {
  FLAT_LEXICAL_MAGIC,
  FLAT_LEXICAL_VERSION,
  HEADER,
  HEADER_WORDS,
  type HeaderWords,
  layoutOf,
  type SectionName,
  typedView,
} from './flat-lexical-layout.js';
import type { LexicalIndex } from './lexical-index.js';
import { FIELD_COUNT, INDEXED_FIELDS } from './lexical-entry.js';
import { vocabularyTables } from './term-vocabulary.js';

const widthFor = (max: number): 1 | 2 | 4 => (max <= 0xff ? 1 : max <= 0xffff ? 2 : 4);

export interface EncodeFlatLexicalOptions {
  /**
   * Bytes per document number in the postings. 2 holds up to 65,536 documents; 4 any number
   * (for more documents, 4 is used whatever this says).
   * @default 2 when the documents fit, else 4
   */
  readonly documentWidth?: 2 | 4;
}

/**
 * The index as a flat buffer (see the module comment): documents numbered in the index's id
 * order, terms in code-unit order (which is also the order its prefix and typo lookups list
 * them), postings in the index's order. Throws when a value does not fit the format (a bug,
 * not bad input).
 */
export function encodeFlatLexical(index: LexicalIndex, options: EncodeFlatLexicalOptions = {}): Buffer {
  const source = index.postings;
  const fieldCount = FIELD_COUNT;
  const fieldNames: string[] = [...INDEXED_FIELDS];

  // Documents, numbered densely in id order (scores and ties never depend on the numbers).
  const slots = [...index.ids()].map((id) => source.slotOf(id)!);
  const documents = slots.length;
  const dense = new Map<number, number>(slots.map((slot, doc) => [slot, doc]));
  const idChunks = [...index.ids()].map((id) => Buffer.from(id, 'utf8'));
  const idStarts = new Uint32Array(documents + 1);
  idChunks.forEach((chunk, doc) => {
    idStarts[doc + 1] = idStarts[doc]! + chunk.length;
  });
  const fieldLengths = new Uint32Array(documents * fieldCount);
  slots.forEach((slot, doc) => {
    for (let field = 0; field < fieldCount; field += 1) fieldLengths[doc * fieldCount + field] = source.lengthAt(slot, field);
  });
  const averageFieldLengths = Float64Array.from(source.averageFieldLengths());

  // Terms in code-unit order: the sorted order, the prefix order and the typo order all at once.
  const terms = source.sortedTerms();
  const termCount = terms.length;
  const identity = Uint32Array.from(terms.keys());
  const vocabulary = vocabularyTables(terms);

  // Postings: per term, per field that has any (in field order), the documents in the index's order.
  let segmentCount = 0;
  let postingCount = 0;
  for (const term of terms) {
    for (const frequencies of source.term(term) ?? []) {
      if (frequencies === undefined) continue;
      segmentCount += 1;
      postingCount += frequencies.size;
    }
  }
  const termSegments = new Uint32Array(termCount + 1);
  const segmentFields = new Uint8Array(segmentCount);
  const segmentStarts = new Uint32Array(segmentCount + 1);
  const postingDocs = new Uint32Array(postingCount);
  const postingFrequencies = new Uint32Array(postingCount);
  let segment = 0;
  let posting = 0;
  terms.forEach((term, position) => {
    const byField = source.term(term) ?? [];
    for (let field = 0; field < fieldCount; field += 1) {
      const frequencies = byField[field];
      if (frequencies === undefined) continue;
      frequencies.forEach((frequency, slot) => {
        const doc = dense.get(slot);
        if (doc === undefined) throw new SkillSearchError('INTERNAL', `flat lexical index: a posting of ${JSON.stringify(term)} names free slot ${slot}`);
        if (!Number.isInteger(frequency) || frequency < 0 || frequency > 0xffffffff) {
          throw new SkillSearchError('INTERNAL', `flat lexical index: term frequency ${frequency} of ${JSON.stringify(term)}`);
        }
        postingDocs[posting] = doc;
        postingFrequencies[posting] = frequency;
        posting += 1;
      });
      segmentFields[segment] = field;
      segment += 1;
      segmentStarts[segment] = posting;
    }
    termSegments[position + 1] = segment;
  });

  const fieldNameBytes = Buffer.from(JSON.stringify(fieldNames), 'utf8');
  const header: HeaderWords = {
    magic: FLAT_LEXICAL_MAGIC,
    version: FLAT_LEXICAL_VERSION,
    byteLength: 0,
    documentCount: source.documentCount,
    documents,
    fieldCount,
    terms: termCount,
    units: vocabulary.units.length,
    longest: vocabulary.lengthStarts.length - 2,
    segments: segmentCount,
    postings: posting,
    docWidth: documents <= 0x10000 ? (options.documentWidth ?? 2) : 4,
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
  put('sorted', identity);
  put('prefixRank', identity);
  put('byPrefixRank', identity);
  put('lengthStarts', vocabulary.lengthStarts);
  put('byLength', vocabulary.byLength);
  put('charSets', vocabulary.charSets);
  put('termSegments', termSegments);
  put('segmentStarts', segmentStarts);
  put('postingDocs', postingDocs.subarray(0, posting));
  put('units', vocabulary.units);
  put('postingFrequencies', postingFrequencies.subarray(0, posting));
  put('segmentFields', segmentFields);
  put('ids', Buffer.concat(idChunks));
  put('fieldNames', fieldNameBytes);
  return out;
}

function maxOf(values: ArrayLike<number>): number {
  let max = 0;
  for (let i = 0; i < values.length; i += 1) if (values[i]! > max) max = values[i]!;
  return max;
}
