import { throwIfAborted } from '../errors.js';
import type { CrossLingual } from '../lang/cross-lingual.js';
import type { SharedStore } from '../store/shared-store.js';
import type { Skill } from '../types.js';
import { getOrAdd } from '../util/get-or-add.js';
import type { ResolvedEngineOptions } from './options.js';
import { glossedEmbeddingText } from './skill-text.js';

/** With an `onProgress`, embedding goes in calls of at most this many texts (a report after each). */
const PROGRESS_EVERY_SKILLS = 64;

/** Called as embedding progresses: `done` of `total` skills that needed a new vector. */
export type EmbedProgress = (done: number, total: number) => void;

/** Where the live engine's vectors, and the catalogs it writes or holds, come from. */
export interface VectorSources {
  readonly engine: ResolvedEngineOptions;
  /** The store's model id (the embedder's with its text version). */
  readonly model: string;
  readonly dimensions: number;
  /** Where vectors are read from and the embedded ones put, when there is a store. */
  readonly shared: SharedStore | undefined;
  /** The glosses a skill is embedded and indexed with. */
  readonly language: CrossLingual;
}

/**
 * The vectors of `missing` (skills by content key): those the store holds read from it, the others
 * embedded (skills with the same text once) and put in the store batch by batch, so an interrupted run
 * never embeds twice, unless `keep` is false (a search that writes nothing, `CatalogWriter.holdDelta`: the
 * vectors are then transient, `EmbedUse`, made on the model's faster path where it has one).
 * `embedded` counts those the model made. What the live engine's sync and the catalog writer share.
 */
export async function supplyVectors(
  sources: VectorSources,
  missing: ReadonlyMap<string, Skill>,
  signal?: AbortSignal,
  onProgress?: EmbedProgress,
  { keep = true }: { readonly keep?: boolean } = {},
): Promise<{ vectors: Map<string, Float32Array>; embedded: number }> {
  const { shared, model, dimensions, engine, language } = sources;
  const stored = shared?.vectors(model, dimensions, [...missing.keys()]) ?? new Map<string, Float32Array>();
  // Skills with the same text (forks, republished copies) share one embedding.
  const keysByText = new Map<string, string[]>();
  for (const [key, skill] of missing) {
    if (!stored.has(key)) getOrAdd(keysByText, glossedEmbeddingText(skill, language.glossesOf(skill)?.dense), () => []).push(key);
  }
  const pending = [...keysByText];
  const made = new Map<string, Float32Array>();
  const total = missing.size - stored.size;
  onProgress?.(0, total);
  // Someone watching gets a report at least every PROGRESS_EVERY_SKILLS texts.
  const step = onProgress === undefined ? engine.batchSize : Math.min(engine.batchSize, PROGRESS_EVERY_SKILLS);
  for (let start = 0; start < pending.length; start += step) {
    throwIfAborted(signal);
    const batch = pending.slice(start, start + step);
    const vectors = await engine.embedder.embed(
      batch.map(([text]) => text),
      signal,
      'passage',
      { transient: !keep },
    );
    const batchMade = new Map<string, Float32Array>();
    batch.forEach(([, keys], i) => {
      for (const key of keys) batchMade.set(key, vectors[i]!);
    });
    // Each batch is put as soon as it is made: an interrupted `index` (Ctrl-C) keeps what it embedded.
    // A long-lived writer waits for another process's write without holding the thread (`SharedStore.whenFree`).
    if (keep && shared !== undefined) await shared.whenFree(() => shared.putVectors(model, batchMade), undefined, signal);
    for (const [key, vector] of batchMade) made.set(key, vector);
    onProgress?.(made.size, total);
  }
  for (const [key, vector] of stored) made.set(key, vector);
  return { vectors: made, embedded: made.size - stored.size };
}
