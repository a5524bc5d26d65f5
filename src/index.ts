// Public API: an explicit list, one barrel per stage of the pipeline
// (load → embed (+ model-store: downloadable encoders) → index → search → prefetch/attachments → integrations).
export * from './types.js';
export { SkillSearchError, isAbortError, abortError, throwIfAborted } from './errors.js';
export * from './load/index.js';
export * from './embed/index.js';
export * from './model-store/index.js';
export * from './vector-index/index.js';
export * from './lexical/index.js';
export * from './search/index.js';
export { CrossLingual, detectLanguage, type CrossLingualOptions, type Language, type RoutedQuery } from './lang/index.js';
export * from './eval/index.js';
export * from './attachments/index.js';
export * from './prefetch/index.js';
export * from './integrations/index.js';
export { main, type CliIo } from './cli/index.js';
