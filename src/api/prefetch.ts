/**
 * `skill-search/prefetch`: background skill discovery for an agent loop. Loads the prefetcher
 * alone (no dependency); bring your own `SkillSearcher` (the engine from `skill-search/search`, a
 * `SkillSocketClient`, or anything with a `search()`).
 */
export {
  PrefetchHandle,
  SkillPrefetcher,
  type PrefetchState,
  type PrefetchTiming,
  type PrefetchTurn,
  type SkillPrefetcherOptions,
} from '../prefetch/prefetcher.js';
export { EXPERIMENTAL_LISTED_SOURCES, EXPERIMENTAL_SKILL_SEARCH_ENV, isExperimentalSkillSearch, listingSkills } from '../prefetch/experimental.js';
export type { SearchHit, SearchRequest, Skill, SkillSearcher } from '../types.js';
export { ERROR_CODES, SkillSearchError, isAbortError, type ErrorCode } from '../errors.js';
