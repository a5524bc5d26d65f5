/**
 * Lexical ranking: the project's BM25 index (typo tolerance, prefix matching, field boosts)
 * against two baselines on the same skills and queries — the same index searched with exact
 * terms only over name, description and whenToUse (what typo and prefix matching cost), and a brute-force scan scoring
 * every skill by query-term overlap (what an inverted index buys, or does not, at each size).
 */
import type { Suite } from './context.js';
import { cycle, sizeLabel } from './context.js';
import { compare, runBench, type Measurement, type ScalingPoint } from './results.js';
import { LexicalIndex } from '../src/lexical/lexical-index.js';
import { tokenize } from '../src/lexical/tokenize.js';
import { TopK } from '../src/vector-index/top-k.js';
import { indexedText } from './corpus.js';

const K = 10;

export const lexicalSuite: Suite = async (context) => {
  const measurements: Measurement[] = [];
  const scaling: ScalingPoint[] = [];
  const queries = context.queries(context.options.quick ? 40 : 300);
  for (const requested of context.options.sizes) {
    const pool = context.pool(requested);
    const size = pool.skills.length;
    const group = sizeLabel(size);
    const started = performance.now();
    const index = new LexicalIndex();
    for (const skill of pool.skills) index.upsert(skill);
    const buildMs = performance.now() - started;

    const plainOptions = {
      boost: { name: 1, description: 1, whenToUse: 1, keywords: 0, body: 0, glosses: 0 },
      prefixMinLength: Number.POSITIVE_INFINITY,
      fuzzy: { minLength: Number.POSITIVE_INFINITY, ratio: 0 },
    };
    const docs = pool.skills.map((skill) => ({ id: skill.id, terms: new Set(tokenize(indexedText(skill))) }));
    const scan = (query: string): string[] => {
      const terms = [...new Set(tokenize(query))];
      const top = new TopK<string>(K);
      for (const doc of docs) {
        let score = 0;
        for (const term of terms) if (doc.terms.has(term)) score++;
        if (score > 0) top.push(doc.id, score);
      }
      return top.sorted().map((entry) => entry.item);
    };

    const nextQuery = cycle(queries);
    const bench = context.bench();
    bench.add('project', () => void index.search(nextQuery(), K));
    bench.add('plain', () => void index.search(nextQuery(), K, plainOptions));
    bench.add('scan', () => void scan(nextQuery()));
    context.log(`lexical ${group}: timing searches`);
    const stats = await runBench(bench);
    const m = stats.get('project')!;
    const p = stats.get('plain')!;
    const s = stats.get('scan')!;
    const row = { group, name: 'BM25 + typo tolerance, k=10', metric: 'p50', value: m.p50Ms, unit: 'ms', samples: m.samples, better: 'lower' } as const;
    measurements.push(
      compare({ ...row, headline: true }, { name: 'plain BM25, exact terms', value: p.p50Ms }),
      compare(row, { name: 'term-overlap scan', value: s.p50Ms }),
      { group, name: 'BM25 index build', metric: 'once', value: buildMs, unit: 'ms' },
    );
    scaling.push({ size, series: 'lexical BM25 (k=10)', p50Ms: m.p50Ms });
  }
  return {
    measurements,
    scaling,
    notes: [`${queries.length} labelled-set queries (≤ 200 chars) cycled.`],
  };
};
