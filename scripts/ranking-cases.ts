/**
 * Hybrid candidates of the eval suites, collected once and re-ordered offline: what
 * `scripts/fit-fusion.ts` (fusion and boundary weights) and `scripts/choose-shown-cut.ts` (how
 * many hits to show) fit and choose on. Each query is ranked by the engine with the evidence gate,
 * the boundaries and the lexical guard off and every candidate kept (BM25's matches and the 200
 * best by plain cosine), so any setting of
 * those knobs can be replayed exactly from the cached evidence (`reorder`, the same arithmetic as
 * `candidates.ts`), with either dense order (each candidate carries its centred and plain
 * cosine). Cached under $TMPDIR/skill-search-eval/ranking-cache.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveEmbedder } from '../src/embed/resolve.js';
import { BOUNDARY_DEPTH, boundaryHits, boundaryOf } from '../src/search/boundaries.js';
import type { Skill } from '../src/types.js';
import { denseOrder } from '../src/search/dense-query.js';
import { findNamedSkills, normalizeName } from '../src/search/exact-name.js';
import {
  boundedScore,
  clearLexicalFirst,
  denseShareFor,
  keepClearFirstAbove,
  lexicalEvidenceShare,
  liftedScore,
  type FusionParameters,
} from '../src/search/fusion.js';
import { ENGINE_DEFAULTS, SkillSearchEngine } from '../src/search/index.js';
import type { LongQueryByKind } from '../src/search/options.js';
import type { QueryEvidence, RankedEvidence } from '../src/search/relevance.js';
import { lexicalEntry } from '../src/lexical/lexical-entry.js';
import { catalogKind, rerankedOrders, type CatalogKind, type RerankCandidate, type RerankModel } from '../src/search/rerank.js';
import { catalogOf, EVAL_CACHE_ROOT, evalIndexDir, loadSuite, queryVectorsFile, type Split, type SuiteName } from './eval-suites.js';
import { rememberVectors } from './query-vectors.js';

export interface RankingCase {
  readonly suite: SuiteName;
  readonly split: Split;
  /** The kind of the suite's catalogue (`catalogKind`), which picks the engine's re-ranker. */
  readonly kind: CatalogKind;
  readonly id: string;
  readonly answerable: boolean;
  /** The query named a skill exactly (shown first with score 1 by the engine). */
  readonly named: boolean;
  readonly namedRelevant: boolean;
  /** How many skills the query names (`findNamedSkills`): the engine shows them all before the ranked `candidates`. */
  readonly namedCount: number;
  readonly candidates: readonly RankedEvidence[];
  readonly query: QueryEvidence;
  /** Per candidate: relevant. */
  readonly labels: readonly boolean[];
  /** Per candidate: query terms only its boundary clauses use. */
  readonly boundaryTerms: readonly number[];
  /** Per candidate: indexes of the candidates its boundary names as alternatives. */
  readonly instead: readonly (readonly number[])[];
}

export const CASE_SUITES: readonly SuiteName[] = ['metatool', 'seal', 'library', 'boundaries'];

const CACHE = join(EVAL_CACHE_ROOT, 'ranking-cache');
/** Dense candidates cached per query, best by plain cosine (the engine reads its first `candidates`). */
const DENSE_KEPT = 200;

/** What the cache holds of a case: the boundary fields and named count are computed from the skills at load, so a parser change needs no re-ranking. */
type Ranked = Omit<RankingCase, 'boundaryTerms' | 'instead' | 'kind' | 'namedCount'>;
type Cached = Omit<Ranked, 'query'> & { query: Omit<QueryEvidence, 'terms'> & { terms: string[] } };

/** The kind of the catalogue `skills` (`catalogKind` over their lexical field lengths, as the engine reads it). */
export function suiteKind(skills: readonly Skill[]): CatalogKind {
  return catalogKind(skills.flatMap((skill) => lexicalEntry(skill).lengths));
}

/** Adds the catalogue's kind, the skills each query (`texts`, by id) names, and each candidate's boundary evidence (`boundaries.ts`) against the catalog `skills`. */
function boundariesFor(skills: readonly Skill[], texts: ReadonlyMap<string, string>): (c: Ranked) => RankingCase {
  const kind = suiteKind(skills);
  const byId = new Map(skills.map((skill) => [skill.id, skill]));
  const byName = new Map<string, string[]>();
  for (const skill of skills) byName.set(normalizeName(skill.name), [...(byName.get(normalizeName(skill.name)) ?? []), skill.id]);
  return (c) => {
    const ids = c.candidates.map((hit) => hit.id);
    const boundaries = ids.map((id) => {
      const skill = byId.get(id);
      return skill === undefined ? undefined : boundaryOf(skill);
    });
    const text = texts.get(c.id);
    return {
      ...c,
      kind,
      namedCount: text === undefined ? Number(c.named) : findNamedSkills(text, (name) => byName.get(name)).length,
      boundaryTerms: boundaries.map((boundary) => (boundary === undefined ? 0 : boundaryHits(boundary, c.query.terms))),
      instead: boundaries.map((boundary) =>
        (boundary?.instead ?? []).flatMap((other) => (byName.get(other) ?? []).map((id) => ids.indexOf(id)).filter((i) => i >= 0)),
      ),
    };
  };
}

/** Every case of `suites` × `splits` (labelled queries sampled to `sample` per split), from the cache when present. */
export async function rankingCases(suites: readonly SuiteName[], splits: readonly Split[], sample: number, model = 'use-lite'): Promise<RankingCase[]> {
  const base = resolveEmbedder(model);
  const cases: RankingCase[] = [];
  for (const name of suites) {
    for (const split of splits) {
      // v2: every lexical match kept (v1 cut the list at 200, dropping some); v3: IDF-weighted coverage and rarest word per match.
      const file = join(CACHE, `${name}-${split}-${sample}-${model}-v3.json`);
      const suite = await loadSuite(name, { splits: [split], sample });
      if (suite === undefined) continue;
      const withBoundaries = boundariesFor(suite.skills, new Map(suite.queries.map((query) => [query.id, query.query])));
      if (existsSync(file)) {
        const raw = JSON.parse(readFileSync(file, 'utf8')) as Cached[];
        cases.push(...raw.map((c) => withBoundaries({ ...c, query: { ...c.query, terms: new Set(c.query.terms) } })));
        continue;
      }
      const embedder = rememberVectors(base, queryVectorsFile(base));
      const engine = await SkillSearchEngine.open({
        embedder,
        indexDir: evalIndexDir(catalogOf(name), base),
        queryCacheSize: 0,
        keepLexical: 0,
        coverageShare: 0,
        lexicalEvidence: { margin: 0 },
        boundaries: { penalty: 0, insteadBoost: 0 },
        evidenceRerank: false,
      });
      await engine.sync(suite.skills);
      const byId = new Map(suite.skills.map((skill) => [skill.id, skill]));
      const fresh: Ranked[] = [];
      for (const query of suite.queries) {
        // Every candidate ranked (a list cut at k would drop lexical matches whose dense side is
        // weak, and with them the engine's dense min-max and lexical ranks), then BM25's matches
        // and the best `DENSE_KEPT` by plain cosine cached.
        const { ranked: all, exact } = await engine.rank(query.query, { mode: 'hybrid', k: suite.skills.length + ENGINE_DEFAULTS.candidates });
        const densest = new Set(
          [...all.ranked]
            .sort((a, b) => plainOf(b) - plainOf(a))
            .slice(0, DENSE_KEPT)
            .map((hit) => hit.id),
        );
        const ranked = { ...all, ranked: all.ranked.filter((hit) => (hit.lexical ?? 0) > 0 || densest.has(hit.id)) };
        const wanted = new Set(query.relevant);
        const isRelevant = (id: string): boolean => wanted.has(id) || wanted.has(byId.get(id)?.name ?? '');
        const ids = ranked.ranked.map((hit) => hit.id);
        fresh.push({
          suite: name,
          split,
          id: query.id,
          answerable: query.relevant.length > 0,
          named: exact.length > 0,
          namedRelevant: exact.some(isRelevant),
          candidates: ranked.ranked,
          query: ranked.query,
          labels: ids.map(isRelevant),
        });
      }
      embedder.save();
      await engine.close();
      mkdirSync(CACHE, { recursive: true });
      writeFileSync(file, JSON.stringify(fresh.map((c) => ({ ...c, query: { ...c.query, terms: [...c.query.terms] } }))));
      console.error(`${name} ${split}: ${fresh.length} queries ranked`);
      cases.push(...fresh.map(withBoundaries));
    }
  }
  return cases;
}

export type Reordering = Pick<FusionParameters, 'denseShare' | 'coverageShare' | 'lexicalEvidence' | 'boundaries'> & {
  /** The long-query ramp per catalogue kind (`EngineOptions.longQuery`); each case takes its own kind's. */
  readonly longQuery: LongQueryByKind;
  /** Whether the centred cosine orders the dense side (`EngineOptions.centring`); false: the plain one. */
  readonly centring: boolean;
  /** The evidence re-ranker (`rerank.ts`), or one per catalogue kind (each case takes its own), applied before the boundaries; none when absent. */
  readonly rerank?: RerankModel | Readonly<Record<CatalogKind, RerankModel>>;
};

export const HAND_SET: Reordering = {
  denseShare: ENGINE_DEFAULTS.denseShare,
  longQuery: ENGINE_DEFAULTS.longQuery,
  coverageShare: 0,
  lexicalEvidence: { margin: 0, coverage: 0, denseShare: ENGINE_DEFAULTS.denseShare, keepAbove: false },
  boundaries: { penalty: 0, insteadBoost: 0 },
  centring: true,
};

/** The engine's fusion before the evidence re-ranker: the hand-set formula with its boundary weights. */
export const ENGINE_FUSION: Reordering = { ...HAND_SET, boundaries: ENGINE_DEFAULTS.boundaries };

/**
 * The case's candidates in the order the engine gives them under `params` (ordering scores
 * replaced), as `candidates.ts` computes it; the lexical guard is left out (it moves hits only
 * below the first ten).
 */
export function reorder(c: RankingCase, params: Reordering): RankedEvidence[] {
  const orders = fusedOrders(c, params);
  const rerank = params.rerank === undefined || 'depth' in params.rerank ? params.rerank : params.rerank[c.kind];
  if (rerank !== undefined && rerank.depth > 0) rerankOrders(c, orders, rerank);
  replayBoundaries(c, orders, params.boundaries);
  const index = c.candidates.map((_, i) => i).sort((a, b) => orders[b]! - orders[a]! || a - b);
  return index.map((i) => ({ ...c.candidates[i]!, order: orders[i]! }));
}

/** The fused ordering score of each of the case's candidates (its indexing), before the re-ranker and boundaries. */
export function fusedOrders(c: RankingCase, params: Reordering): number[] {
  const hits = c.candidates;
  const lexical = hits
    .filter((hit) => (hit.lexical ?? 0) > 0)
    .map((hit) => ({ score: hit.lexical!, coverage: hit.coverage ?? 0 }))
    .sort((a, b) => b.score - a.score);
  const ramp = { denseShare: params.denseShare, longQuery: params.longQuery[c.kind] };
  const share = lexicalEvidenceShare(denseShareFor(c.query.terms.size, ramp), lexical, params.lexicalEvidence);
  // BM25 relative to its best match, a named skill among them (the engine fuses before it leaves the named skills out; the cache lacks them).
  const best = Math.max(lexical[0]?.score ?? 0, c.query.bestLexical ?? 0);
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  const denseOf = (hit: RankedEvidence): number => denseOrder({ centered: hit.centered ?? 0, plain: plainOf(hit) }, params.centring);
  for (const hit of hits) {
    min = Math.min(min, denseOf(hit));
    max = Math.max(max, denseOf(hit));
  }
  const span = max - min;
  const orders = hits.map((hit) => {
    const dense = span > 0 ? (denseOf(hit) - min) / span : 1;
    const lex = (hit.lexical ?? 0) > 0 && best > 0 ? hit.lexical! / best : 0;
    const coverage = (hit.lexical ?? 0) > 0 ? (hit.coverage ?? 0) : 0;
    return (1 - params.coverageShare) * (share * dense + (1 - share) * lex) + params.coverageShare * coverage;
  });
  const first = hits.findIndex((hit) => (hit.lexical ?? 0) > 0 && hit.lexical === best);
  if (params.lexicalEvidence.keepAbove && first >= 0 && clearLexicalFirst(lexical, params.lexicalEvidence)) {
    keepClearFirstAbove(
      orders,
      hits.map((hit) => ((hit.lexical ?? 0) > 0 ? (hit.coverage ?? 0) : 0)),
      first,
    );
  }
  return orders;
}

/** The case's candidates as the re-ranker reads them, with `orders` as their ordering scores. */
export function rerankInput(c: RankingCase, orders: readonly number[]): RerankCandidate[] {
  return c.candidates.map((hit, i) => ({
    name: hit.name,
    order: orders[i]!,
    centered: hit.centered ?? 0,
    plain: plainOf(hit),
    lexical: hit.lexical ?? 0,
    coverage: hit.coverage ?? 0,
    weightedCoverage: hit.weightedCoverage ?? 0,
    rarest: hit.rarest ?? 0,
  }));
}

/** `orders` after the evidence re-ranker (`rerank.ts`), in place. */
export function rerankOrders(c: RankingCase, orders: number[], model: RerankModel): void {
  rerankedOrders(rerankInput(c, orders), c.query.terms, model).forEach((order, i) => {
    orders[i] = order;
  });
}

/** `orders` after the candidates' boundaries (`candidates.ts`' arithmetic), in place. */
export function replayBoundaries(c: RankingCase, orders: number[], { penalty, insteadBoost }: Reordering['boundaries']): void {
  if (penalty <= 0 && insteadBoost <= 0) return;
  const raised = new Map<number, number>();
  const top = new Set(
    orders
      .map((_, i) => i)
      .sort((a, b) => orders[b]! - orders[a]! || a - b)
      .slice(0, BOUNDARY_DEPTH),
  );
  c.boundaryTerms.forEach((terms, i) => {
    if (terms === 0 || !top.has(i)) return;
    orders[i] = boundedScore(orders[i]!, terms, penalty);
    for (const other of c.instead[i]!) if (other !== i) raised.set(other, Math.max(raised.get(other) ?? 0, terms));
  });
  for (const [i, terms] of raised) orders[i] = liftedScore(orders[i]!, terms, insteadBoost);
}

/** Labels in the order `reorder` gives. */
export function reorderedLabels(c: RankingCase, ranked: readonly RankedEvidence[]): boolean[] {
  const label = new Map(c.candidates.map((hit, i) => [hit.id, c.labels[i]!]));
  return ranked.map((hit) => label.get(hit.id) ?? false);
}

export interface RankMetrics {
  readonly n: number;
  readonly hit1: number;
  readonly hit5: number;
  readonly mrr: number;
}

/** Ranked-view hit@1, hit@5 and MRR of answerable cases under `params` (a named relevant skill counts as first). */
export function rankMetrics(cases: readonly RankingCase[], params: Reordering): RankMetrics {
  return metricsOf(cases, (c) => reorderedLabels(c, reorder(c, params)).indexOf(true));
}

/**
 * Hit@1, hit@5 and MRR of answerable cases, given where each puts its first relevant candidate (−1: nowhere), as the
 * engine's ranked list reads: a named relevant skill counts as first; a named skill that is not relevant takes the first
 * place(s) and the ranked candidates follow it (docs/retrieval.md, "The fit's replay against the engine").
 */
export function metricsOf(cases: readonly RankingCase[], firstRelevant: (c: RankingCase) => number): RankMetrics {
  let hit1 = 0;
  let hit5 = 0;
  let mrr = 0;
  let n = 0;
  for (const c of cases) {
    if (!c.answerable) continue;
    n += 1;
    const first = c.namedRelevant ? 0 : placeAfterNamed(c, firstRelevant(c));
    if (first === 0) hit1 += 1;
    if (first >= 0 && first < 5) hit5 += 1;
    if (first >= 0) mrr += 1 / (first + 1);
  }
  const d = Math.max(1, n);
  return { n, hit1: hit1 / d, hit5: hit5 / d, mrr: mrr / d };
}

/** A ranked candidate's place in the engine's list, below the skills the query names (−1 stays −1). */
export function placeAfterNamed(c: Pick<RankingCase, 'named' | 'namedCount'>, place: number): number {
  return place < 0 || !c.named ? place : place + Math.max(1, c.namedCount);
}

/** A cached candidate's best plain cosine (caches written before it was recorded: the whole message's). */
export function plainOf(hit: RankedEvidence): number {
  return hit.plain ?? hit.cosine ?? 0;
}

/**
 * The case as the engine ranks it with `candidates` dense and lexical candidates (the cache keeps
 * the 200 best by plain cosine and every BM25 match): BM25's matches plus the `candidates` best by plain cosine (the vector
 * index finds dense candidates by it, whatever orders them), so the dense min-max and ranks are
 * close to the engine's.
 */
export function asEngineSees(c: RankingCase, candidates = ENGINE_DEFAULTS.candidates): RankingCase {
  const byPlain = c.candidates.map((_, i) => i).sort((a, b) => plainOf(c.candidates[b]!) - plainOf(c.candidates[a]!) || a - b);
  const dense = new Set(byPlain.slice(0, candidates));
  const keep = c.candidates.map((hit, i) => (hit.lexical ?? 0) > 0 || dense.has(i));
  const index = new Map<number, number>();
  keep.forEach((kept, i) => {
    if (kept) index.set(i, index.size);
  });
  const pick = <T>(values: readonly T[]): T[] => values.filter((_, i) => keep[i]);
  return {
    ...c,
    candidates: pick(c.candidates),
    labels: pick(c.labels),
    boundaryTerms: pick(c.boundaryTerms),
    instead: pick(c.instead).map((others) => others.flatMap((other) => (index.has(other) ? [index.get(other)!] : []))),
  };
}
