export {
  EXPERIMENTAL_LISTED_SOURCES,
  EXPERIMENTAL_SKILL_SEARCH_ENV,
  isExperimentalSkillSearch,
  listingSkills,
} from './experimental.js';
export { linkAbortSignal } from '../util/link-signal.js';
export {
  PrefetchHandle,
  SkillPrefetcher,
  resolvePrefetcherOptions,
  type PrefetchState,
  type PrefetchTiming,
  type PrefetchTurn,
  type SkillPrefetcherOptions,
} from './prefetcher.js';
