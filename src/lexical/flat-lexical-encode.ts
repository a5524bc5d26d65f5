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
import type { TermPostings } from './minisearch-internals.js';
import { treeTerms } from './minisearch-postings.js';
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
 * The index as a flat buffer (see the module comment). Postings of discarded documents are left
 * out (`compactedInternals` has none). Throws when this MiniSearch keeps its index differently
 * or a value does not fit the format (a bug, not bad input).
 */
export function encodeFlatLexical(index: LexicalIndex, options: EncodeFlatLexicalOptions = {}): Buffer {
  const internals = index.compactedInternals();
  if (internals === undefined) throw new SkillSearchError('INTERNAL', 'flat lexical index: this MiniSearch keeps its index differently');
  const fieldCount = Math.max(0, ...Object.values(internals._fieldIds)) + 1;
  const fieldNames: string[] = [];
  for (const [name, id] of Object.entries(internals._fieldIds)) fieldNames[id] = name;
  if (fieldCount > 0xff || fieldNames.length !== fieldCount || fieldNames.some((name) => name === undefined)) {
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
    for (let field = 0; field < fieldCount; field += 1) {
      const length = lengths[field] ?? 0;
      if (!Number.isInteger(length) || length < 0 || length > 0xffffffff)
        throw new SkillSearchError('INTERNAL', `flat lexical index: field length ${length} of document ${shortId}`);
      fieldLengths[doc * fieldCount + field] = length;
    }
  });
  const averageFieldLengths = Float64Array.from({ length: fieldCount }, (_, field) => internals._avgFieldLength[field] ?? 0);

  // Terms in depth-first order (MiniSearch's fuzzyGet order), with the other two orders.
  const { terms, postings } = treeTerms(internals._index._tree);
  const termCount = terms.length;
  // Ordered by code units, as the reader's binary search compares them (terms are distinct).
  const sorted = Uint32Array.from(terms.keys()).sort((a, b) => (terms[a]! < terms[b]! ? -1 : 1));
  // MiniSearch's `atPrefix` iterates a subtree depth first with each node's keys last to first:
  // the reverse of the depth-first order the terms are in.
  const prefixRank = new Uint32Array(termCount);
  const byPrefixRank = new Uint32Array(termCount);
  for (let position = 0; position < termCount; position += 1) {
    prefixRank[position] = termCount - 1 - position;
    byPrefixRank[termCount - 1 - position] = position;
  }
  const vocabulary = vocabularyTables(terms);

  // Postings: per term, per field that has any (in field order), the live documents in MiniSearch's order.
  let segmentCount = 0;
  let postingCount = 0;
  for (const byField of postings) {
    segmentCount += byField.size;
    for (const frequencies of byField.values()) postingCount += frequencies.size;
  }
  const termSegments = new Uint32Array(termCount + 1);
  const segmentFields = new Uint8Array(segmentCount);
  const segmentStarts = new Uint32Array(segmentCount + 1);
  const postingDocs = new Uint32Array(postingCount);
  const postingFrequencies = new Uint32Array(postingCount);
  let segment = 0;
  let posting = 0;
  postings.forEach((byField: TermPostings, position) => {
    for (let field = 0; field < fieldCount; field += 1) {
      const frequencies = byField.get(field);
      if (frequencies === undefined) continue;
      frequencies.forEach((frequency, shortId) => {
        const doc = dense[shortId] ?? -1;
        if (doc < 0) return;
        if (!Number.isInteger(frequency) || frequency < 0 || frequency > 0xffffffff) {
          throw new SkillSearchError('INTERNAL', `flat lexical index: term frequency ${frequency} of ${JSON.stringify(terms[position])}`);
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
  if (segment !== segmentCount) {
    throw new SkillSearchError('INTERNAL', `flat lexical index: ${segmentCount - segment} postings maps hold fields outside 0…${fieldCount - 1}`);
  }

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
  put('sorted', sorted);
  put('prefixRank', prefixRank);
  put('byPrefixRank', byPrefixRank);
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
