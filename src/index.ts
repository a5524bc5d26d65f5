// Public API: an explicit list, one barrel per stage of the pipeline
// (load → embed → index → search → prefetch/attachments → integrations).
export * from './types.js';
export { SkillSearchError, isAbortError, abortError, throwIfAborted } from './errors.js';
