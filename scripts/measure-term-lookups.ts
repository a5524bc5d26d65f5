/**
 * Typo lookups over a catalog's vocabulary (`TermVocabulary.near`, issue #17): what one lookup
 * costs by scanning and through the pair index, and what building the pair index costs in
 * scanned terms — the figure behind `PAIR_INDEX_COST_IN_SCANNED_TERMS`. The catalog is the first
 * `--size` skills of the registry pool in ../shared/eval; the words are the eval suites' query
 * words of five or more letters that the catalog does not have (those a search looks up), with
 * the engine's default typo ratio.
 *
 * Usage: npx tsx scripts/measure-term-lookups.ts [--sizes 1000,24000] [--rounds 5]
 */
import { parseArgs } from 'node:util';
import { LexicalIndex } from '../src/lexical/lexical-index.js';
import { TermVocabulary } from '../src/lexical/term-vocabulary.js';
import { vocabularyTables } from '../src/lexical/vocabulary-tables.js';
import { tokenize } from '../src/lexical/tokenize.js';
import { loadToolsJsonl } from '../src/load/tools-jsonl.js';
import { ENGINE_DEFAULTS } from '../src/search/options.js';
import { evalQueryTexts, REGISTRY_POOL } from './eval-suites.js';

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '1000,24000' }, rounds: { type: 'string', default: '5' } } });
const rounds = Number(values.rounds);
const { skills } = await loadToolsJsonl(REGISTRY_POOL);
const queryWords = [...new Set((await evalQueryTexts()).flatMap((text) => tokenize(text)))].filter((word) => word.length >= ENGINE_DEFAULTS.fuzzy.minLength);
const maxDistanceOf = (word: string) => Math.round(word.length * ENGINE_DEFAULTS.fuzzy.ratio);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

for (const size of values.sizes.split(',').map(Number)) {
  const index = new LexicalIndex();
  for (const skill of skills.slice(0, size)) index.upsert(skill);
  const terms = index.sortedTerms();
  const known = new Set(terms);
  const words = queryWords.filter((word) => !known.has(word));
  const tables = vocabularyTables(terms);
  // Terms a scan compares for a word: those of a length within its distance.
  const band = (word: string) => {
    const { lengthStarts } = tables;
    const d = maxDistanceOf(word);
    const shortest = Math.max(0, word.length - d);
    const longest = Math.min(lengthStarts.length - 2, word.length + d);
    return longest < shortest ? 0 : lengthStarts[longest + 1]! - lengthStarts[shortest]!;
  };
  const scannedPerRound = words.reduce((sum, word) => sum + band(word), 0);
  const scanMs: number[] = [];
  const pairMs: number[] = [];
  const buildMs: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const scanning = new TermVocabulary(tables, Number.POSITIVE_INFINITY);
    let started = performance.now();
    for (const word of words) scanning.near(word, maxDistanceOf(word));
    scanMs.push(performance.now() - started);
    const indexed = new TermVocabulary(tables, 0);
    started = performance.now();
    indexed.near('abcdefgh', 1);
    buildMs.push(performance.now() - started);
    started = performance.now();
    for (const word of words) indexed.near(word, maxDistanceOf(word));
    pairMs.push(performance.now() - started);
  }
  const scanNsPerTerm = (median(scanMs) * 1e6) / scannedPerRound;
  const buildNsPerTerm = (median(buildMs) * 1e6) / terms.length;
  console.log(
    `${size} skills, ${terms.length} terms, ${words.length} unknown query words: ` +
      `scan ${((median(scanMs) * 1000) / words.length).toFixed(1)} µs/word (${scanNsPerTerm.toFixed(2)} ns per term compared), ` +
      `pair index ${((median(pairMs) * 1000) / words.length).toFixed(1)} µs/word, ` +
      `build ${median(buildMs).toFixed(1)} ms (${buildNsPerTerm.toFixed(0)} ns per term) = ${(buildNsPerTerm / scanNsPerTerm).toFixed(0)} scanned terms per term`,
  );
}
