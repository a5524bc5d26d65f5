import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SkillSearchError } from '../errors.js';
import { modelsRoot } from '../model-store/paths.js';
import { findPreset, type ModelPreset } from '../model-store/presets.js';
import { installState } from '../model-store/store.js';
import { badKnob } from '../util/option-checks.js';
import type { Embedder } from '../types.js';
import { createHashEmbedder } from './hash-embedder.js';
import { createTransformersEmbedder } from './transformers.js';
import { createUseLiteEmbedder } from './use-lite.js';

/** The package's own `models/` folder (next to `src/` and `dist/`). */
export const DEFAULT_MODELS_DIR = fileURLToPath(new URL('../../models/', import.meta.url));

export interface ResolveEmbedderOptions {
  /** Where bare model names are looked up. @default the package's `models/` folder */
  readonly modelsDir?: string;
  /** Where `skill-search model pull` installs presets. @default `<cache root>/models` from `process.env` */
  readonly downloadsDir?: string;
}

/** A preset runs from its pulled folder, or from `<modelsDir>/<id>/` when one was placed there by hand. */
function presetEmbedder(preset: ModelPreset, options: ResolveEmbedderOptions): Embedder {
  const downloads = options.downloadsDir ?? modelsRoot(process.env);
  const state = installState(downloads, preset);
  const placed = join(options.modelsDir ?? DEFAULT_MODELS_DIR, preset.id);
  const modelDir = state.state === 'installed' ? state.dir : existsSync(placed) ? placed : undefined;
  if (modelDir === undefined) {
    const how =
      state.state === 'broken'
        ? `is damaged (${state.reason}): run 'skill-search model pull ${preset.id}' again`
        : `is not downloaded yet: run 'skill-search model pull ${preset.id}'`;
    throw new SkillSearchError('MODEL_NOT_FOUND', `model "${preset.id}" ${how}`);
  }
  // A preset names its pooling, token limit, prefixes and languages as the embedder's options do.
  return createTransformersEmbedder({ ...preset, modelDir });
}

/**
 * A model spec's embedder: absent, `''` or `use-lite` → the bundled USE-lite; `hash[:<dims>]` → the
 * hashing embedder; a preset id (`model list`) → its pulled folder with the preset's pooling and
 * prefixes; a path (with a slash) → that transformers.js folder; a bare name → `<modelsDir>/<name>/`.
 */
export function resolveEmbedder(spec?: string, options: ResolveEmbedderOptions = {}): Embedder {
  if (spec !== undefined && typeof spec !== 'string') {
    throw badKnob('model', `a model name ("use-lite", "hash", a preset of 'skill-search model list' or a model folder)`, spec);
  }
  const value = (spec ?? '').trim();
  if (value === '' || value === 'use-lite' || value === 'default') return createUseLiteEmbedder();
  const hash = /^hash(?::(\d+))?$/.exec(value);
  if (hash) return createHashEmbedder(hash[1] === undefined ? {} : { dimensions: Number(hash[1]) });
  const preset = findPreset(value);
  if (preset !== undefined) return presetEmbedder(preset, options);
  const modelsDir = options.modelsDir ?? DEFAULT_MODELS_DIR;
  const modelDir = isAbsolute(value) || value.includes('/') || value.startsWith('.') ? resolve(value) : join(modelsDir, value);
  if (!existsSync(modelDir)) {
    throw new SkillSearchError(
      'MODEL_NOT_FOUND',
      `model "${value}" not found: no folder ${modelDir} (use "use-lite", a preset from 'skill-search model list', or put a transformers.js ONNX model folder there)`,
    );
  }
  return createTransformersEmbedder({ modelDir });
}
