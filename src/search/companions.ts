import type { SearchHit } from '../types.js';

/**
 * The hits a consumer shows once it has left some out: a companion (`SearchHit.companion`) was
 * shown below the threshold beside a hit that reached it, so it stays only while such a hit stays.
 */
export function withoutLoneCompanions<T extends Pick<SearchHit, 'companion'>>(hits: readonly T[]): T[] {
  return hits.some((hit) => hit.companion !== true) ? [...hits] : [];
}
