export { SkillSearchEngine } from './engine.js';
export type { SyncOptions, SyncResult, EngineInfo, SnapshotCatalog } from './engine.js';
export { ENGINE_DEFAULTS } from './options.js';
export type { EngineOptions, EngineKnobs } from './options.js';
export { embeddingText } from './skill-text.js';
