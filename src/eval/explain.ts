import type { SkillSearchEngine } from '../search/engine.js';
import type { SearchRequest } from '../types.js';

/** Why `engine` showed nothing: `P(answerable) 0.21 × P(fits) 0.38 for "pdf" = 0.080 < threshold 0.125`. */
export function blankExplainer(engine: Pick<SkillSearchEngine, 'explain'>, request: SearchRequest): (query: string) => Promise<string> {
  return async (query) => {
    const { answerable, threshold, hits } = await engine.explain(query, request);
    const best = hits[0];
    if (best === undefined) return 'no skill matched at all';
    return `P(answerable) ${answerable.toFixed(2)} × P(fits) ${best.fits.toFixed(2)} for "${best.name}" = ${best.score.toFixed(3)} < threshold ${threshold.toFixed(3)}`;
  };
}
