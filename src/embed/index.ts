export { createHashEmbedder } from './hash-embedder.js';
export { createUseLiteEmbedder, USE_LITE_ID } from './use-lite.js';
export { createNativeUseLiteRuntime, type UseLiteRuntime } from './use-lite-native.js';
export { resolveEmbedder } from './resolve.js';
