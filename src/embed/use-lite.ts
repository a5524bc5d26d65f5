import { raceAbort } from './abortable.js';
import type { Embedder } from '../types.js';
import { normalizeInPlace } from './normalize.js';
import { createNativeUseLiteRuntime } from './use-lite-native.js';
import { loadOnce } from '../util/load-once.js';
import type { UseLiteRuntime } from './use-lite-native.js';

/**
 * Universal Sentence Encoder lite, as packaged by @energetic-ai (weights ship inside
 * node_modules), run on onnxruntime's native kernels (use-lite-native.ts). Its vectors match
 * the original TF.js graph's to within 1e-6 (test/embed/use-lite.test.ts keeps that graph, a
 * development dependency, as the oracle).
 */
export const USE_LITE_ID = 'use-lite@0.2.0';
const USE_LITE_DIMENSIONS = 512;

/** Loads the runtime once per process; every embedder instance shares it. A failed load is retried by the next call. */
const loadRuntime = loadOnce(() => createNativeUseLiteRuntime());

/**
 * The default embedder: works offline right after `npm install`. The model is loaded lazily
 * on the first `embed` call (about half a second), so constructing this is free. `runtime`
 * is one made elsewhere (benchmarks) instead of the process-wide one.
 */
export function createUseLiteEmbedder(options: { readonly runtime?: Promise<UseLiteRuntime> } = {}): Embedder {
  return {
    id: USE_LITE_ID,
    dimensions: USE_LITE_DIMENSIONS,
    // The bundled model is the English USE-lite (`model-embeddings-en`).
    multilingual: false,
    async embed(texts, signal, kind) {
      if (texts.length === 0) return [];
      const runtime = await raceAbort(options.runtime ?? loadRuntime(), signal);
      const rows = await raceAbort(runtime.embed(texts, signal, kind), signal);
      return rows.map(normalizeInPlace);
    },
    warm: () =>
      (options.runtime ?? loadRuntime()).then(
        () => undefined,
        () => undefined,
      ),
  };
}
