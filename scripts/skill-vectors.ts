/**
 * The skill's name as its own vector, for the re-ranker's fits (`fit-rerank.ts --skill-vectors`): each catalogue
 * skill's name embedded on its own (`nameText`, as the engine stores it: `src/search/name-vectors.ts`), and per ranking
 * case the request's best cosine with the names of the candidates wanted (`RerankCandidate.nameCosine`). The request's
 * vectors are the engine's: the whole message, and its sentences when the engine embeds them (`query-chunks.ts`). Why
 * and what it gave: docs/retrieval.md, twentieth and twenty-first rounds.
 */
import { dot } from '../src/embed/normalize.js';
import { resolveEmbedder } from '../src/embed/resolve.js';
import { nameText } from '../src/search/name-vectors.js';
import { ENGINE_DEFAULTS } from '../src/search/options.js';
import { lexicallySettled, queryChunks } from '../src/search/query-chunks.js';
import type { Skill } from '../src/types.js';
import { loadSuite, queryVectorsFile, type SuiteName } from './eval-suites.js';
import { rememberVectors } from './query-vectors.js';
import type { RankingCase } from './ranking-cases.js';

/** The best cosine of any of `queries` with `vector`. */
function best(queries: readonly Float32Array[], vector: Float32Array): number {
  return Math.max(...queries.map((query) => dot(query, vector)));
}

/**
 * Per case of `cases` (all over one catalogue, the suites `suites` load), the name cosines of the candidates `wanted`
 * picks (the others left undefined: the re-ranker reads only its pool).
 */
export async function skillVectorEvidence(
  cases: readonly RankingCase[],
  suites: readonly SuiteName[],
  wanted: (c: RankingCase) => readonly number[],
  model = 'use-lite',
): Promise<WeakMap<RankingCase, ({ readonly nameCosine: number } | undefined)[]>> {
  const embedder = rememberVectors(resolveEmbedder(model), queryVectorsFile(resolveEmbedder(model)));
  const texts = new Map<string, string>();
  let skills: readonly Skill[] = [];
  for (const suite of suites) {
    const loaded = await loadSuite(suite);
    if (loaded === undefined) throw new Error(`--skill-vectors: suite ${suite} not found`);
    skills = loaded.skills;
    for (const query of loaded.queries) texts.set(`${suite}\u0000${query.id}`, query.query);
  }
  const names = await embedder.embed(
    skills.map((skill) => nameText(skill.name)),
    undefined,
    'passage',
  );
  const nameOf = new Map(skills.map((skill, s) => [skill.id, names[s]!]));
  const { minTerms, max } = ENGINE_DEFAULTS.queryChunks;
  const out = new WeakMap<RankingCase, ({ readonly nameCosine: number } | undefined)[]>();
  for (const c of cases) {
    const text = texts.get(`${c.suite}\u0000${c.id}`);
    if (text === undefined) throw new Error(`--skill-vectors: no text for ${c.suite} ${c.id}`);
    // The engine's query vectors: the whole message, and its sentences when it is long and BM25 has not settled it.
    const lexical = c.candidates
      .filter((hit) => (hit.lexical ?? 0) > 0)
      .map((hit) => ({ score: hit.lexical!, coverage: hit.coverage ?? 0 }))
      .sort((a, b) => b.score - a.score);
    const chunks = c.query.terms.size >= minTerms && !lexicallySettled(lexical, ENGINE_DEFAULTS.queryChunks) ? queryChunks(text, max) : [];
    const queries = await embedder.embed([text, ...chunks], undefined, 'query');
    const evidence: ({ readonly nameCosine: number } | undefined)[] = c.candidates.map(() => undefined);
    for (const i of wanted(c)) {
      const vector = nameOf.get(c.candidates[i]!.id);
      if (vector !== undefined) evidence[i] = { nameCosine: best(queries, vector) };
    }
    out.set(c, evidence);
  }
  embedder.save();
  return out;
}
