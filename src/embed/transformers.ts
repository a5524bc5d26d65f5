import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { SkillSearchError, throwIfAborted } from '../errors.js';
import type { Embedder } from '../types.js';
import { raceAbort } from './abortable.js';
import { normalizeInPlace } from './normalize.js';

export interface TransformersEmbedderOptions {
  /** A model folder: `<dir>/onnx/model.onnx` (or `model_quantized.onnx`), `tokenizer.json`, `config.json`. */
  readonly modelDir: string;
  /** Texts per model call. @default 16 */
  readonly batchSize?: number;
}

type FeatureExtractor = (
  texts: string[],
  options: { pooling: 'mean'; normalize: boolean },
) => Promise<{ data: Float32Array; dims: number[] }>;

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
 * downloads are disabled): mean pooling over the attention mask, then L2 normalisation.
 * The folder is checked synchronously so a typo fails at startup, not on the first query.
 */
export function createTransformersEmbedder(options: TransformersEmbedderOptions): Embedder {
  const modelDir = resolve(options.modelDir);
  const batchSize = options.batchSize ?? 16;
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new SkillSearchError('BAD_OPTION', `Expected \`batchSize\` to be a positive integer, got \`${String(batchSize)}\``);
  }
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
        return (await pipeline('feature-extraction', basename(modelDir), { quantized })) as unknown as FeatureExtractor;
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
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      const run = await raceAbort(load(), signal);
      const out: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        throwIfAborted(signal);
        const tensor = await raceAbort(run(texts.slice(start, start + batchSize), { pooling: 'mean', normalize: true }), signal);
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
