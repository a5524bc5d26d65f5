export { readEvalQueries } from './queries.js';
export type { EvalQuery } from './queries.js';
export { runEval } from './run.js';
export { blankExplainer } from './explain.js';
export type { EvalReport, EvalOptions, QueryRecord } from './run.js';
export { percentile, relevantRanks, scoreRankings, scoreShown } from './metrics.js';
export type { RankedItem, QueryOutcome, RankingScores, ShownScores } from './metrics.js';
export { scoreByLanguage } from './languages.js';
export type { LanguageScores } from './languages.js';
