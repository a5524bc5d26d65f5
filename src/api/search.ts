/**
 * `skill-search/search`: the hybrid (lexical + dense) engine over a set of skills, and
 * `LiveIndex`, which keeps a persistent engine in step with a catalog.
 */
export { SkillSearchEngine, type EngineInfo, type EngineOptions, type SyncOptions, type SyncResult } from '../search/index.js';
export { LiveIndex, type LiveIndexOptions, type RefreshOptions, type RefreshResult } from '../integrations/live-index.js';
export { SEARCH_MODES, type SearchHit, type SearchMode, type SearchRequest, type Skill, type SkillSearcher } from '../types.js';
export { ERROR_CODES, SkillSearchError, isAbortError, type ErrorCode } from '../errors.js';
