/**
 * The skill side as several vectors, for the re-ranker's fits (`fit-rerank.ts --skill-vectors`): each catalogue skill's
 * name words and each of its description and `when_to_use` sentences embedded on their own, and per ranking case the
 * request's best cosine with them (`SkillVectorEvidence`), plain and centred on the mean of those vectors over the
 * catalogue. The request's vectors are the engine's: the whole message, and its sentences when the engine embeds them
 * (`query-chunks.ts`). Why and what it gave: docs/retrieval.md, twentieth round.
 */
import { dot } from '../src/embed/normalize.js';
import { resolveEmbedder } from '../src/embed/resolve.js';
import { Centroid } from '../src/search/centering.js';
import { ENGINE_DEFAULTS } from '../src/search/options.js';
import { lexicallySettled, queryChunks } from '../src/search/query-chunks.js';
import type { SkillVectorEvidence } from '../src/search/rerank.js';
import { humanizeName } from '../src/search/skill-text.js';
import type { Skill } from '../src/types.js';
import { loadSuite, queryVectorsFile, type SuiteName } from './eval-suites.js';
import { rememberVectors } from './query-vectors.js';
import type { RankingCase } from './ranking-cases.js';

/** Sentence ends and line breaks. */
const SENTENCE_BREAK = /(?<=[.!?])\s+|\n+/u;
const HAS_LETTER = /\p{L}/u;

/** A skill's description and `when_to_use` sentences (the whole description when it is one sentence). */
export function skillSentences(skill: Pick<Skill, 'description' | 'whenToUse'>): string[] {
  return [skill.description, skill.whenToUse ?? '']
    .flatMap((text) => text.split(SENTENCE_BREAK))
    .map((piece) => piece.trim())
    .filter((piece) => HAS_LETTER.test(piece));
}

/** One skill's extra vectors: its name's, and its sentences'. */
interface SkillVectors {
  readonly name: Float32Array;
  readonly sentences: readonly Float32Array[];
}

/** The best plain and centred cosine of any of `queries` with any of `vectors`. */
function best(queries: readonly Float32Array[], vectors: readonly Float32Array[], centroid: Centroid, key: string): { plain: number; centred: number } {
  let plain = Number.NEGATIVE_INFINITY;
  let centred = Number.NEGATIVE_INFINITY;
  for (const query of queries) {
    const queryMean = dot(query, centroid.mean);
    vectors.forEach((vector, v) => {
      const cosine = dot(query, vector);
      plain = Math.max(plain, cosine);
      centred = Math.max(centred, centroid.score(`${key}#${v}`, vector, cosine, queryMean));
    });
  }
  return { plain: Number.isFinite(plain) ? plain : 0, centred: Number.isFinite(centred) ? centred : 0 };
}

/**
 * Per case of `cases` (all over one catalogue, the suites `suites` load), the {@link SkillVectorEvidence} of the candidates
 * `wanted` picks (the others left undefined: the re-ranker reads only its pool).
 */
export async function skillVectorEvidence(
  cases: readonly RankingCase[],
  suites: readonly SuiteName[],
  wanted: (c: RankingCase) => readonly number[],
  model = 'use-lite',
): Promise<WeakMap<RankingCase, (SkillVectorEvidence | undefined)[]>> {
  const embedder = rememberVectors(resolveEmbedder(model), queryVectorsFile(resolveEmbedder(model)));
  const texts = new Map<string, string>();
  let skills: readonly Skill[] = [];
  for (const suite of suites) {
    const loaded = await loadSuite(suite);
    if (loaded === undefined) throw new Error(`--skill-vectors: suite ${suite} not found`);
    skills = loaded.skills;
    for (const query of loaded.queries) texts.set(`${suite}\u0000${query.id}`, query.query);
  }
  const vectorsOf = new Map<string, SkillVectors>();
  const names = await embedder.embed(
    skills.map((skill) => humanizeName(skill.name)),
    undefined,
    'passage',
  );
  const sentences = skills.map(skillSentences);
  const flat = await embedder.embed(sentences.flat(), undefined, 'passage');
  let at = 0;
  skills.forEach((skill, s) => {
    vectorsOf.set(skill.id, { name: names[s]!, sentences: flat.slice(at, at + sentences[s]!.length) });
    at += sentences[s]!.length;
  });
  const dimensions = embedder.dimensions;
  const nameCentroid = Centroid.of(names, dimensions);
  const sentenceCentroid = Centroid.of(flat, dimensions);
  const { minTerms, max } = ENGINE_DEFAULTS.queryChunks;
  const out = new WeakMap<RankingCase, (SkillVectorEvidence | undefined)[]>();
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
    const evidence: (SkillVectorEvidence | undefined)[] = c.candidates.map(() => undefined);
    for (const i of wanted(c)) {
      const hit = c.candidates[i]!;
      const vectors = vectorsOf.get(hit.id);
      if (vectors === undefined) continue;
      const name = best(queries, [vectors.name], nameCentroid, `${hit.id}#name`);
      const sentence = best(queries, vectors.sentences, sentenceCentroid, hit.id);
      evidence[i] = { nameCosine: name.plain, nameCentred: name.centred, sentenceCosine: sentence.plain, sentenceCentred: sentence.centred };
    }
    out.set(c, evidence);
  }
  embedder.save();
  return out;
}
