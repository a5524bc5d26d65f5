import { detectLanguage, type Language } from '../lang/detect.js';
import { scoreRankings, type QueryOutcome } from './metrics.js';
import { getOrAdd } from '../util/get-or-add.js';

/** Ranking scores of the labelled queries written in one language. */
export interface LanguageScores {
  /** Labelled queries in this language (the denominator). */
  readonly queries: number;
  readonly hitAt1: number;
  readonly hitAt5: number;
  readonly mrr: number;
}

const round = (value: number): number => Number(value.toFixed(4));

/** `eval`'s `byLanguage` block: the queries grouped by `detectLanguage`, each group with labelled queries scored like the whole set. */
export function scoreByLanguage(runs: readonly { readonly query: string; readonly outcome: QueryOutcome }[]): Partial<Record<Language, LanguageScores>> {
  const groups = new Map<Language, QueryOutcome[]>();
  for (const { query, outcome } of runs) {
    getOrAdd(groups, detectLanguage(query), () => []).push(outcome);
  }
  const out: Partial<Record<Language, LanguageScores>> = {};
  for (const [language, outcomes] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const scores = scoreRankings(outcomes);
    if (scores.labelled === 0) continue;
    out[language] = { queries: scores.labelled, hitAt1: round(scores.hitAt1), hitAt5: round(scores.hitAt5), mrr: round(scores.mrr) };
  }
  return out;
}
