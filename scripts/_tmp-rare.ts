import { BUNDLED_RERANKERS } from '../src/search/rerank.js';
import { libraryDevelopmentCases, rankIn, indexOrder } from './length-classes.js';
import { ENGINE_FUSION } from './ranking-cases.js';
const { cases } = await libraryDevelopmentCases('library-r16');
const only = process.argv[2];
const t = new Map<string, number>(); const add = (k: string) => t.set(k, (t.get(k) ?? 0) + 1);
for (const c of cases) {
  if (only && c.suite !== only) continue;
  const final = indexOrder(c, { ...ENGINE_FUSION, rerank: BUNDLED_RERANKERS } as any);
  const r = rankIn(c, final);
  const byW = c.candidates.map((_, i) => i).filter((i) => (c.candidates[i]!.lexical ?? 0) > 0).sort((a, b) => (c.candidates[b]!.weightedCoverage ?? 0) - (c.candidates[a]!.weightedCoverage ?? 0) || (c.candidates[b]!.lexical! - c.candidates[a]!.lexical!));
  const wr = rankIn(c, byW);
  const first = c.candidates[final[0]!]!;
  // candidates with rarest == 1 (hold the query's rarest catalogue word)
  const holders = c.candidates.map((_, i) => i).filter((i) => (c.candidates[i]!.lexical ?? 0) > 0 && (c.candidates[i]!.rarest ?? 0) >= 0.999);
  const labelHolds = holders.some((i) => c.labels[i]);
  const key = `${r === 0 ? 'hit' : r < 5 ? 'near' : 'deep'} holders=${holders.length > 3 ? '4+' : holders.length} labelHoldsRarest=${labelHolds}`;
  add(key);
  if (only && r !== 0) console.log(`${r+1}\tw-rank ${wr+1}\tholders ${holders.length} label ${labelHolds}\tfirst rarest ${(first.rarest??0).toFixed(2)} ${first.name}\t${c.id}`);
}
for (const [k, n] of [...t].sort()) console.log(k, n);
