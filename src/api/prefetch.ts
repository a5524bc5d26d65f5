/** `skill-search/prefetch`: background skill discovery for an agent loop; loads no dependency. Bring your own `SkillSearcher`. */
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
