import type { SearchHit } from '../types.js';

/**
 * The hits a consumer shows once it has left some out (already seen, never suggested, not
 * offered to the model): a companion (`SearchHit.companion`) was shown below the threshold for
 * being close to a hit that reached it, so it stays only while such a hit stays. Without this,
 * leaving out a sure first would show its weak neighbour alone.
 */
export function withoutLoneCompanions<T extends Pick<SearchHit, 'companion'>>(hits: readonly T[]): T[] {
  return hits.some((hit) => hit.companion !== true) ? [...hits] : [];
}
