/**
 * Nearest-neighbour search over skill embeddings: the HNSW index against the brute-force
 * exact index on the same vectors, at each catalog size. Reports query latency, build time
 * and how much of the exact top-10 HNSW returns (recall@10 agreement).
 */
import type { Suite } from './context.js';
import { cycle, sizeLabel } from './context.js';
import { overlapAt } from './metrics.js';
import { compare, runBench, type Measurement, type ScalingPoint } from './results.js';
import { CatalogVectors } from '../src/vector-index/catalog-vectors.js';
import { embeddingText } from '../src/search/index.js';

const K = 10;

function build(kind: 'hnsw' | 'exact', dimensions: number, ids: readonly string[], vectors: readonly Float32Array[]): { index: CatalogVectors; ms: number } {
  const started = performance.now();
  // A graph at every size, so the comparison with the exact scan holds for small pools too.
  const index = new CatalogVectors({ kind, dimensions, exactBelow: 0 });
  ids.forEach((id, i) => index.set(id, id, vectors[i]!, i));
  index.graph();
  return { index, ms: performance.now() - started };
}

export const annSuite: Suite = async (context) => {
  const measurements: Measurement[] = [];
  const scaling: ScalingPoint[] = [];
  const queryVectors = await context.embedder.inner.embed(context.queries(context.options.quick ? 30 : 200));
  const notes: string[] = [];
  for (const requested of context.options.sizes) {
    const pool = context.pool(requested);
    const size = pool.skills.length;
    const group = sizeLabel(size);
    if (size < requested) notes.push(`${requested} requested, the pool has ${size} skills.`);
    await context.primeSkills(pool.skills, `${group} pool`);
    const vectors = await context.embedder.embed(pool.skills.map(embeddingText));
    const ids = pool.skills.map((skill) => skill.id);
    context.log(`ann ${group}: building exact and HNSW indexes`);
    const exact = build('exact', context.embedder.dimensions, ids, vectors);
    const hnsw = build('hnsw', context.embedder.dimensions, ids, vectors);

    let agreement = 0;
    for (const query of queryVectors) {
      const truth = exact.index.search(query, K).map((m) => m.id);
      agreement += overlapAt(
        hnsw.index.search(query, K).map((m) => m.id),
        truth,
      );
    }
    agreement /= queryVectors.length;

    const nextQuery = cycle(queryVectors);
    const bench = context.bench();
    bench.add('hnsw', () => void hnsw.index.search(nextQuery(), K));
    bench.add('exact', () => void exact.index.search(nextQuery(), K));
    context.log(`ann ${group}: timing searches`);
    const stats = await runBench(bench);
    const h = stats.get('hnsw')!;
    const e = stats.get('exact')!;
    measurements.push(
      compare(
        { group, name: 'HNSW search k=10', metric: 'p50', value: h.p50Ms, unit: 'ms', samples: h.samples, better: 'lower', headline: true },
        { name: 'exact scan', value: e.p50Ms },
      ),
      compare(
        { group, name: 'HNSW recall@10 agreement', metric: 'mean', value: agreement, unit: 'fraction', better: 'higher', headline: true },
        { name: 'exact top-10', value: 1 },
      ),
      compare({ group, name: 'HNSW build', metric: 'once', value: hnsw.ms, unit: 'ms', better: 'lower' }, { name: 'exact build', value: exact.ms }),
    );
    scaling.push({ size, series: 'HNSW search (k=10)', p50Ms: h.p50Ms }, { size, series: 'exact scan (k=10)', p50Ms: e.p50Ms });
  }
  notes.push(`Same vectors in both indexes; ${queryVectors.length} labelled-set query vectors cycled. Embedding time excluded (see embed).`);
  return { measurements, scaling, notes };
};
