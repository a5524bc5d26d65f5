import type { FieldBoosts, FuzzyOptions } from './options.js';
import type { LexicalField } from '../types.js';

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
  /** Each document's length in each field (`PostingsSource.fieldLengths`): what the catalogue's kind is read from (`catalogKind`). */
  readonly fieldLengths: ArrayLike<number>;
  search(query: string, limit: number, options?: LexicalSearchOptions): LexicalMatch[];
}
