/** `skill-search/search`: the hybrid engine, `LiveIndex` (an engine kept in step with a catalog), query routing for other languages, and the evaluation. */
export { SkillSearchEngine, type EngineInfo, type EngineOptions, type SyncOptions, type SyncResult } from '../search/index.js';
export type { EntryStore } from '../store/entry-store.js';
export { withoutLoneCompanions } from '../search/companions.js';
export { LiveIndex, type LiveIndexOptions, type RefreshOptions, type RefreshResult, type SnapshotSearch } from '../integrations/live-index.js';
export {
  ABSTAIN_LEVELS,
  SEARCH_MODES,
  type AbstainLevel,
  type AbstainSetting,
  type SearchHit,
  type SearchMode,
  type SearchRequest,
  type Skill,
  type SkillSearcher,
} from '../types.js';
export { CrossLingual, type CrossLingualOptions, type RoutedQuery } from '../lang/cross-lingual.js';
export { detectLanguage, type Language } from '../lang/detect.js';
export { readEvalQueries, type EvalQuery } from '../eval/queries.js';
export { runEval, type EvalOptions, type EvalReport, type QueryRecord } from '../eval/run.js';
export { ERROR_CODES, SkillSearchError, isAbortError, type ErrorCode } from '../errors.js';
