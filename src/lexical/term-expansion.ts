/** Which indexed terms a query word reaches (itself, the longer terms it starts, those within its edit distance), and how much each counts. */
import type { QueryTerm } from './lexical-query.js';
import type { PostingsSource, TermPostings } from './postings-source.js';

/** MiniSearch's weights for prefix and typo matches and its largest edit distance (its defaults, which the ranking was tuned with). */
export const PREFIX_WEIGHT = 0.375;
export const FUZZY_WEIGHT = 0.45;
export const MAX_FUZZY = 6;

/** An indexed term a query word reached, and how much its matches count. */
export interface DerivedTerm {
  readonly term: string;
  readonly weight: number;
  readonly handle: TermPostings;
}

/** The indexed terms `query` reaches, in MiniSearch's order: itself, then longer terms it starts, then terms within its edit distance. */
export function derivedTerms(source: PostingsSource, query: QueryTerm): DerivedTerm[] {
  const derived: DerivedTerm[] = [];
  const exact = source.exact(query.term);
  if (exact !== undefined) derived.push({ term: query.term, weight: 1, handle: exact });
  if (query.prefix) {
    for (const [term, handle] of source.prefixed(query.term)) {
      const distance = term.length - query.term.length;
      if (distance === 0) continue;
      derived.push({ term, weight: (PREFIX_WEIGHT * term.length) / (term.length + 0.3 * distance), handle });
    }
  }
  if (query.fuzzy !== false) {
    const fuzzy = query.fuzzy;
    const maxDistance = fuzzy < 1 ? Math.min(MAX_FUZZY, Math.round(query.term.length * fuzzy)) : fuzzy;
    if (maxDistance > 0) {
      for (const { term, handle, distance } of source.near(query.term, maxDistance)) {
        if (distance === 0) continue;
        // A term the word starts was already counted as a prefix match.
        if (query.prefix && term.length > query.term.length && term.startsWith(query.term)) continue;
        derived.push({ term, weight: (FUZZY_WEIGHT * term.length) / (term.length + distance), handle });
      }
    }
  }
  return derived;
}
