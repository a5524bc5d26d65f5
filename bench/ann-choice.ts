/**
 * Which nearest-neighbour library: `hnswlib-node` (compiled at install), `usearch` (prebuilt,
 * memory-maps a saved index) and `sqlite-vec` (prebuilt; a brute-force scan of binary-quantised
 * vectors, then the float vectors rescore the best candidates), over the same skill vectors at
 * each catalog size. For each: build time, open time in a fresh process (the library loaded,
 * the saved index opened and one query answered), query p50/p99 in a warm process and
 * recall@10 against the exact top 10. A library that is not installed is left out with a note
 * (`npm install --no-save hnswlib-node sqlite-vec` to include them).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Suite } from './context.js';
import { sizeLabel } from './context.js';
import { overlapAt, percentile } from './metrics.js';
import { REPO_ROOT } from './options.js';
import { compare, type Measurement } from './results.js';
import { CatalogVectors } from '../src/vector-index/catalog-vectors.js';
import { ENGINE_DEFAULTS, embeddingText } from '../src/search/index.js';

const K = 10;
/** The graph parameters the engine uses. */
const { m: M, efConstruction: EF_CONSTRUCTION, efSearch: EF_SEARCH } = ENGINE_DEFAULTS.hnsw;
/** Binary-quantised candidates sqlite-vec rescores with the float vectors. */
const RESCORE = 100;
/** Fresh processes per library and size; the median is reported. */
const OPEN_RUNS = 5;

const requireHere = createRequire(import.meta.url);

/** One library: builds and saves an index, opens a saved one (in this process or, as source text, in a new one). */
interface Candidate {
  readonly name: string;
  /** The npm package it needs. */
  readonly module: string;
  build(vectors: readonly Float32Array[], file: string): void;
  /** Searches the saved `file`: labels (row numbers) best first. */
  open(file: string, dimensions: number): (query: Float32Array) => number[];
  /** ES module source that imports the library, opens `file` and answers one query. */
  child(file: string, dimensions: number): string;
}

const hnswlib: Candidate = {
  name: 'hnswlib-node',
  module: 'hnswlib-node',
  build(vectors, file) {
    const lib = requireHere('hnswlib-node');
    const graph = new lib.HierarchicalNSW('ip', vectors[0]!.length);
    graph.initIndex(vectors.length, M, EF_CONSTRUCTION, 100);
    vectors.forEach((vector, label) => graph.addPoint(Array.from(vector), label));
    graph.writeIndexSync(file);
  },
  open(file, dimensions) {
    const lib = requireHere('hnswlib-node');
    const graph = new lib.HierarchicalNSW('ip', dimensions);
    graph.readIndexSync(file);
    graph.setEf(EF_SEARCH);
    return (query) => graph.searchKnn(Array.from(query), K).neighbors;
  },
  child: (file, dimensions) => `
    const { default: lib } = await import('hnswlib-node');
    const graph = new lib.HierarchicalNSW('ip', ${dimensions});
    graph.readIndexSync(${JSON.stringify(file)});
    graph.setEf(${EF_SEARCH});
    graph.searchKnn(new Array(${dimensions}).fill(${1 / Math.sqrt(dimensions)}), ${K});`,
};

const usearchOptions = (dimensions: number) =>
  ({ dimensions, metric: 'ip', quantization: 'f32', connectivity: M, expansion_add: EF_CONSTRUCTION, expansion_search: EF_SEARCH }) as const;

const usearch: Candidate = {
  name: 'usearch',
  module: 'usearch',
  build(vectors, file) {
    const lib = requireHere('usearch');
    const index = new lib.Index(usearchOptions(vectors[0]!.length));
    vectors.forEach((vector, label) => index.add(BigInt(label), vector, 1));
    index.save(file);
  },
  open(file, dimensions) {
    const lib = requireHere('usearch');
    const index = new lib.Index(usearchOptions(dimensions));
    index.view(file);
    return (query) => Array.from(index.search(query, K, 1).keys as BigUint64Array, Number);
  },
  child: (file, dimensions) => `
    const { default: lib } = await import('usearch');
    const index = new lib.Index(${JSON.stringify(usearchOptions(dimensions))});
    index.view(${JSON.stringify(file)});
    index.search(new Float32Array(${dimensions}).fill(${1 / Math.sqrt(dimensions)}), ${K}, 1);`,
};

const SQLITE_KNN = `
  WITH candidates AS (SELECT rowid FROM quantised WHERE bits MATCH vec_quantize_binary(@query) AND k = ${RESCORE})
  SELECT floats.label FROM candidates JOIN floats ON floats.label = candidates.rowid
  ORDER BY vec_distance_cosine(floats.vector, @query) LIMIT ${K}`;

const sqliteVec: Candidate = {
  name: 'sqlite-vec',
  module: 'sqlite-vec',
  build(vectors, file) {
    const Database = requireHere('better-sqlite3');
    const db = new Database(file);
    requireHere('sqlite-vec').load(db);
    db.exec(`CREATE VIRTUAL TABLE quantised USING vec0(bits bit[${vectors[0]!.length}]);
             CREATE TABLE floats (label INTEGER PRIMARY KEY, vector BLOB NOT NULL);`);
    const addBits = db.prepare('INSERT INTO quantised (rowid, bits) VALUES (?, vec_quantize_binary(?))');
    const addFloats = db.prepare('INSERT INTO floats (label, vector) VALUES (?, ?)');
    db.transaction(() =>
      vectors.forEach((vector, label) => {
        const blob = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
        addBits.run(BigInt(label), blob);
        addFloats.run(label, blob);
      }),
    )();
    db.close();
  },
  open(file) {
    const Database = requireHere('better-sqlite3');
    const db = new Database(file, { readonly: true });
    requireHere('sqlite-vec').load(db);
    const knn = db.prepare(SQLITE_KNN).pluck();
    return (query) => knn.all({ query: Buffer.from(query.buffer, query.byteOffset, query.byteLength) }) as number[];
  },
  child: (file, dimensions) => `
    const { default: Database } = await import('better-sqlite3');
    const { load } = await import('sqlite-vec');
    const db = new Database(${JSON.stringify(file)}, { readonly: true });
    load(db);
    const query = new Float32Array(${dimensions}).fill(${1 / Math.sqrt(dimensions)});
    db.prepare(${JSON.stringify(SQLITE_KNN)}).pluck().all({ query: Buffer.from(query.buffer) });`,
};

const CANDIDATES: readonly Candidate[] = [hnswlib, usearch, sqliteVec];

function installed(module: string): boolean {
  try {
    requireHere.resolve(module);
    return true;
  } catch {
    return false;
  }
}

/**
 * `node --input-type=module -e source`, run from the repository so packages resolve: its wall
 * time, and the time the source itself took inside the process (import, open, first query),
 * which a loaded machine's process start-up does not blur.
 */
function runNode(source: string): { wallMs: number; insideMs: number } {
  const started = performance.now();
  const out = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', `const started = performance.now();${source}\nprocess.stdout.write(String(performance.now() - started));`],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' },
  );
  return { wallMs: performance.now() - started, insideMs: Number(out) };
}

function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export const annChoiceSuite: Suite = async (context) => {
  const candidates = CANDIDATES.filter((candidate) => installed(candidate.module));
  const notes = CANDIDATES.filter((candidate) => !candidates.includes(candidate)).map(
    (candidate) => `${candidate.name} is not installed: left out (\`npm install --no-save ${candidate.module}\` to include it).`,
  );
  if (candidates.length === 0) return { skipped: 'none of hnswlib-node, usearch, sqlite-vec is installed' };
  const queries = await context.embedder.inner.embed(context.queries(context.options.quick ? 30 : 200));
  const dir = mkdtempSync(path.join(tmpdir(), 'skill-search-ann-choice-'));
  const measurements: Measurement[] = [];
  try {
    for (const requested of context.options.sizes) {
      const pool = context.pool(requested);
      const group = sizeLabel(pool.skills.length);
      if (pool.skills.length < requested) notes.push(`${requested} requested, the pool has ${pool.skills.length} skills.`);
      await context.primeSkills(pool.skills, `${group} pool`);
      const vectors = await context.embedder.embed(pool.skills.map(embeddingText));
      const dimensions = context.embedder.dimensions;
      const exact = new CatalogVectors({ kind: 'exact', dimensions });
      vectors.forEach((vector, label) => exact.set(String(label), String(label), vector, label));
      const truth = queries.map((query) => exact.search(query, K).map((match) => Number(match.id)));
      const baselineOpen = median(Array.from({ length: OPEN_RUNS }, () => runNode('').wallMs));
      for (const candidate of candidates) {
        const file = path.join(dir, `${candidate.module}-${pool.skills.length}`);
        context.log(`ann-choice ${group}: ${candidate.name}`);
        let started = performance.now();
        candidate.build(vectors, file);
        const buildMs = performance.now() - started;
        const opens = Array.from({ length: OPEN_RUNS }, () => runNode(candidate.child(file, dimensions)));
        const openMs = median(opens.map((run) => run.wallMs));
        const insideMs = median(opens.map((run) => run.insideMs));
        started = performance.now();
        const search = candidate.open(file, dimensions);
        const openInProcessMs = performance.now() - started;
        const latencies: number[] = [];
        let recall = 0;
        // Two passes: the first warms the caches, the second is timed.
        for (const pass of [0, 1]) {
          queries.forEach((query, i) => {
            started = performance.now();
            const labels = search(query);
            if (pass === 1) latencies.push(performance.now() - started);
            else recall += overlapAt(labels, truth[i]!);
          });
        }
        recall /= queries.length;
        const name = (what: string): string => `${candidate.name} ${what}`;
        measurements.push(
          { group, name: name('search k=10'), metric: 'p50', value: percentile(latencies, 50), unit: 'ms', samples: latencies.length, better: 'lower' },
          { group, name: name('search k=10'), metric: 'p99', value: percentile(latencies, 99), unit: 'ms', samples: latencies.length, better: 'lower' },
          compare(
            { group, name: name('recall@10'), metric: 'mean', value: recall, unit: 'fraction', better: 'higher', headline: true },
            { name: 'exact top-10', value: 1 },
          ),
          compare(
            {
              group,
              name: name('open + first query, fresh process'),
              metric: 'median',
              value: openMs,
              unit: 'ms',
              samples: OPEN_RUNS,
              better: 'lower',
              headline: true,
            },
            { name: 'node -e ""', value: baselineOpen },
          ),
          {
            group,
            name: name('import + open + first query, inside a fresh process'),
            metric: 'median',
            value: insideMs,
            unit: 'ms',
            samples: OPEN_RUNS,
            better: 'lower',
          },
          { group, name: name('open in a warm process'), metric: 'once', value: openInProcessMs, unit: 'ms', better: 'lower' },
          { group, name: name('build'), metric: 'once', value: buildMs, unit: 'ms', better: 'lower' },
          { group, name: name('saved size'), metric: 'once', value: statSync(file).size / 2 ** 20, unit: 'MB', better: 'lower' },
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  notes.push(
    `Same vectors in every index (${queries.length} labelled-set query vectors; embedding excluded). Graphs: M=${M}, efConstruction=${EF_CONSTRUCTION}, efSearch=${EF_SEARCH}, one thread; sqlite-vec rescores its ${RESCORE} best binary candidates with the float vectors. Fresh-process open: median of ${OPEN_RUNS}, beside \`node -e ""\`.`,
  );
  return { measurements, notes };
};
