export { readEvalQueries, type EvalQuery } from './queries.js';
export { runEval, type EvalReport, type EvalOptions, type QueryRecord } from './run.js';
export { blankExplainer } from './explain.js';
export { percentile, relevantRanks, scoreRankings, type RankedItem } from './metrics.js';
