// Public API: an explicit list. Each stage adds its exports here.
export * from './types.js';
export { SkillSearchError, isAbortError } from './errors.js';
