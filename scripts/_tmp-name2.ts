import { BUNDLED_RERANKERS } from '../src/search/rerank.js';
import { nameWords, nameMatch } from '../src/search/relevance.js';
import { libraryDevelopmentCases, rankIn, indexOrder, CLASSES } from './length-classes.js';
import { ENGINE_FUSION, fusedOrders } from './ranking-cases.js';
const { cases, wordsOf } = await libraryDevelopmentCases('library-r16');
const t = new Map<string, number>(); const add = (k: string) => t.set(k, (t.get(k) ?? 0) + 1);
const whole = (c: any, i: number) => { const w = nameWords(c.candidates[i].name); return w.size > 0 && [...w].every((x) => c.query.terms.has(x)); };
for (const c of cases) {
  const final = indexOrder(c, { ...ENGINE_FUSION, rerank: BUNDLED_RERANKERS } as any);
  const fused = fusedOrders(c, ENGINE_FUSION);
  const fo = c.candidates.map((_, i) => i).sort((a, b) => fused[b]! - fused[a]! || a - b);
  const fr = rankIn(c, fo), r = rankIn(c, final);
  const cls = CLASSES.find(([, f]) => f(wordsOf(c)))![0];
  if (fr === 0 && r !== 0) {
    const l = fo[0]!, f = final[0]!;
    add(`LOST label name ${nameMatch(c.candidates[l]!.name, c.query.terms) > nameMatch(c.candidates[f]!.name, c.query.terms) ? '>' : nameMatch(c.candidates[l]!.name, c.query.terms) < nameMatch(c.candidates[f]!.name, c.query.terms) ? '<' : '='} first; labelWhole=${whole(c, l)} firstWhole=${whole(c, f)}`);
    add(`LOST ${cls}`);
  }
  if (fr !== 0 && r === 0) {
    const l = final[0]!, f = fo[0]!;
    add(`WON label name ${nameMatch(c.candidates[l]!.name, c.query.terms) > nameMatch(c.candidates[f]!.name, c.query.terms) ? '>' : nameMatch(c.candidates[l]!.name, c.query.terms) < nameMatch(c.candidates[f]!.name, c.query.terms) ? '<' : '='} fused first; labelWhole=${whole(c, l)} fusedFirstWhole=${whole(c, f)}`);
    add(`WON ${cls}`);
  }
}
for (const [k, n] of [...t].sort()) console.log(k, n);
