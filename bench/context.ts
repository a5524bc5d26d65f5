/**
 * What every suite gets: the resolved options, one shared (cached) embedder, memoised data
 * loaders, a tinybench factory sized for the run, and a progress log on stderr (stdout is
 * kept for the final table).
 */
import { Bench } from 'tinybench';
import { resolveEmbedder } from '../src/embed/resolve.js';
import { CachedEmbedder } from './cached-embedder.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { embeddingText, SkillSearchEngine, type SyncResult } from '../src/search/index.js';
import type { VectorIndexKind } from '../src/vector-index/vector-index.js';
import { loadEvalSets, loadPool, sample, type EvalSet, type Pool } from './corpus.js';
import type { ResolvedBenchOptions } from './options.js';
import type { HitRateRow, Measurement, ScalingPoint } from './results.js';
import type { Skill } from '../src/types.js';

export interface SuiteOutput {
  readonly measurements: readonly Measurement[];
  readonly hitRates?: readonly HitRateRow[];
  readonly scaling?: readonly ScalingPoint[];
  readonly notes?: readonly string[];
}

/** A suite either reports or says why it could not run here (never a silent empty table). */
export type Suite = (context: BenchContext) => Promise<SuiteOutput | { readonly skipped: string }>;

export class BenchContext {
  readonly options: ResolvedBenchOptions;
  readonly embedder: CachedEmbedder;
  readonly #started = performance.now();
  #evalSets: EvalSet[] | undefined;
  readonly #pools = new Map<number, Pool>();
  readonly #engines = new Map<string, Promise<OpenedEngine>>();
  readonly #tempDirs: string[] = [];
  /** Skill texts embedded into the on-disk cache during this run, and the time it took: the first-run cost. */
  readonly priming = { texts: 0, ms: 0 };

  constructor(options: ResolvedBenchOptions) {
    this.options = options;
    this.embedder = new CachedEmbedder(resolveEmbedder(options.embedder), options.cacheDir);
  }

  log(message: string): void {
    const seconds = ((performance.now() - this.#started) / 1000).toFixed(1).padStart(6);
    process.stderr.write(`[bench ${seconds}s] ${message}\n`);
  }

  evalSets(): EvalSet[] {
    this.#evalSets ??= loadEvalSets(this.options.evalDir, this.options.maxQueries);
    return this.#evalSets;
  }

  pool(size: number): Pool {
    let pool = this.#pools.get(size);
    if (!pool) {
      pool = loadPool(this.options.evalDir, size);
      this.#pools.set(size, pool);
    }
    return pool;
  }

  /**
   * Short queries from the labelled sets (real or synthetic) to time: a query embeds in time roughly linear in its length, and
   * skillsbench's page-long task statements would time the tokenizer, not the index.
   */
  queries(n: number): string[] {
    const short = this.evalSets()
      .flatMap((set) => set.queries.map((q) => q.query))
      .filter((q) => q.length <= 200);
    return sample(short, n, 5);
  }

  /** Makes sure every skill's vector is in the on-disk cache, logging progress for big pools. */
  async primeSkills(skills: readonly Skill[], label: string): Promise<void> {
    const started = performance.now();
    const embedded = await this.embedder.prime(skills.map(embeddingText), ({ done, total, elapsedMs }) => {
      const rate = done / (elapsedMs / 1000);
      const eta = (total - done) / rate;
      this.log(`embedding ${label}: ${done}/${total} (${rate.toFixed(0)}/s, ~${eta.toFixed(0)} s left)`);
    });
    if (embedded > 0) {
      this.priming.texts += embedded;
      this.priming.ms += performance.now() - started;
      this.log(`embedded ${embedded} new ${label} texts (cache: ${this.embedder.cacheStatus})`);
    }
  }

  /** A fresh temporary folder, removed by {@link dispose}. */
  tempDir(label: string): string {
    const dir = mkdtempSync(path.join(os.tmpdir(), `skill-search-bench-${label}-`));
    this.#tempDirs.push(dir);
    return dir;
  }

  /**
   * An engine over `skills` built once per (key, ann) and shared by the suites that only
   * read it (query, prefetch, scaling). It persists to a temp folder like a real install,
   * and embeds through the shared cache, so `syncMs` is index building, not the model.
   */
  engine(key: string, skills: readonly Skill[], ann: VectorIndexKind): Promise<OpenedEngine> {
    const id = `${key}/${ann}`;
    let opened = this.#engines.get(id);
    if (!opened) {
      opened = (async () => {
        await this.primeSkills(skills, key);
        const indexDir = this.tempDir(`${key}-${ann}`);
        const modelTexts = this.embedder.modelTexts;
        const started = performance.now();
        const engine = await SkillSearchEngine.open({ embedder: this.embedder, indexDir, ann, ...NO_QUERY_CACHE });
        const sync = await engine.sync(skills);
        const syncMs = performance.now() - started;
        this.log(
          `engine ${id}: ${engine.size} skills indexed in ${(syncMs / 1000).toFixed(1)} s (${this.embedder.modelTexts - modelTexts} cache misses sent to the model)`,
        );
        return { engine, syncMs, sync, indexDir };
      })();
      this.#engines.set(id, opened);
    }
    return opened;
  }

  async dispose(): Promise<void> {
    for (const opened of this.#engines.values()) await (await opened.catch(() => undefined))?.engine.close();
    for (const dir of this.#tempDirs) rmSync(dir, { recursive: true, force: true });
  }

  /** A tinybench sized for the run; slow tasks pass a smaller `iterations`. */
  bench(overrides: { iterations?: number; time?: number; warmupIterations?: number } = {}): Bench {
    return new Bench({
      time: overrides.time ?? this.options.taskTimeMs,
      iterations: overrides.iterations ?? (this.options.quick ? 10 : 64),
      warmupTime: this.options.quick ? 20 : 100,
      warmupIterations: overrides.warmupIterations ?? (this.options.quick ? 2 : 8),
      throws: true,
    });
  }
}

/**
 * The engine's query-vector LRU is off in every bench engine: suites share engines and draw
 * from overlapping query samples, and a latency that was really a cache hit would be a lie.
 * Every dense or hybrid query here pays the model — the cold-query case.
 */
export const NO_QUERY_CACHE = { queryCacheSize: 0 } as const;

export interface OpenedEngine {
  readonly engine: SkillSearchEngine;
  /** open + first sync, embeddings served from the cache. */
  readonly syncMs: number;
  readonly sync: SyncResult;
  readonly indexDir: string;
}

/** Cycles through `items`, one per call: tinybench calls a task many times, each call gets the next input. */
export function cycle<T>(items: readonly T[]): () => T {
  if (items.length === 0) throw new Error('cycle() needs at least one item');
  let i = 0;
  return () => items[i++ % items.length]!;
}

export const sizeLabel = (size: number): string => `n=${size.toLocaleString('en-US')}`;
