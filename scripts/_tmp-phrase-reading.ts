import { BUNDLED_RERANKERS, rerankPool } from '../src/search/rerank.js';
import { tokenize } from '../src/lexical/tokenize.js';
import { humanizeName } from '../src/search/skill-text.js';
import { libraryDevelopmentCases, rankIn, indexOrder } from './length-classes.js';
import { ENGINE_FUSION, fusedOrders } from './ranking-cases.js';
import { librarySkills, loadSuite, freshLibrarySetsThrough } from './eval-suites.js';
const { cases, wordsOf } = await libraryDevelopmentCases('library-r16');
const texts = new Map<string, string>();
for (const name of ['library', ...freshLibrarySetsThrough('library-r16')]) for (const q of (await loadSuite(name as any, { sample: 500 }))!.queries) texts.set(`${name}/${q.id}`, q.query);
const skills = new Map(librarySkills().map((s) => [s.id, s]));
const pairsOf = (tokens: string[]) => { const s = new Set<string>(); for (let i = 0; i + 1 < tokens.length; i++) if (tokens[i] !== tokens[i+1]) s.add(tokens[i] + ' ' + tokens[i + 1]); return s; };
const docPairs = new Map<string, Set<string>>();
const pairsFor = (id: string) => { if (!docPairs.has(id)) { const s = skills.get(id)!; docPairs.set(id, new Set([...pairsOf(tokenize(humanizeName(s.name))), ...pairsOf(tokenize(s.description))])); } return docPairs.get(id)!; };
const model = BUNDLED_RERANKERS.skills;
const t = new Map<string, number>(); const add = (k: string) => t.set(k, (t.get(k) ?? 0) + 1);
for (const c of cases) {
  const q = pairsOf(tokenize(texts.get(`${c.suite}/${c.id}`) ?? ''));
  if (q.size === 0) { add('no query pairs'); continue; }
  const final = indexOrder(c, { ...ENGINE_FUSION, rerank: BUNDLED_RERANKERS } as any);
  const fused = fusedOrders(c, ENGINE_FUSION);
  const pool = rerankPool(c.candidates.map((h, i) => ({ ...h, order: fused[i]! })) as any, model);
  const phrase = (i: number) => [...q].filter((p) => pairsFor(c.candidates[i]!.id).has(p)).length;
  const first = final[0]!;
  const pf = phrase(first);
  const best = Math.max(...pool.map(phrase));
  if (c.labels[first]) {
    add(`hit: some other pool member has more phrases than the first: ${pool.some((i) => i !== first && phrase(i) > pf)}`);
    if (best > 0) add(`hit: first holds the pool's most phrases: ${pf === best}`);
  } else {
    const labelsIn = pool.filter((i) => c.labels[i]);
    if (labelsIn.length === 0) { add('miss: no label in pool'); continue; }
    const pl = Math.max(...labelsIn.map(phrase));
    add(`miss: label phrases ${pl > pf ? '>' : pl < pf ? '<' : '='} first's${pl === pf ? (pl === 0 ? ' (both 0)' : ' (>0)') : ''}`);
    if (pl > pf && pl === best) add('miss: label alone holds the most phrases');
  }
}
console.log(cases.length);
for (const [k, n] of [...t].sort()) console.log(k, n);
