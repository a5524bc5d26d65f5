/**
 * An embedder wrapper that remembers every text's vector on disk, so sweeps and refits over
 * thousands of queries embed each query once across runs. Scripts only: latency measured
 * through it excludes the model for remembered texts.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Embedder } from '../src/types.js';

export interface RememberingEmbedder extends Embedder {
  /** Writes the vectors learnt since opening. */
  save(): void;
}

const key = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 32);

export function rememberVectors(base: Embedder, file: string): RememberingEmbedder {
  const memo = new Map<string, Float32Array>();
  if (existsSync(file)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const tab = line.indexOf('\t');
      if (tab < 0) continue;
      const bytes = Buffer.from(line.slice(tab + 1), 'base64');
      memo.set(line.slice(0, tab), new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4).slice());
    }
  }
  let dirty = false;
  return {
    id: base.id,
    get dimensions() {
      return base.dimensions;
    },
    async embed(texts, signal, kind) {
      const missing = [...new Set(texts.filter((text) => !memo.has(key(text))))];
      if (missing.length > 0) {
        const vectors = await base.embed(missing, signal, kind);
        missing.forEach((text, i) => memo.set(key(text), vectors[i]!));
        dirty = true;
      }
      return texts.map((text) => memo.get(key(text))!);
    },
    save() {
      if (!dirty) return;
      mkdirSync(dirname(file), { recursive: true });
      const lines = [...memo].map(([hash, vector]) => `${hash}\t${Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64')}`);
      writeFileSync(file, `${lines.join('\n')}\n`);
      dirty = false;
    },
  };
}
