/** `skill-search/embed`: text → vectors; `resolveEmbedder()` picks the bundled USE-lite encoder or a model by id; `pullModel` installs a preset. */
export { DEFAULT_MODELS_DIR, resolveEmbedder, type ResolveEmbedderOptions } from '../embed/resolve.js';
export { createHashEmbedder, type HashEmbedderOptions } from '../embed/hash-embedder.js';
export { USE_LITE_ID, createUseLiteEmbedder } from '../embed/use-lite.js';
export { createTransformersEmbedder, type TransformersEmbedderOptions } from '../embed/transformers.js';
export { MODEL_PRESETS, findPreset, presetIds, type ModelPreset, type Pooling } from '../model-store/presets.js';
export { pullModel, type PullOptions, type PullProgress, type PullResult } from '../model-store/pull.js';
export { installFromFolder, type InstallFromFolderOptions } from '../model-store/pull.js';
export type { EmbedKind, Embedder } from '../types.js';
export { ERROR_CODES, SkillSearchError, isAbortError, type ErrorCode } from '../errors.js';
