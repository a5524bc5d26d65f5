/**
 * The measurements behind docs/dependencies.md: our edit distance, stemmer and query cache
 * against the maintained packages that could replace them. The candidates are not
 * dependencies; install them in a folder of their own first:
 *
 *   npm install --prefix /tmp/candidates --ignore-scripts fastest-levenshtein@1.0.16 stemmer@2.0.1 lru-cache@11.5.4
 *   npx tsx scripts/compare-libraries.ts --from /tmp/candidates
 *
 * Reads ../shared/eval (the skill library, the registry pool, MetaTool and Seal-Tools tools).
 * The stemmer's effect on ranking is measured separately (docs/dependencies.md says how).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { suggestNames } from '../src/util/suggest.js';
import { raceAbort } from '../src/embed/abortable.js';
import { normalizeQueryText, QueryEmbeddingCache } from '../src/embed/query-cache.js';
import { stem } from '../src/lexical/stem.js';
import type { Embedder } from '../src/types.js';
import { EVAL_DIR } from './eval-suites.js';
import { prng } from './prng.js';

const { values } = parseArgs({ options: { from: { type: 'string' } } });
if (values.from === undefined) throw new Error('--from DIR: the folder the candidate packages were installed in');
const candidate = async <T>(file: string): Promise<T> => (await import(pathToFileURL(join(values.from!, 'node_modules', file)).href)) as T;

const { distance } = await candidate<{ distance: (a: string, b: string) => number }>('fastest-levenshtein/esm/mod.js');
const { stemmer } = await candidate<{ stemmer: (word: string) => string }>('stemmer/index.js');
const started = performance.now();
/** The part of lru-cache 11's API used here (the package is not a dependency, so no types). */
interface LruCache {
  fetch(key: string, options: { context: string }): Promise<Float32Array | undefined>;
}
type LruCacheClass = new (options: {
  max: number;
  fetchMethod: (key: string, stale: unknown, options: { context: string }) => Promise<Float32Array>;
}) => LruCache;
const { LRUCache } = await candidate<{ LRUCache: LruCacheClass }>('lru-cache/dist/esm/index.js');
const lruImportMs = performance.now() - started;

const jsonl = (file: string): Record<string, unknown>[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

// --- "Did you mean": suggestNames with our banded Damerau distance vs full Levenshtein ---

/** suggestNames' rules (limit, containment, order) over fastest-levenshtein's distance. */
function suggestWithLevenshtein(requested: string, names: readonly string[]): string[] {
  const query = requested.toLowerCase();
  if (query === '') return [];
  const limit = Math.min(8, Math.max(2, Math.floor(query.length / 3)));
  const scored: { name: string; distance: number; index: number }[] = [];
  names.forEach((name, index) => {
    const candidateName = name.toLowerCase();
    const d = query.length <= 256 ? distance(query, candidateName) : limit + 1;
    const contains = candidateName.includes(query) || (query.length >= 3 && query.includes(candidateName));
    if (d <= limit || contains) scored.push({ name, distance: contains ? Math.min(d, limit) : d, index });
  });
  scored.sort((a, b) => a.distance - b.distance || a.index - b.index);
  return scored.slice(0, 3).map((entry) => entry.name);
}

const libraryDir = join(EVAL_DIR, 'library');
const names = [
  ...new Set(
    readdirSync(libraryDir).flatMap((source) => {
      try {
        return jsonl(join(libraryDir, source, '_index.jsonl')).map((entry) => String(entry.name));
      } catch {
        return [];
      }
    }),
  ),
];
const random = prng(7);
const typos: { kind: string; intended: string; text: string }[] = [];
for (const name of names) {
  if (name.length < 4) continue;
  const i = 1 + Math.floor(random() * (name.length - 2));
  typos.push({ kind: 'swap', intended: name, text: name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2) });
  typos.push({ kind: 'drop', intended: name, text: name.slice(0, i) + name.slice(i + 1) });
  typos.push({ kind: 'substitute', intended: name, text: `${name.slice(0, i)}x${name.slice(i + 1)}` });
}
const first = { ours: 0, levenshtein: 0 };
const differ: Record<string, number> = {};
for (const typo of typos) {
  const ours = suggestNames(typo.text, names);
  const theirs = suggestWithLevenshtein(typo.text, names);
  if (ours[0] === typo.intended) first.ours += 1;
  if (theirs[0] === typo.intended) first.levenshtein += 1;
  if (JSON.stringify(ours) !== JSON.stringify(theirs)) differ[typo.kind] = (differ[typo.kind] ?? 0) + 1;
}
console.log(`suggestions: ${typos.length} typos of ${names.length} library names; intended name first:`, first, 'lists that differ:', differ);

const pool = jsonl(join(EVAL_DIR, 'pools', 'skill-registry-metadata', 'tools.jsonl')).map((entry) => String(entry.name));
for (let round = 0; round < 2; round += 1) {
  for (const [label, suggest] of [
    ['ours', suggestNames],
    ['fastest-levenshtein', suggestWithLevenshtein],
  ] as const) {
    const t0 = performance.now();
    for (const typo of typos.slice(0, 60)) suggest(typo.text, pool);
    console.log(`suggestions over ${pool.length} names, ${label}: ${((performance.now() - t0) / 60).toFixed(2)} ms per request`);
  }
}

// --- Stemmer: how many tool-description words Porter stems differently ---

const words = new Map<string, number>();
for (const suite of ['metatool', 'seal-tools']) {
  for (const tool of jsonl(join(EVAL_DIR, suite, 'tools.jsonl'))) {
    for (const word of `${String(tool.name)} ${String(tool.description)}`.toLowerCase().match(/[a-z]+/g) ?? []) {
      words.set(word, (words.get(word) ?? 0) + 1);
    }
  }
}
let distinct = 0;
let occurrences = 0;
let total = 0;
for (const [word, count] of words) {
  total += count;
  if (stem(word) !== stemmer(word)) {
    distinct += 1;
    occurrences += count;
  }
}
console.log(
  `stemmer: ${words.size} distinct words; Porter differs on ${((100 * distinct) / words.size).toFixed(1)}% of them, ${((100 * occurrences) / total).toFixed(1)}% of occurrences`,
);

// --- Query cache: ours vs lru-cache's fetch() with the same per-caller abort ---

class LruCacheQueries {
  readonly #cache: LruCache;
  constructor(embedder: Embedder, capacity: number) {
    this.#cache = new LRUCache({
      max: capacity,
      fetchMethod: async (_key, _stale, { context }) => (await embedder.embed([context], undefined, 'query'))[0]!,
    });
  }
  embed(query: string, signal?: AbortSignal): Promise<Float32Array> {
    const text = normalizeQueryText(query);
    return raceAbort(this.#cache.fetch(text, { context: text }) as Promise<Float32Array>, signal);
  }
}

const instant: Embedder = { id: 'instant', dimensions: 2, embed: async (texts) => texts.map(() => new Float32Array(2)) };
const queries = Array.from({ length: 512 }, (_, i) => `query number ${i}`);
console.log(`lru-cache import: ${lruImportMs.toFixed(1)} ms`);
for (let round = 0; round < 2; round += 1) {
  for (const [label, make] of [
    ['ours', () => new QueryEmbeddingCache(instant, 256)],
    ['lru-cache', () => new LruCacheQueries(instant, 256)],
  ] as const) {
    for (const [pattern, list] of [
      ['cycling misses', queries],
      ['hits', queries.slice(0, 200)],
    ] as const) {
      const cache = make();
      const t0 = performance.now();
      for (let r = 0; r < 200; r += 1) for (const query of list) await cache.embed(query);
      console.log(`query cache, ${label}, ${pattern}: ${(((performance.now() - t0) * 1000) / (200 * list.length)).toFixed(2)} µs per lookup`);
    }
  }
}
