export { MODEL_PRESETS, findPreset, presetIds } from './presets.js';
export type { ModelPreset, Pooling } from './presets.js';
export { pullModel } from './pull.js';
export type { PullOptions, PullProgress, PullResult } from './pull.js';
export { installFromFolder } from './install-from-folder.js';
export type { InstallFromFolderOptions } from './install-from-folder.js';
export { installState, removeModel, MANIFEST_FILE as MODEL_MANIFEST_FILE } from './store.js';
export type { InstallState, ModelManifest, ManifestFile } from './store.js';
export { modelsRoot, hubEndpoint, DEFAULT_HF_ENDPOINT, HF_ENDPOINT_ENV } from './paths.js';
