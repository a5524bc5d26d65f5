import { BUNDLED_RERANKERS } from '../src/search/rerank.js';
import { libraryDevelopmentCases, rankIn, indexOrder, bm25Order, CLASSES } from './length-classes.js';
import { ENGINE_FUSION, fusedOrders } from './ranking-cases.js';
const { cases, wordsOf } = await libraryDevelopmentCases('library-r16');
const t = new Map<string, number>(); const add = (k: string) => t.set(k, (t.get(k) ?? 0) + 1);
for (const c of cases) {
  const final = indexOrder(c, { ...ENGINE_FUSION, rerank: BUNDLED_RERANKERS } as any);
  const fused = fusedOrders(c, ENGINE_FUSION);
  const fo = c.candidates.map((_, i) => i).sort((a, b) => fused[b]! - fused[a]! || a - b);
  const bo = bm25Order(c);
  const agree = fo[0] === bo[0];
  const denseFirst = c.candidates.map((_, i) => i).sort((a, b) => (c.candidates[b]!.centered ?? 0) - (c.candidates[a]!.centered ?? 0) || a - b)[0];
  const all3 = agree && denseFirst === fo[0];
  const fr = rankIn(c, fo), r = rankIn(c, final);
  const moved = fo[0] !== final[0];
  add(`fused first = BM25 first: ${agree}${all3 ? ' (dense too)' : ''}; reranker ${moved ? 'moves it' : 'keeps it'}; ${fr === 0 && r !== 0 ? 'LOST' : fr !== 0 && r === 0 ? 'WON' : moved ? 'moved, no change at 1' : ''}`);
}
for (const [k, n] of [...t].sort()) console.log(k, n);
