import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { badOption, SkillSearchError, throwIfAborted } from '../errors.js';
import { readJsonObject } from '../model-store/check-folder.js';
import type { Pooling } from '../model-store/presets.js';
import type { Embedder, EmbedKind } from '../types.js';
import { importModule } from '../util/import-module.js';
import { loadOnce } from '../util/load-once.js';
import { positiveInteger } from '../util/option-checks.js';
import { raceAbort } from './abortable.js';
import { normalizeInPlace } from './normalize.js';
import { loadOnnxRuntime } from './onnxruntime.js';
import { bulkThreads, SESSION_OPTIONS } from './use-lite.js';

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

/** Tokens per text when neither the caller, the tokenizer nor the model config names a limit. */
const FALLBACK_MAX_TOKENS = 512;
/** Part of the id: bump when how texts become vectors changes, so indexes made the old way are rebuilt. */
const ENCODER_VERSION = 2;

/** The parts of `@huggingface/tokenizers`' Tokenizer we call. */
interface HfTokenizer {
  encode(text: string): { ids: number[] };
  get_added_tokens_decoder(): Map<number, { special: boolean }>;
}

function modelNotFound(modelDir: string, missing: string): SkillSearchError {
  return new SkillSearchError(
    'MODEL_NOT_FOUND',
    `model folder ${modelDir} is missing ${missing}; put an ONNX export there (onnx/model.onnx or onnx/model_quantized.onnx, tokenizer.json, config.json)`,
  );
}

/** A JSON object from the model folder (`{}` for a missing `optional` one); unreadable or not an object fails in one line. */
function readModelJson(modelDir: string, file: string, optional = false): Record<string, unknown> {
  if (optional && !existsSync(join(modelDir, file))) return {};
  const value = readJsonObject(modelDir, file);
  if (typeof value === 'string') throw new SkillSearchError('MODEL_NOT_FOUND', `cannot read ${join(modelDir, file)}: ${value}`);
  return value;
}

function positiveNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** Cuts an encoding to `limit` tokens as Hugging Face's tokenizers do: the closing special token ([SEP], </s>) is kept. */
export function truncateIds(ids: readonly number[], limit: number, specialIds: ReadonlySet<number>): number[] {
  if (ids.length <= limit) return [...ids];
  const last = ids[ids.length - 1]!;
  return specialIds.has(last) ? [...ids.slice(0, limit - 1), last] : ids.slice(0, limit);
}

/** One text's token vectors (`hidden` floats each, the first `length` real) pooled: their mean, or the first ([CLS]). */
function pool(data: Float32Array, offset: number, length: number, hidden: number, pooling: Pooling): Float32Array {
  const out = new Float32Array(hidden);
  const count = pooling === 'cls' ? 1 : length;
  for (let t = 0; t < count; t += 1) {
    const base = offset + t * hidden;
    for (let h = 0; h < hidden; h += 1) out[h]! += data[base + h]!;
  }
  if (count > 1) for (let h = 0; h < hidden; h += 1) out[h]! /= count;
  return out;
}

/**
 * A sentence-embedding ONNX model in Transformers.js layout (what `model pull` fetches) on
 * onnxruntime-node, tokenized by `@huggingface/tokenizers`: mean or [CLS] pooling, query/passage
 * prefixes, L2 normalisation. The folder is checked now, so a typo fails at startup.
 */
export function createTransformersEmbedder(options: TransformersEmbedderOptions): Embedder {
  const modelDir = resolve(options.modelDir);
  const batchSize = positiveInteger('batchSize', options.batchSize ?? 16);
  const pooling = options.pooling ?? 'mean';
  if (pooling !== 'mean' && pooling !== 'cls') throw badOption('pooling', "be 'mean' or 'cls'", pooling);
  const maxTokens = options.maxTokens;
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 2)) throw badOption('maxTokens', 'be an integer of at least 2', maxTokens);
  const prefixes: Record<EmbedKind, string> = { query: options.queryPrefix ?? '', passage: options.passagePrefix ?? '' };
  if (!existsSync(modelDir)) throw modelNotFound(modelDir, 'entirely (no such folder)');
  const quantizedFile = join(modelDir, 'onnx', 'model_quantized.onnx');
  const fullFile = join(modelDir, 'onnx', 'model.onnx');
  const modelFile = !existsSync(fullFile) && existsSync(quantizedFile) ? quantizedFile : fullFile;
  if (!existsSync(modelFile)) throw modelNotFound(modelDir, 'onnx/model.onnx');
  const tokenizerFile = join(modelDir, 'tokenizer.json');
  if (!existsSync(tokenizerFile)) throw modelNotFound(modelDir, 'tokenizer.json');
  const config = readModelJson(modelDir, 'config.json');

  const fingerprint = createHash('sha256')
    .update(readFileSync(join(modelDir, 'config.json')))
    .update(String(statSync(modelFile).size))
    .update(String(statSync(tokenizerFile).size))
    // A changed prefix or pooling changes what a vector means: it rebuilds the index.
    .update(JSON.stringify({ pooling, maxTokens, prefixes, encoder: ENCODER_VERSION }))
    .digest('hex')
    .slice(0, 12);
  let dimensions = ['hidden_size', 'd_model', 'dim', 'n_embd'].map((key) => positiveNumber(config[key])).find((value) => value !== undefined) ?? 0;
  /** Loads the tokenizer and the session: a runner of one batch, one pooled, normalised vector per text. */
  async function loadModel(): Promise<(texts: readonly string[]) => Promise<Float32Array[]>> {
    const tokenizerConfig = readModelJson(modelDir, 'tokenizer_config.json', true);
    const { Tokenizer } = await importModule<typeof import('@huggingface/tokenizers')>('@huggingface/tokenizers');
    const tokenizer = new Tokenizer(readModelJson(modelDir, 'tokenizer.json'), tokenizerConfig) as unknown as HfTokenizer;
    const ort = loadOnnxRuntime();
    const session = await ort.InferenceSession.create(modelFile, { ...SESSION_OPTIONS, intraOpNumThreads: bulkThreads() });
    /** Ids of the special tokens ([CLS], [SEP], <s>, </s>, …). */
    const specialIds = new Set([...tokenizer.get_added_tokens_decoder()].filter(([, token]) => token.special).map(([id]) => id));
    // tokenizer_config.json often says 1e30 for "no limit"; the position table is the real one.
    const limits = [maxTokens, positiveNumber(tokenizerConfig['model_max_length']), positiveNumber(config['max_position_embeddings'])];
    const limit = Math.min(...limits.map((value) => value ?? Number.POSITIVE_INFINITY));
    const tokensPerText = Number.isFinite(limit) ? limit : FALLBACK_MAX_TOKENS;
    const padId = positiveNumber(config['pad_token_id']) ?? 0;

    return async (texts) => {
      const rows = texts.map((text) => truncateIds(tokenizer.encode(text).ids, tokensPerText, specialIds));
      const length = Math.max(1, ...rows.map((row) => row.length));
      const ids = new BigInt64Array(rows.length * length).fill(BigInt(padId));
      const mask = new BigInt64Array(rows.length * length);
      rows.forEach((row, b) => {
        row.forEach((id, i) => {
          ids[b * length + i] = BigInt(id);
          mask[b * length + i] = 1n;
        });
      });
      const inputs: Record<string, BigInt64Array> = { input_ids: ids, attention_mask: mask, token_type_ids: new BigInt64Array(ids.length) };
      const feeds: Record<string, unknown> = {};
      for (const name of session.inputNames) {
        const data = inputs[name];
        if (data === undefined) {
          throw new SkillSearchError(
            'MODEL_NOT_FOUND',
            `model ${modelFile} takes an input "${name}"; only input_ids, attention_mask and token_type_ids can be given`,
          );
        }
        feeds[name] = new ort.Tensor('int64', data, [rows.length, length]);
      }
      const outputs = await session.run(feeds);
      const output = outputs[session.outputNames.includes('last_hidden_state') ? 'last_hidden_state' : session.outputNames[0]!]!;
      const data = output.data as Float32Array;
      // [batch, tokens, hidden] token vectors to pool, or [batch, hidden] vectors the model pooled itself.
      const hidden = output.dims[output.dims.length - 1] ?? 0;
      if (dimensions === 0) dimensions = hidden;
      if (hidden !== dimensions) {
        throw new SkillSearchError('INTERNAL', `model ${modelDir} produced ${hidden}-dimensional vectors, config.json says ${dimensions}`);
      }
      const perRow = output.dims.length === 3 ? length * hidden : hidden;
      return rows.map((row, b) =>
        normalizeInPlace(output.dims.length === 3 ? pool(data, b * perRow, row.length, hidden, pooling) : data.slice(b * perRow, (b + 1) * perRow)),
      );
    };
  }

  const load = loadOnce(loadModel);

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
        out.push(...(await raceAbort(run(batch), signal)));
      }
      return out;
    },
  };
}
