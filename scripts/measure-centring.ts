/**
 * Dense ordering by plain against centred cosine (`src/search/centering.ts`), with a labelled
 * set's skills mixed into real distractors from the ~24k registry pool, at several catalogue
 * sizes, with the catalogue's |μ|².
 *
 *   npx tsx scripts/measure-centring.ts [--sizes 0,434,4000,24000] [--split dev|test]
 *       [--suites metatool,seal,library,skillsbench] [--sample 1000] [--seed 7] [--json]
 *       [--engine [--modes hybrid,dense]]
 *
 * `--engine` runs the same catalogues through the engine instead (exact index, in memory, the
 * remembered vectors), with `centring` on and off: ranked (abstention off) and shown hit@1 /
 * hit@5 and the shown list's mean length, per mode. `centring` steers hybrid fusion only (dense
 * mode keeps the centred order its relevance model reads), so dense rows no longer differ.
 *
 * Size 0 is the set's own catalogue alone; a size N is the set's skills plus a seeded sample
 * (`--seed`) of registry skills, N in all. A pool skill never counts as relevant (the pool
 * reuses names such as `pdf`). Each query is scored against every skill (exact scan, the whole
 * message as one vector: no sentence chunks, no lexical side), so the figures isolate the
 * ordering score; |μ|² is the statistic a per-catalogue rule would read (no threshold on it
 * separated the catalogues centring helps on `dev`; see docs/retrieval.md, "Centring").
 * Vectors are remembered under $TMPDIR/skill-search-eval (skills and queries alike).
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveEmbedder } from '../src/embed/resolve.js';
import { dot } from '../src/embed/normalize.js';
import { Centroid } from '../src/search/centering.js';
import { SkillSearchEngine } from '../src/search/index.js';
import type { SearchMode } from '../src/types.js';
import { glossedEmbeddingText } from '../src/search/skill-text.js';
import { EVAL_CACHE_ROOT, fileSafe, loadSuite, REGISTRY_POOL, toolsAsSkills, type Split, type SuiteName } from './eval-suites.js';
import { prng } from './prng.js';
import { rememberVectors } from './query-vectors.js';

const { values } = parseArgs({
  strict: true,
  options: {
    sizes: { type: 'string', default: '0,434,4000,24000' },
    split: { type: 'string', default: 'dev' },
    suites: { type: 'string', default: 'metatool,seal,library,skillsbench' },
    sample: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '7' },
    json: { type: 'boolean', default: false },
    /** Through the engine instead (exact index, abstention off for ranked, on for shown): `--modes`, centred and plain. */
    engine: { type: 'boolean', default: false },
    modes: { type: 'string', default: 'hybrid,dense' },
  },
});

interface Row {
  suite: string;
  size: number;
  queries: number;
  /** |μ|² of the catalogue's unit vectors: its mean pairwise cosine (plus 1/n). */
  meanSquared: number;
  plain: { hitAt1: number; hitAt5: number };
  centred: { hitAt1: number; hitAt5: number };
}

async function main(): Promise<void> {
  const base = resolveEmbedder('use-lite');
  const embedder = rememberVectors(base, join(EVAL_CACHE_ROOT, `centring-${fileSafe(base)}.txt`));
  const embed = async (texts: string[], kind: 'query' | 'passage'): Promise<Float32Array[]> => {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += 256) {
      out.push(...(await embedder.embed(texts.slice(i, i + 256), undefined, kind)));
      if (i % 4096 === 0 && texts.length > 4096) console.error(`embedded ${i} / ${texts.length}`);
    }
    embedder.save();
    return out;
  };
  const sizes = values.sizes.split(',').map(Number);
  const pool = toolsAsSkills(REGISTRY_POOL);
  const poolOrder = shuffled(pool.length, Number(values.seed));
  const poolVectors = sizes.some((size) => size > 0)
    ? await embed(
        pool.map((skill) => glossedEmbeddingText(skill, undefined)),
        'passage',
      )
    : [];
  const rows: Row[] = [];
  for (const name of values.suites.split(',') as SuiteName[]) {
    const suite = await loadSuite(name, { sample: Number(values.sample), splits: [values.split as Split] });
    if (suite === undefined) continue;
    const queries = suite.queries.filter((query) => query.relevant.length > 0);
    const targets = await embed(
      suite.skills.map((skill) => glossedEmbeddingText(skill, undefined)),
      'passage',
    );
    const queryVectors = await embed(
      queries.map((query) => query.query),
      'query',
    );
    const relevant = queries.map(
      (query) => new Set(suite.skills.flatMap((skill, i) => (query.relevant.includes(skill.id) || query.relevant.includes(skill.name) ? [i] : []))),
    );
    for (const size of sizes) {
      const extra = size === 0 ? 0 : Math.max(0, size - suite.skills.length);
      if (values.engine) {
        const skills = [...suite.skills, ...poolOrder.slice(0, extra).map((i) => pool[i]!)];
        const targetIds = new Set(suite.skills.map((skill) => skill.id));
        const isRelevant = (q: number, id: string): boolean =>
          targetIds.has(id) && queries[q]!.relevant.some((label) => label === id || suite.skills.find((skill) => skill.id === id)?.name === label);
        for (const centring of [true, false]) {
          const engine = await SkillSearchEngine.open({ embedder, ann: 'exact', queryCacheSize: 0, centring });
          await engine.sync(skills);
          for (const mode of values.modes.split(',') as SearchMode[]) {
            const counts = { hit1: 0, hit5: 0, shown1: 0, shown5: 0, shownLength: 0 };
            for (const [q, query] of queries.entries()) {
              const ranked = await engine.search(query.query, { k: 5, mode, abstain: false });
              const shown = await engine.search(query.query, { k: 5, mode });
              if (ranked[0] !== undefined && isRelevant(q, ranked[0].skill.id)) counts.hit1 += 1;
              if (ranked.some((hit) => isRelevant(q, hit.skill.id))) counts.hit5 += 1;
              if (shown[0] !== undefined && isRelevant(q, shown[0].skill.id)) counts.shown1 += 1;
              if (shown.some((hit) => isRelevant(q, hit.skill.id))) counts.shown5 += 1;
              counts.shownLength += shown.length;
            }
            const f = (x: number): string => (x / queries.length).toFixed(3);
            console.log(
              `${name}\t${skills.length}\t${queries.length}\t${mode}\t${centring ? 'centred' : 'plain'}\tranked ${f(counts.hit1)} / ${f(counts.hit5)}\tshown ${f(counts.shown1)} / ${f(counts.shown5)}\tlength ${f(counts.shownLength)}`,
            );
          }
          await engine.close();
        }
        continue;
      }
      const vectors = [...targets, ...poolOrder.slice(0, extra).map((i) => poolVectors[i]!)];
      const centroid = Centroid.of(vectors, base.dimensions);
      const hits = { plain: [0, 0], centred: [0, 0] };
      queryVectors.forEach((query, q) => {
        const queryMean = dot(query, centroid.mean);
        const cosines = vectors.map((vector) => dot(query, vector));
        const centred = cosines.map((cosine, i) => centroid.score(String(i), vectors[i]!, cosine, queryMean));
        for (const [side, scores] of [
          ['plain', cosines],
          ['centred', centred],
        ] as const) {
          const order = topIndices(scores, 5);
          if (relevant[q]!.has(order[0]!)) hits[side][0]! += 1;
          if (order.some((i) => relevant[q]!.has(i))) hits[side][1]! += 1;
        }
      });
      const rate = ([one, five]: number[]): { hitAt1: number; hitAt5: number } => ({ hitAt1: one! / queries.length, hitAt5: five! / queries.length });
      const { meanSquared } = centroid;
      const row: Row = {
        suite: name,
        size: vectors.length,
        queries: queries.length,
        meanSquared,
        plain: rate(hits.plain),
        centred: rate(hits.centred),
      };
      rows.push(row);
      if (!values.json) {
        const f = (x: number): string => x.toFixed(3);
        console.log(
          `${name}\t${row.size}\t${row.queries}\t|μ|² ${f(meanSquared)}\tplain ${f(row.plain.hitAt1)} / ${f(row.plain.hitAt5)}\tcentred ${f(row.centred.hitAt1)} / ${f(row.centred.hitAt5)}`,
        );
      }
    }
  }
  if (values.json) console.log(JSON.stringify(rows, null, 2));
}

/** Indices of the `k` highest scores, best first (ties by index). */
function topIndices(scores: readonly number[], k: number): number[] {
  const top: number[] = [];
  scores.forEach((score, i) => {
    if (top.length === k && score <= scores[top[k - 1]!]!) return;
    let at = top.length;
    while (at > 0 && scores[top[at - 1]!]! < score) at -= 1;
    top.splice(at, 0, i);
    if (top.length > k) top.pop();
  });
  return top;
}

/** 0..n−1 in a seeded random order (Fisher–Yates). */
function shuffled(n: number, seed: number): number[] {
  const random = prng(seed);
  const out = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

await main();
