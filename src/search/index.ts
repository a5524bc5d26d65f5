export { SkillSearchEngine } from './engine.js';
export type { SyncOptions, SyncResult, EngineInfo } from './engine.js';
export { resolveEngineOptions, ENGINE_DEFAULTS, FUSIONS } from './options.js';
export type { EngineOptions, ResolvedEngineOptions, Fusion } from './options.js';
export { findNamedSkills, normalizeName } from './exact-name.js';
export { embeddingText, humanizeName, EMBEDDING_TEXT_VERSION } from './skill-text.js';
export { readEvalQueries, runEval, scoreRankings, scoreSuggestions, relevantRanks } from './eval.js';
export type { EvalQuery, EvalReport, EvalOptions, RankedItem, QueryOutcome, RankingScores, SuggestionScores } from './eval.js';
