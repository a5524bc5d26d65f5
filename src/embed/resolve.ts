import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SkillSearchError } from '../errors.js';
import type { Embedder } from '../types.js';
import { createHashEmbedder } from './hash-embedder.js';
import { createTransformersEmbedder } from './transformers.js';
import { createUseLiteEmbedder } from './use-lite.js';

/** The package's own `models/` folder (next to `src/` and `dist/`). */
export const DEFAULT_MODELS_DIR = fileURLToPath(new URL('../../models/', import.meta.url));

export interface ResolveEmbedderOptions {
  /** Where bare model names are looked up. @default the package's `models/` folder */
  readonly modelsDir?: string;
}

/**
 * Turns a model spec into an embedder:
 * - absent, `''`, `use-lite` → the embedded Universal Sentence Encoder (offline, 512-d);
 * - `hash` / `hash:<dims>` → the deterministic hashing embedder (no model; tests, smoke runs);
 * - a path (absolute, or containing a slash) to a transformers.js model folder;
 * - a bare name → `<modelsDir>/<name>/`.
 */
export function resolveEmbedder(spec?: string, options: ResolveEmbedderOptions = {}): Embedder {
  const value = (spec ?? '').trim();
  if (value === '' || value === 'use-lite' || value === 'default') return createUseLiteEmbedder();
  const hash = /^hash(?::(\d+))?$/.exec(value);
  if (hash) return createHashEmbedder(hash[1] === undefined ? {} : { dimensions: Number(hash[1]) });
  const modelsDir = options.modelsDir ?? DEFAULT_MODELS_DIR;
  const modelDir = isAbsolute(value) || value.includes('/') || value.startsWith('.') ? resolve(value) : join(modelsDir, value);
  if (!existsSync(modelDir)) {
    throw new SkillSearchError(
      'MODEL_NOT_FOUND',
      `model "${value}" not found: no folder ${modelDir} (use "use-lite", or put a transformers.js ONNX model folder there)`,
    );
  }
  return createTransformersEmbedder({ modelDir });
}
