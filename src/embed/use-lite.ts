import { raceAbort } from './abortable.js';
import type { Embedder } from '../types.js';
import { normalizeInPlace } from './normalize.js';
import { createNativeUseLiteRuntime } from './use-lite-native.js';
import { loadOnce } from '../util/load-once.js';
import type { UseLiteRuntime } from './use-lite-native.js';

/** Universal Sentence Encoder lite as @energetic-ai packages it, on onnxruntime (use-lite-native.ts); the TF.js graph is the tests' oracle. */
export const USE_LITE_ID = 'use-lite@0.2.0';
const USE_LITE_DIMENSIONS = 512;

/** One runtime per process, shared by every embedder; a failed load is retried. */
const loadRuntime = loadOnce(() => createNativeUseLiteRuntime());

/** The default embedder, offline after `npm install`; the model loads at the first `embed`. `runtime`: one made elsewhere (benchmarks). */
export function createUseLiteEmbedder(options: { readonly runtime?: Promise<UseLiteRuntime> } = {}): Embedder {
  return {
    id: USE_LITE_ID,
    dimensions: USE_LITE_DIMENSIONS,
    multilingual: false,
    async embed(texts, signal, kind, use) {
      if (texts.length === 0) return [];
      const runtime = await raceAbort(options.runtime ?? loadRuntime(), signal);
      const rows = await raceAbort(runtime.embed(texts, signal, kind, use), signal);
      return rows.map(normalizeInPlace);
    },
    warm: async () => {
      await (options.runtime ?? loadRuntime()).catch(() => undefined);
    },
  };
}
