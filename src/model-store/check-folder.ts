import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import path from 'node:path';
import type { ModelPreset } from './presets.js';
import { sizeOf } from './store.js';

/** Parsed JSON object, or the reason it is not one. */
export function readJsonObject(dir: string, file: string): Record<string, unknown> | string {
  try {
    const value: unknown = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return `${file} is not a JSON object`;
    return value as Record<string, unknown>;
  } catch (error) {
    return `${file} is not valid JSON (${(error as Error).message})`;
  }
}

/** An ONNX ModelProto opens with field 1 (`ir_version`, a varint): tag byte 0x08. */
function looksLikeOnnx(file: string): boolean {
  const first = new Uint8Array(1);
  const fd = openSync(file, 'r');
  try {
    return readSync(fd, first, 0, 1, 0) === 1 && first[0] === 0x08;
  } finally {
    closeSync(fd);
  }
}

/**
 * Why `dir` cannot serve as `preset`, as a phrase; undefined when it looks right: every file present
 * and non-empty, the JSON files parse, `config.json`'s width is the preset's, the ONNX file looks like one.
 */
export function folderProblem(dir: string, preset: ModelPreset): string | undefined {
  const missing = preset.files.filter((file) => sizeOf(path.join(dir, file)) === 0);
  if (missing.length > 0) return `missing or empty: ${missing.join(', ')} (a copy of ${preset.repo} holds ${preset.files.join(', ')})`;
  const config = readJsonObject(dir, 'config.json');
  if (typeof config === 'string') return config;
  for (const file of ['tokenizer.json', 'tokenizer_config.json']) {
    const parsed = readJsonObject(dir, file);
    if (typeof parsed === 'string') return parsed;
  }
  const width = config.hidden_size ?? config.d_model ?? config.dim;
  if (typeof width === 'number' && width !== preset.dimensions) {
    return `config.json says ${width} dimensions, ${preset.id} has ${preset.dimensions}: is this the right model?`;
  }
  if (!looksLikeOnnx(path.join(dir, preset.onnxFile))) return `${preset.onnxFile} is not an ONNX model`;
  return undefined;
}
