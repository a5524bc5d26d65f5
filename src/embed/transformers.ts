import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { badOption, SkillSearchError, throwIfAborted } from '../errors.js';
import type { Pooling } from '../model-store/presets.js';
import type { Embedder, EmbedKind } from '../types.js';
import { raceAbort } from './abortable.js';
import { normalizeInPlace } from './normalize.js';

export interface TransformersEmbedderOptions {
  /** A model folder: `<dir>/onnx/model.onnx` (or `model_quantized.onnx`), `tokenizer.json`, `config.json`. */
  readonly modelDir: string;
  /** Texts per model call. @default 16 */
  readonly batchSize?: number;
  /** How token vectors become one sentence vector. @default 'mean' */
  readonly pooling?: Pooling;
  /** Tokens kept per text (the rest is cut); capped by the tokenizer's own `model_max_length`. @default the tokenizer's `model_max_length` */
  readonly maxTokens?: number;
  /** Put before every query text (`embed(…, 'query')`). @default '' */
  readonly queryPrefix?: string;
  /** Put before every passage text (the indexed skills). @default '' */
  readonly passagePrefix?: string;
  /** Reported as `Embedder.multilingual`. @default false */
  readonly multilingual?: boolean;
}

type FeatureExtractor = ((texts: string[], options: { pooling: Pooling; normalize: boolean }) => Promise<{ data: Float32Array; dims: number[] }>) & {
  tokenizer?: { model_max_length?: number };
};

/**
 * transformers.js keeps its paths in one global `env`; pipelines are created one at a time
 * so two embedders with different model folders never see each other's settings.
 */
let loading: Promise<unknown> = Promise.resolve();

function modelNotFound(modelDir: string, missing: string): SkillSearchError {
  return new SkillSearchError(
    'MODEL_NOT_FOUND',
    `model folder ${modelDir} is missing ${missing}; put an ONNX export there (onnx/model.onnx or onnx/model_quantized.onnx, tokenizer.json, config.json)`,
  );
}

function readConfig(modelDir: string): Record<string, unknown> {
  const file = join(modelDir, 'config.json');
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new SkillSearchError('MODEL_NOT_FOUND', `cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
}

function configuredDimensions(config: Record<string, unknown>): number | undefined {
  for (const key of ['hidden_size', 'd_model', 'dim', 'n_embd']) {
    const value = config[key];
    if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  }
  return undefined;
}

/**
 * Any sentence-embedding ONNX model in transformers.js layout, run fully offline (remote
 * downloads are disabled; `skill-search model pull` fetches presets beforehand): mean pooling
 * over the attention mask or the [CLS] vector, query/passage prefixes, then L2 normalisation.
 * The folder is checked synchronously so a typo fails at startup, not on the first query.
 */
export function createTransformersEmbedder(options: TransformersEmbedderOptions): Embedder {
  const modelDir = resolve(options.modelDir);
  const batchSize = options.batchSize ?? 16;
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw badOption('batchSize', 'be a positive integer', batchSize);
  }
  const pooling = options.pooling ?? 'mean';
  if (pooling !== 'mean' && pooling !== 'cls') {
    throw badOption('pooling', "be 'mean' or 'cls'", pooling);
  }
  const maxTokens = options.maxTokens;
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 2)) {
    throw badOption('maxTokens', 'be an integer of at least 2', maxTokens);
  }
  const prefixes: Record<EmbedKind, string> = { query: options.queryPrefix ?? '', passage: options.passagePrefix ?? '' };
  if (!existsSync(modelDir)) throw modelNotFound(modelDir, 'entirely (no such folder)');
  const quantizedFile = join(modelDir, 'onnx', 'model_quantized.onnx');
  const fullFile = join(modelDir, 'onnx', 'model.onnx');
  const quantized = !existsSync(fullFile) && existsSync(quantizedFile);
  const modelFile = quantized ? quantizedFile : fullFile;
  if (!existsSync(modelFile)) throw modelNotFound(modelDir, 'onnx/model.onnx');
  if (!existsSync(join(modelDir, 'tokenizer.json'))) throw modelNotFound(modelDir, 'tokenizer.json');
  const config = readConfig(modelDir);

  const fingerprint = createHash('sha256')
    .update(readFileSync(join(modelDir, 'config.json')))
    .update(String(statSync(modelFile).size))
    .update(String(statSync(join(modelDir, 'tokenizer.json')).size))
    // How texts are encoded is part of what a vector means: a changed prefix or pooling rebuilds the index.
    .update(JSON.stringify({ pooling, maxTokens, prefixes }))
    .digest('hex')
    .slice(0, 12);
  let dimensions = configuredDimensions(config) ?? 0;
  let extractor: Promise<FeatureExtractor> | undefined;

  function load(): Promise<FeatureExtractor> {
    extractor ??= (async () => {
      const previous = loading;
      let release!: () => void;
      loading = new Promise<void>((done) => (release = done));
      await previous.catch(() => undefined);
      try {
        const { env, pipeline } = await import('@xenova/transformers');
        env.allowRemoteModels = false;
        env.allowLocalModels = true;
        env.localModelPath = dirname(modelDir);
        const run = (await pipeline('feature-extraction', basename(modelDir), { quantized })) as unknown as FeatureExtractor;
        const tokenizer = run.tokenizer;
        // The pipeline truncates at `model_max_length`; lowering it caps texts without padding every batch to the cap.
        if (maxTokens !== undefined && tokenizer !== undefined) {
          tokenizer.model_max_length = Math.min(tokenizer.model_max_length ?? maxTokens, maxTokens);
        }
        return run;
      } finally {
        release();
      }
    })();
    extractor.catch(() => {
      extractor = undefined;
    });
    return extractor;
  }

  return {
    id: `onnx:${basename(modelDir)}@${fingerprint}`,
    get dimensions() {
      return dimensions;
    },
    ...(options.multilingual === undefined ? {} : { multilingual: options.multilingual }),
    async embed(texts, signal, kind = 'passage') {
      if (texts.length === 0) return [];
      const prefix = prefixes[kind];
      const run = await raceAbort(load(), signal);
      const out: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        throwIfAborted(signal);
        const batch = texts.slice(start, start + batchSize).map((text) => prefix + text);
        const tensor = await raceAbort(run(batch, { pooling, normalize: true }), signal);
        const width = tensor.dims[tensor.dims.length - 1] ?? 0;
        if (dimensions === 0) dimensions = width;
        if (width !== dimensions) {
          throw new SkillSearchError('INTERNAL', `model ${modelDir} produced ${width}-dimensional vectors, config.json says ${dimensions}`);
        }
        for (let row = 0; row * width < tensor.data.length; row += 1) {
          out.push(normalizeInPlace(Float32Array.from(tensor.data.subarray(row * width, (row + 1) * width))));
        }
      }
      return out;
    },
  };
}
