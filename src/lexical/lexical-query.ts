import { LEXICAL_DEFAULTS, type FieldBoosts, type FuzzyOptions } from './options.js';
import { LEXICAL_FIELDS, type LexicalField } from '../types.js';
import { tokenize } from './tokenize.js';

/** One word of a query as MiniSearch's `termToQuerySpec` would build it. */
export interface QueryTerm {
  readonly term: string;
  /** Also match longer indexed terms this one starts. */
  readonly prefix: boolean;
  /** Edits allowed as a share of the length (< 1) or a count (≥ 1); false for none. */
  readonly fuzzy: number | false;
  /** Multiplies the term's contribution (a gloss's weight); 1 for plain queries. */
  readonly boost: number;
}

/** A field searched, with its BM25 weight. */
export interface SearchedField {
  readonly name: string;
  readonly boost: number;
}

export interface ScoredDocument {
  readonly id: string;
  /** MiniSearch's score: the BM25+ sum times the number of distinct query terms matched. */
  readonly score: number;
  /** The distinct query terms this document matched (MiniSearch's `queryTerms`), in query order. */
  readonly queryTerms: readonly string[];
  /** {@link LexicalMatch.weightedCoverage}. */
  readonly weightedCoverage: number;
  /** {@link LexicalMatch.rarest}. */
  readonly rarest: number;
  /** Matched index term → the fields it was found in, built like MiniSearch's `match` (only when asked). */
  readonly match?: Record<string, string[]>;
}

/** One lexical match. `coverage` (0–1) is the share of distinct query terms that matched. */
export interface LexicalMatch {
  readonly id: string;
  /** Raw BM25+ score (MiniSearch's formula; unbounded; comparable only within one query). */
  readonly score: number;
  readonly coverage: number;
  /**
   * The share of the query's words it matched, each weighted by its inverse document frequency
   * (`ln(1 + (N − n + 0.5) / (n + 0.5))`, words that reach no document left out): one common
   * word shared scores low.
   */
  readonly weightedCoverage?: number;
  /** Its rarest matched word's inverse document frequency relative to the query's rarest word the index has (0–1). */
  readonly rarest?: number;
  /** Index terms matched per field (only with `LexicalSearchOptions.explain`). */
  readonly fields?: { readonly [field in LexicalField]?: readonly string[] };
}

/**
 * Query terms in groups, such as the glosses of one translated word: `weights` (default 1) scale
 * each term's BM25 contribution; `coverage` counts groups, matched when any of its terms is.
 */
export interface GroupedTerms {
  readonly weights: ReadonlyMap<string, number>;
  readonly groups: readonly (readonly string[])[];
}

/** How one lexical search runs; each field defaults to `LEXICAL_DEFAULTS`. */
export interface LexicalSearchOptions {
  /** BM25 weight per field (0 leaves a field out); see `EngineOptions.fieldBoosts`. */
  readonly boost?: FieldBoosts;
  /** Typo tolerance for words the catalog does not have; see `EngineOptions.fuzzy`. */
  readonly fuzzy?: FuzzyOptions;
  /** See `EngineOptions.prefixMinLength`. */
  readonly prefixMinLength?: number;
  /** Grouped, weighted query terms (a translated request); see {@link GroupedTerms}. */
  readonly terms?: GroupedTerms;
  /** Report the terms matched in each field ({@link LexicalMatch.fields}). @default false */
  readonly explain?: boolean;
}

/** What searching a lexical index needs: `LexicalIndex`, or a saved catalog's searcher over the store's tables (`openCatalogLexical`). */
export interface LexicalSearcher {
  readonly size: number;
  search(query: string, limit: number, options?: LexicalSearchOptions): LexicalMatch[];
}

/** The scorer's per-result `match` (matched index term → fields) turned into field → terms, fields in {@link LEXICAL_FIELDS} order. */
function termsByField(match: Readonly<Record<string, readonly string[]>>): { [field in LexicalField]?: string[] } {
  const found = new Map<string, string[]>();
  for (const [term, where] of Object.entries(match)) {
    for (const field of where) found.set(field, [...(found.get(field) ?? []), term]);
  }
  const fields: { [field in LexicalField]?: string[] } = {};
  for (const field of LEXICAL_FIELDS) {
    const terms = found.get(field);
    if (terms !== undefined) fields[field] = terms;
  }
  return fields;
}

/** What {@link searchLexical} needs of an index (`Bm25Scorer`). */
export interface LexicalScoring {
  readonly size: number;
  /** True when `term` is in the index vocabulary. */
  has(term: string): boolean;
  score(terms: readonly QueryTerm[], fields: readonly SearchedField[], limit: number, explain: boolean): ScoredDocument[];
}

/** One lexical search: the query tokenised, each word's expansions chosen, the scores turned into matches with their coverage; at most `limit`, best first. */
export function searchLexical(index: LexicalScoring, query: string, limit: number, options: LexicalSearchOptions = {}): LexicalMatch[] {
  const {
    boost = LEXICAL_DEFAULTS.fieldBoosts,
    fuzzy = LEXICAL_DEFAULTS.fuzzy,
    prefixMinLength = LEXICAL_DEFAULTS.prefixMinLength,
    terms,
    explain = false,
  } = options;
  const words = tokenize(query);
  if (words.length === 0 || index.size === 0) return [];
  const fields = (Object.keys(boost) as (keyof FieldBoosts)[]).filter((field) => boost[field] > 0).map((name) => ({ name, boost: boost[name] }));
  const grouped = terms !== undefined && terms.groups.length > 0 ? terms : undefined;
  const queryTerms: QueryTerm[] = words.map((term) => ({
    term,
    prefix: term.length >= prefixMinLength,
    // Typo tolerance only for words the catalog does not have (docs/retrieval.md); dictionary glosses are spelled right.
    fuzzy: grouped === undefined && term.length >= fuzzy.minLength && !index.has(term) ? fuzzy.ratio : false,
    boost: grouped?.weights.get(term) ?? 1,
  }));
  const scored = index.score(queryTerms, fields, limit, explain);
  const distinct = new Set(words);
  return scored.map((result) => {
    const matched = new Set(result.queryTerms);
    const coverage =
      grouped === undefined
        ? result.queryTerms.filter((term) => distinct.has(term)).length / distinct.size
        : grouped.groups.filter((group) => group.some((term) => matched.has(term))).length / grouped.groups.length;
    const match = { id: result.id, score: result.score, coverage, weightedCoverage: result.weightedCoverage, rarest: result.rarest };
    return explain && result.match !== undefined ? { ...match, fields: termsByField(result.match) } : match;
  });
}
