import { createHash } from 'node:crypto';
import { badOption, throwIfAborted } from '../errors.js';
import type { Embedder } from '../types.js';
import { loopTurns } from '../util/loop-turns.js';
import { normalizeInPlace } from './normalize.js';

export interface HashEmbedderOptions {
  /** @default 256 */
  readonly dimensions?: number;
}

const WORD = /[\p{L}\p{N}]+/gu;

function bucket(feature: string, dimensions: number): { index: number; sign: number } {
  const digest = createHash('sha1').update(feature).digest();
  return { index: digest.readUInt32LE(0) % dimensions, sign: (digest[4]! & 1) === 0 ? 1 : -1 };
}

/** A deterministic bag-of-words embedder (signed feature hashing of lowercased words and their trigrams): no model, no I/O. */
export function createHashEmbedder(options: HashEmbedderOptions = {}): Embedder {
  const dimensions = options.dimensions ?? 256;
  if (!Number.isInteger(dimensions) || dimensions < 2) throw badOption('dimensions', 'be an integer ≥ 2', dimensions);
  return {
    id: `hash-${dimensions}`,
    dimensions,
    async embed(texts, signal) {
      throwIfAborted(signal);
      // Hundreds of texts hash for a second on a loaded machine: timers (a hook's budget) get turns between texts.
      const turn = loopTurns();
      const vectors: Float32Array[] = [];
      for (const text of texts) {
        await turn();
        throwIfAborted(signal);
        const vector = new Float32Array(dimensions);
        for (const [word] of text.toLowerCase().matchAll(WORD)) {
          const { index, sign } = bucket(`w:${word}`, dimensions);
          vector[index]! += sign;
          const padded = `^${word}$`;
          for (let i = 0; i + 3 <= padded.length; i += 1) {
            const gram = bucket(`g:${padded.slice(i, i + 3)}`, dimensions);
            vector[gram.index]! += gram.sign * 0.25;
          }
        }
        vectors.push(normalizeInPlace(vector));
      }
      return vectors;
    },
  };
}
