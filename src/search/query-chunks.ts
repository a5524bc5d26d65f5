import type { LexicalMatch } from '../lexical/lexical-index.js';
import type { Embedder } from '../types.js';
import { ENGINE_DEFAULTS, type QueryChunkOptions } from './options.js';

/**
 * A message that asks for several things becomes one averaged vector near none of the skills it
 * needs, so the dense side also embeds each sentence on its own and a skill keeps its best match
 * (docs/retrieval.md, "Long messages").
 */

/** Sentence ends, clause breaks that introduce a new request, and line breaks. */
const BREAK = /(?<=[.!?。！？；;:])\s+|(?<=[。！？；])|\n+/u;
const HAS_LETTER = /\p{L}/u;

/** The pieces of `query` worth embedding separately (none when it is one piece); more than `max` are joined into `max` runs of consecutive ones. */
export function queryChunks(query: string, max = ENGINE_DEFAULTS.queryChunks.max): string[] {
  const pieces = query
    .split(BREAK)
    .map((piece) => piece.trim())
    .filter((piece) => HAS_LETTER.test(piece));
  if (pieces.length < 2 || max < 2) return [];
  if (pieces.length <= max) return pieces;
  const runs: string[] = [];
  for (let run = 0; run < max; run += 1) {
    const start = Math.floor((run * pieces.length) / max);
    const end = Math.floor(((run + 1) * pieces.length) / max);
    runs.push(pieces.slice(start, end).join(' '));
  }
  return runs;
}

/** Whether BM25 has already singled one skill out, so a hybrid search can spare the sentence embeddings (`EngineOptions.queryChunks`). */
export function lexicallySettled(
  lexical: readonly Pick<LexicalMatch, 'score' | 'coverage'>[],
  { lexicalMargin, lexicalCoverage }: Pick<QueryChunkOptions, 'lexicalMargin' | 'lexicalCoverage'>,
): boolean {
  const [best, second] = lexical;
  if (lexicalMargin <= 0 || best === undefined) return false;
  return best.score >= lexicalMargin * (second?.score ?? 0) && best.coverage >= lexicalCoverage;
}

/** Joins a chunk list into one query-cache key; not whitespace, so the cache's whitespace folding keeps it. */
export const CHUNK_SEPARATOR = '\u0000';

/**
 * An embedder over chunk lists joined by {@link CHUNK_SEPARATOR}: one model call per list, the
 * vectors laid end to end in one array, so a `QueryEmbeddingCache` keeps a message's chunk vectors.
 */
export function chunkListEmbedder(embedder: Embedder): Embedder {
  return {
    id: `${embedder.id}#chunks`,
    dimensions: embedder.dimensions,
    embed: (lists, signal, kind) =>
      Promise.all(
        lists.map(async (list) => {
          const vectors = await embedder.embed(list.split(CHUNK_SEPARATOR), signal, kind);
          const joined = new Float32Array(vectors.reduce((length, vector) => length + vector.length, 0));
          let offset = 0;
          for (const vector of vectors) {
            joined.set(vector, offset);
            offset += vector.length;
          }
          return joined;
        }),
      ),
  };
}

/** Undoes {@link chunkListEmbedder}'s joining: views of `dimensions` values each. */
export function splitVectors(joined: Float32Array, dimensions: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let offset = 0; offset + dimensions <= joined.length; offset += dimensions) out.push(joined.subarray(offset, offset + dimensions));
  return out;
}
