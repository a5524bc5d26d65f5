import bundled from './rerank-model.json' with { type: 'json' };
import { FIELD_COUNT, INDEXED_FIELDS } from '../lexical/lexical-entry.js';
import { linearScore, nameMatch, nameWords, shareIn, type LogisticModel, type RankedEvidence } from './relevance.js';

/**
 * Evidence re-ranking: the hybrid fusion's first candidates reordered by a small linear model of
 * how strong each one's lexical evidence is, so a skill the dense side likes for one shared common
 * word does not overtake a specific lexical match. Fitted by `scripts/fit-rerank.ts`; the model and
 * why a pool member takes its new place's score: docs/retrieval.md.
 */

/** What the re-ranker reads of one hybrid candidate (`order`: the fused ordering score, after boundaries). */
export type RerankCandidate = Required<Pick<RankedEvidence, 'name' | 'order' | 'centered' | 'plain' | 'lexical' | 'coverage'>> &
  Pick<RankedEvidence, 'weightedCoverage' | 'rarest'>;

/** Feature names; a model lists the ones it uses, in its weights' order. */
export const RERANK_FEATURES = {
  /** The dense side alone: centred cosine min-max over the query's candidates. */
  dense: 'dense',
  /** The dense side alone: plain cosine min-max over the query's candidates. */
  plain: 'plain',
  /** BM25 relative to the query's best. */
  lexical: 'lexical',
  /** Share of the query's terms the candidate matches. */
  coverage: 'coverage',
  /** ln(1 + query terms it matches). */
  matched: 'matched',
  /** BM25 per matched term squared, relative to the best such: how rare and well placed its matched words are. */
  perTerm: 'perTerm',
  /** Share of the candidate's name words the request contains. */
  name: 'name',
  /** `name` with each matched word weighted by 1 / how many of the query's candidates have it in their name. */
  nameSpecific: 'nameSpecific',
  /** ln of how many of the query's candidates have the matched name words in their names (mean over those words; 0 when none matched). */
  nameGeneric: 'nameGeneric',
  /** Request words (of three letters or more) found inside the candidate's name with its separators removed, at most two, halved: `deseq2` in `pydeseq2`. */
  nameTerm: 'nameTerm',
  /** 1 for BM25's first hit. */
  lexicalFirst: 'lexicalFirst',
  /** For BM25's first hit, ln(its score / the second's), at most ln 10; 0 for the others. */
  lexicalMargin: 'lexicalMargin',
  /** 1 / BM25 rank (0 when not matched). */
  lexicalRank: 'lexicalRank',
  /** 1 / dense rank among the candidates. */
  denseRank: 'denseRank',
  /** Its coverage minus the best coverage among the candidates (≤ 0). */
  coverageGap: 'coverageGap',
  /** 1 when BM25 did not match it. */
  denseOnly: 'denseOnly',
  /** Share of the query's words it matches, each weighted by its IDF over the catalog. */
  weighted: 'weighted',
  /** Its `weighted` minus the best among the candidates (≤ 0). */
  weightedGap: 'weightedGap',
  /** Its rarest matched word's IDF relative to the query's rarest word the catalog has. */
  rarest: 'rarest',
  /** For a candidate BM25 matched on one word only, how common that word is (1 − `rarest`); 0 otherwise. */
  singleCommon: 'singleCommon',
  /** Share of the request's words that are words of the candidate's name (the reverse of `name`). */
  nameCoverage: 'nameCoverage',
  /** 1 when the candidate is both BM25's first hit and the dense side's first: the two sides agree on it. */
  agree: 'agree',
} as const;
export type RerankFeature = keyof typeof RERANK_FEATURES;

/** A fitted re-ranker, as `rerank-model.json` holds it: a linear model over {@link rerankRows}' features. */
export interface RerankModel extends Pick<LogisticModel, 'mean' | 'scale' | 'weights'> {
  readonly version: number;
  readonly provenance: Readonly<Record<string, unknown>>;
  /** How many of the fused list's first candidates are reordered (0: none). */
  readonly depth: number;
  /** How many of BM25's first hits join them wherever the fused order put them. */
  readonly lexicalDepth: number;
  /** How many of the candidates with the highest `weightedCoverage` (BM25 breaking ties) join them too. Absent: 0. */
  readonly weightedDepth?: number;
  /**
   * Where the pool members the model puts after the first `depth` places go: true, right below
   * them; false or absent, to the places those BM25 hits came from, however far down.
   */
  readonly poolStaysTop?: boolean;
  /** How far (in model score) a challenger must lead the fused first candidate to take its place. Absent: 0. */
  readonly minLead?: number;
  readonly temperature: number;
  readonly features: readonly RerankFeature[];
}

const MAX_MARGIN = Math.log(10);

/** See {@link RERANK_FEATURES}.nameTerm. */
function nameTerms(name: string, terms: ReadonlySet<string>): number {
  const squashed = name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  let found = 0;
  for (const term of terms) if (term.length >= 3 && squashed.includes(term)) found += 1;
  return Math.min(2, found) / 2;
}

/** Per candidate, its name words the request contains weighed by how many candidates' names share them (see {@link RERANK_FEATURES}.nameSpecific, nameGeneric). */
function sharedNameWords(candidates: readonly RerankCandidate[], terms: ReadonlySet<string>): { specific: number; generic: number }[] {
  const words = candidates.map((c) => nameWords(c.name));
  const count = new Map<string, number>();
  for (const set of words) for (const word of set) if (terms.has(word)) count.set(word, (count.get(word) ?? 0) + 1);
  return words.map((set) => {
    let specific = 0;
    let shared = 0;
    let matched = 0;
    for (const word of set) {
      const n = count.get(word);
      if (n === undefined) continue;
      specific += 1 / n;
      shared += n;
      matched += 1;
    }
    return { specific: set.size === 0 ? 0 : specific / set.size, generic: matched === 0 ? 0 : Math.log(shared / matched) };
  });
}

/** The feature rows (in `names` order) of `candidates`, or with `only` of those indexes alone; values read the whole set either way. */
export function rerankRows(
  candidates: readonly RerankCandidate[],
  terms: ReadonlySet<string>,
  names: readonly RerankFeature[],
  only?: readonly number[],
): number[][] {
  let denseMin = Number.POSITIVE_INFINITY;
  let denseMax = Number.NEGATIVE_INFINITY;
  let plainMin = Number.POSITIVE_INFINITY;
  let plainMax = Number.NEGATIVE_INFINITY;
  let bestCoverage = 0;
  let bestWeighted = 0;
  for (const c of candidates) {
    denseMin = Math.min(denseMin, c.centered);
    denseMax = Math.max(denseMax, c.centered);
    plainMin = Math.min(plainMin, c.plain);
    plainMax = Math.max(plainMax, c.plain);
    if (c.lexical > 0) {
      bestCoverage = Math.max(bestCoverage, c.coverage);
      bestWeighted = Math.max(bestWeighted, c.weightedCoverage ?? 0);
    }
  }
  const span = denseMax - denseMin;
  const plainSpan = plainMax - plainMin;
  const byLexical = candidates.map((_, i) => i).filter((i) => candidates[i]!.lexical > 0);
  byLexical.sort((a, b) => candidates[b]!.lexical - candidates[a]!.lexical || a - b);
  const lexicalRank = new Map(byLexical.map((i, rank) => [i, rank + 1]));
  const byDense = candidates.map((_, i) => i).sort((a, b) => candidates[b]!.centered - candidates[a]!.centered || a - b);
  const denseRank = new Map(byDense.map((i, rank) => [i, rank + 1]));
  const best = byLexical[0] === undefined ? 0 : candidates[byLexical[0]]!.lexical;
  const second = byLexical[1] === undefined ? 0 : candidates[byLexical[1]]!.lexical;
  const matchedOf = (c: RerankCandidate): number => (c.lexical > 0 ? Math.max(1, Math.round(c.coverage * terms.size)) : 0);
  const perTermOf = (c: RerankCandidate): number => (c.lexical > 0 ? c.lexical / matchedOf(c) ** 2 : 0);
  const bestPerTerm = Math.max(0, ...candidates.map(perTermOf));
  const denseFirst = byDense[0];
  const shared = names.includes('nameSpecific') || names.includes('nameGeneric') ? sharedNameWords(candidates, terms) : undefined;
  return (only ?? candidates.map((_, i) => i)).map((i) => {
    const c = candidates[i]!;
    const matched = c.lexical > 0;
    const value: Record<RerankFeature, () => number> = {
      dense: () => (span > 0 ? (c.centered - denseMin) / span : 1),
      plain: () => (plainSpan > 0 ? (c.plain - plainMin) / plainSpan : 1),
      lexical: () => (matched && best > 0 ? c.lexical / best : 0),
      coverage: () => (matched ? c.coverage : 0),
      matched: () => Math.log1p(matchedOf(c)),
      perTerm: () => (bestPerTerm > 0 ? perTermOf(c) / bestPerTerm : 0),
      name: () => nameMatch(c.name, terms),
      nameSpecific: () => shared![i]!.specific,
      nameGeneric: () => shared![i]!.generic,
      nameTerm: () => nameTerms(c.name, terms),
      lexicalFirst: () => (lexicalRank.get(i) === 1 ? 1 : 0),
      lexicalMargin: () => (lexicalRank.get(i) === 1 ? (second > 0 ? Math.min(MAX_MARGIN, Math.log(best / second)) : MAX_MARGIN) : 0),
      lexicalRank: () => (matched ? 1 / lexicalRank.get(i)! : 0),
      denseRank: () => 1 / denseRank.get(i)!,
      coverageGap: () => (matched ? c.coverage : 0) - bestCoverage,
      denseOnly: () => (matched ? 0 : 1),
      weighted: () => (matched ? (c.weightedCoverage ?? 0) : 0),
      weightedGap: () => (matched ? (c.weightedCoverage ?? 0) : 0) - bestWeighted,
      rarest: () => (matched ? (c.rarest ?? 0) : 0),
      singleCommon: () => (matched && matchedOf(c) === 1 ? 1 - (c.rarest ?? 0) : 0),
      nameCoverage: () => shareIn(terms, nameWords(c.name)),
      agree: () => (lexicalRank.get(i) === 1 && denseFirst === i ? 1 : 0),
    };
    return names.map((name) => value[name]());
  });
}

/** The candidates (indexes) the model reorders, in fused order: see {@link RerankModel} depth, lexicalDepth and weightedDepth. */
export function rerankPool(
  candidates: readonly Pick<RerankCandidate, 'order' | 'lexical' | 'weightedCoverage'>[],
  model: Pick<RerankModel, 'depth' | 'lexicalDepth' | 'weightedDepth'>,
): number[] {
  const byOrder = candidates.map((_, i) => i).sort((a, b) => candidates[b]!.order - candidates[a]!.order || a - b);
  const pool = new Set(byOrder.slice(0, model.depth));
  const matched = byOrder.filter((i) => candidates[i]!.lexical > 0);
  const lexical = (i: number): number => candidates[i]!.lexical;
  if (model.lexicalDepth > 0) for (const i of [...matched].sort((a, b) => lexical(b) - lexical(a) || a - b).slice(0, model.lexicalDepth)) pool.add(i);
  const weightedDepth = model.weightedDepth ?? 0;
  if (weightedDepth > 0) {
    const weighted = (i: number): number => candidates[i]!.weightedCoverage ?? 0;
    for (const i of [...matched].sort((a, b) => weighted(b) - weighted(a) || lexical(b) - lexical(a) || a - b).slice(0, weightedDepth)) pool.add(i);
  }
  return byOrder.filter((i) => pool.has(i));
}

/**
 * The ordering scores after re-ranking (same indexing as `candidates`): the pool ({@link rerankPool})
 * is sorted by the model's score and given, best first, the ordering scores of its places; the rest
 * keep theirs. Ties keep the fused order.
 */
export function rerankedOrders(
  candidates: readonly RerankCandidate[],
  terms: ReadonlySet<string>,
  model: RerankModel,
  /** The model's feature rows of `candidates`, when the caller has them (fits replaying many models). */
  rowsOf?: () => readonly (readonly number[])[],
): number[] {
  const orders = candidates.map((c) => c.order);
  if (model.depth < 1 || model.depth + model.lexicalDepth + (model.weightedDepth ?? 0) < 2 || candidates.length < 2) return orders;
  const top = rerankPool(candidates, model);
  // Only the pool's rows are read: computing them alone spares the rest's name features.
  const given = rowsOf?.();
  const rows = given === undefined ? rerankRows(candidates, terms, model.features, top) : top.map((i) => given[i]!);
  const scores = new Map(top.map((i, place) => [i, linearScore(model, model.temperature * orders[i]!, rows[place]!)]));
  const lastPlace = model.poolStaysTop === true ? model.depth - 1 : top.length - 1;
  const places = top.map((_, place) => orders[top[Math.min(place, lastPlace)]!]!);
  const reordered = [...top].sort((a, b) => scores.get(b)! - scores.get(a)! || top.indexOf(a) - top.indexOf(b));
  // The fused first keeps its place unless the challenger leads it by `minLead`.
  const fusedFirst = top[0]!;
  if (reordered[0] !== fusedFirst && scores.get(reordered[0]!)! - scores.get(fusedFirst)! < (model.minLead ?? 0)) {
    reordered.splice(reordered.indexOf(fusedFirst), 1);
    reordered.unshift(fusedFirst);
  }
  // Places that tie get apart by a hair, so any later sort keeps the re-ranker's order.
  let previous = Number.POSITIVE_INFINITY;
  reordered.forEach((i, place) => {
    orders[i] = Math.min(places[place]!, previous - 1e-12);
    previous = orders[i]!;
  });
  return orders;
}

/** What a catalogue's documents read as, which picks its re-ranker: SKILL.md skills, or short API tool lines. */
export const CATALOG_KINDS = ['skills', 'tools'] as const;
export type CatalogKind = (typeof CATALOG_KINDS)[number];

/** Distinct description terms from which a document without a body still reads as a SKILL.md skill. */
const SKILL_DESCRIPTION_TERMS = 12;
const BODY = INDEXED_FIELDS.indexOf('body');
const DESCRIPTION = INDEXED_FIELDS.indexOf('description');

/**
 * A catalogue's kind from its lexical field lengths (`PostingsSource.fieldLengths`): `skills` when at least half its
 * documents have a body or a description of {@link SKILL_DESCRIPTION_TERMS} distinct terms, else `tools`; an empty
 * catalogue is `skills`. Removed documents' slots (every length 0) are not counted. Why: docs/retrieval.md, tenth round.
 */
export function catalogKind(fieldLengths: ArrayLike<number>): CatalogKind {
  let documents = 0;
  let skillLike = 0;
  for (let at = 0; at + FIELD_COUNT <= fieldLengths.length; at += FIELD_COUNT) {
    let live = false;
    for (let field = 0; field < FIELD_COUNT && !live; field += 1) live = fieldLengths[at + field]! > 0;
    if (!live) continue;
    documents += 1;
    if (fieldLengths[at + BODY]! > 0 || fieldLengths[at + DESCRIPTION]! >= SKILL_DESCRIPTION_TERMS) skillLike += 1;
  }
  return 2 * skillLike >= documents ? 'skills' : 'tools';
}

/** The models `scripts/fit-rerank.ts` fitted, one per catalogue kind, shipped with the package. */
export const BUNDLED_RERANKERS: Readonly<Record<CatalogKind, RerankModel>> = (bundled as unknown as { kinds: Record<CatalogKind, RerankModel> }).kinds;
