export { isExperimentalSkillSearch, listingSkills } from './experimental.js';
export { SkillPrefetcher } from './prefetcher.js';
