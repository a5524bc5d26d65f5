import { LiveIndex, type LiveIndexOptions } from '../../src/integrations/live-index.js';
import type { AssembledCatalog } from '../../src/search/engine.js';
import type { SearchHit } from '../../src/types.js';

/** The top 5 of each query from the live index of `options` (which saves its catalog on close). */
export async function liveAnswers(options: LiveIndexOptions, queries: readonly string[]): Promise<SearchHit[][]> {
  const live = await LiveIndex.open(options);
  try {
    return await Promise.all(queries.map(async (query) => [...(await live.search(query, { k: 5 }))]));
  } finally {
    await live.close();
  }
}

/** The top 5 of each query from the saved catalog a cold process opens (assembling it when the disk moved), with what assembling it cost. */
export async function assembledAnswers(
  options: LiveIndexOptions,
  queries: readonly string[],
): Promise<{ readonly assembled: AssembledCatalog | undefined; readonly size: number; readonly answers: SearchHit[][] }> {
  const opened = await LiveIndex.openSnapshot(options, { assemble: true });
  if ('reason' in opened) throw new Error(opened.reason);
  try {
    const answers = await Promise.all(queries.map(async (query) => [...(await opened.search(query, { k: 5 }))]));
    return { assembled: opened.assembled, size: opened.engine.size, answers };
  } finally {
    await opened.close();
  }
}
