import { BUNDLED_RERANKERS, rerankPool } from '../src/search/rerank.js';
import { tokenize } from '../src/lexical/tokenize.js';
import { lexicalEntry } from '../src/lexical/lexical-entry.js';
import { humanizeName } from '../src/search/skill-text.js';
import { libraryDevelopmentCases, indexOrder } from './length-classes.js';
import { ENGINE_FUSION, fusedOrders } from './ranking-cases.js';
import { librarySkills, loadSuite, freshLibrarySetsThrough } from './eval-suites.js';
const { cases } = await libraryDevelopmentCases('library-r16');
const texts = new Map<string, string>();
for (const name of ['library', ...freshLibrarySetsThrough('library-r16')]) for (const q of (await loadSuite(name as any, { sample: 500 }))!.queries) texts.set(`${name}/${q.id}`, q.query);
const skills = new Map(librarySkills().map((s) => [s.id, s]));
const entries = new Map<string, any>(); const entryOf = (id: string) => { if (!entries.has(id)) entries.set(id, lexicalEntry(skills.get(id)!)); return entries.get(id); };
const pairsOf = (tokens: string[]) => { const s = new Set<string>(); for (let i = 0; i + 1 < tokens.length; i++) if (tokens[i] !== tokens[i+1]) s.add(tokens[i] + ' ' + tokens[i + 1]); return s; };
const docPairs = new Map<string, Set<string>>();
const pairsFor = (id: string) => { if (!docPairs.has(id)) { const s = skills.get(id)!; docPairs.set(id, new Set([...pairsOf(tokenize(humanizeName(s.name))), ...pairsOf(tokenize(s.description))])); } return docPairs.get(id)!; };
const FEATS: Record<string, (c: any, i: number, q: Set<string>) => number> = {
  phrase: (c, i, q) => [...q].filter((p) => pairsFor(c.candidates[i].id).has(p)).length,
  descCover: (c, i) => { const e = entryOf(c.candidates[i].id); return [...c.query.terms].filter((t) => e.terms[0].has(t) || e.terms[3].has(t)).length; },
  bodyOnly: (c, i) => { const e = entryOf(c.candidates[i].id); return -[...c.query.terms].filter((t) => !e.terms[0].has(t) && !e.terms[3].has(t) && e.terms[4].has(t)).length; },
};
const model = BUNDLED_RERANKERS.skills;
const t = new Map<string, number>(); const add = (k: string) => t.set(k, (t.get(k) ?? 0) + 1);
for (const c of cases) {
  const q = pairsOf(tokenize(texts.get(`${c.suite}/${c.id}`) ?? ''));
  const final = indexOrder(c, { ...ENGINE_FUSION, rerank: BUNDLED_RERANKERS } as any);
  const fused = fusedOrders(c, ENGINE_FUSION);
  const pool = rerankPool(c.candidates.map((h, i) => ({ ...h, order: fused[i]! })) as any, model);
  const first = final[0]!;
  for (const [name, f] of Object.entries(FEATS)) {
    const v = (i: number) => f(c, i, q);
    if (c.labels[first]) { if (pool.some((i) => i !== first && v(i) > v(first))) add(`${name} hit: another has more (risk)`); }
    else {
      const labelsIn = pool.filter((i) => c.labels[i]); if (labelsIn.length === 0) continue;
      const pl = Math.max(...labelsIn.map(v)), pf = v(first);
      add(`${name} miss: label ${pl > pf ? '>' : pl < pf ? '<' : '='} first`);
      if (pl > pf && pool.every((i) => c.labels[i] || v(i) < pl)) add(`${name} miss: label strictly most in pool`);
    }
  }
}
for (const [k, n] of [...t].sort()) console.log(k, n);
