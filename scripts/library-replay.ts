/**
 * The skill-library cases that `fit-relevance-kind.ts` and `long-chat-gate.ts` replay: `library` train + dev and
 * every split of the given fresh sets, each from the ranking cache (`ranking-cases.ts`) re-ordered as the engine
 * orders it (bundled per-kind re-rankers, boundaries) and cut at {@link REPLAY_DEPTH}, with today's everyday gate
 * applied and today's relevance per hit; plus the small-catalogue requests of kind `skills` (`small-catalogues.ts`) that
 * today's engine shows their skill, each catalogue in one fold group by a hash of its name.
 *
 * A script that needs more per case builds its own object literal, not `{ ...replayCase, more }`: V8 (Node 20) gives
 * nearly every object so spread and extended a hidden class of its own, which made the replay loops that read
 * thousands of cases (`long-chat-gate.ts`) about eight times slower (docs/retrieval.md, round 7).
 */
import { createHash } from 'node:crypto';
import { lacksSpecificEvidence } from '../src/search/everyday-gate.js';
import { ENGINE_DEFAULTS } from '../src/search/index.js';
import { relevanceFor } from '../src/search/abstention.js';
import { relevance, type QueryEvidence, type RankedEvidence } from '../src/search/relevance.js';
import { BUNDLED_RERANKERS, type CatalogKind } from '../src/search/rerank.js';
import { loadSuite, type SuiteName } from './eval-suites.js';
import { asEngineSees, rankingCases, reorder, reorderedLabels, type Reordering } from './ranking-cases.js';
import { smallCatalogueCases } from './small-catalogues.js';

/** The catalogue kind replayed. */
export const REPLAY_KIND: CatalogKind = 'skills';
/** Ranked hits kept per case: as deep as the relevance model reads. */
export const REPLAY_DEPTH = 10;

const words = (text: string): number => text.split(/\s+/u).filter((word) => word !== '').length;

export interface ReplayCase {
  /** Fold group: `library` or the set's name; a small catalogue's request, the group its catalogue hashes to. */
  readonly group: string;
  /** The message. */
  readonly text: string;
  /** Its white-space words (the length classes of `paired-per-query.ts`). */
  readonly words: number;
  readonly query: QueryEvidence;
  readonly ranked: readonly RankedEvidence[];
  readonly labels: readonly boolean[];
  readonly answerable: boolean;
  readonly named: boolean;
  readonly namedRelevant: boolean;
  /** The everyday gate empties the shown list whatever the relevance. */
  readonly gated: boolean;
  /** A small-catalogue request (judged by the bound, not pooled with the library sets). */
  readonly small: boolean;
  /** Skills in the catalogue searched. */
  readonly skills: number;
  /** Today's relevance (the bundled hybrid model of the kind) of each ranked hit. */
  readonly scores: readonly number[];
}

export interface LibraryReplay {
  /** The library sets' cases, `library` first, then `sets` in order. */
  readonly library: readonly ReplayCase[];
  /** The fold groups, in the order the library cases first name them. */
  readonly groups: readonly string[];
  readonly small: readonly ReplayCase[];
}

/** The cases of `library` train + dev and every split of `sets` (each split sampled to `sample`), ranked with `model`. */
export async function libraryReplay(sets: readonly SuiteName[], sample: number, model: string): Promise<LibraryReplay> {
  const texts = new Map<string, string>();
  const skillsIn = new Map<SuiteName, number>();
  for (const suite of ['library', ...sets] as SuiteName[]) {
    const loaded = await loadSuite(suite, { sample });
    if (loaded === undefined) throw new Error(`${suite}: no data; set SKILL_SEARCH_EVAL_DIR`);
    skillsIn.set(suite, loaded.skills.length);
    for (const query of loaded.queries) texts.set(`${suite}\u0000${query.id}`, query.query);
  }
  const ordering: Reordering = { ...ENGINE_DEFAULTS, rerank: BUNDLED_RERANKERS };
  const today = relevanceFor(ENGINE_DEFAULTS.relevance, REPLAY_KIND).models.hybrid;
  const scored = (ranked: readonly RankedEvidence[], query: QueryEvidence): number[] => (ranked.length === 0 ? [] : relevance(today, ranked, query));
  const raw = [...(await rankingCases(['library'], ['train', 'dev'], sample, model)), ...(await rankingCases(sets, ['train', 'dev', 'test'], sample, model))];
  const library = raw.map((one): ReplayCase => {
    if (one.kind !== REPLAY_KIND) throw new Error(`${one.suite} reads as ${one.kind}, not ${REPLAY_KIND}`);
    const c = asEngineSees(one);
    const ranked = reorder(c, ordering).slice(0, REPLAY_DEPTH);
    const text = texts.get(`${c.suite}\u0000${c.id}`);
    if (text === undefined) throw new Error(`${c.suite} ${c.id}: no text`);
    const skills = skillsIn.get(c.suite)!;
    return {
      group: c.suite,
      text,
      words: words(text),
      query: c.query,
      ranked,
      labels: reorderedLabels(c, ranked),
      answerable: c.answerable,
      named: c.named,
      namedRelevant: c.namedRelevant,
      gated: lacksSpecificEvidence(ranked, c.query.terms.size, skills, ENGINE_DEFAULTS.everydayGate),
      small: false,
      skills,
      scores: scored(ranked, c.query),
    };
  });
  const groups = [...new Set(library.map((one) => one.group))];
  const groupOf = (set: string): string => groups[Number.parseInt(createHash('sha256').update(set).digest('hex').slice(0, 8), 16) % groups.length]!;
  const small = (await smallCatalogueCases(process.cwd(), ENGINE_DEFAULTS.relevance))
    .filter((s) => s.kind === REPLAY_KIND)
    .map(
      (s): ReplayCase => ({
        group: groupOf(s.set),
        text: s.query,
        words: words(s.query),
        query: s.evidence,
        ranked: s.ranked,
        labels: s.labels,
        answerable: true,
        named: false,
        namedRelevant: false,
        gated: lacksSpecificEvidence(s.ranked, s.terms, s.skills, ENGINE_DEFAULTS.everydayGate),
        small: true,
        skills: s.skills,
        scores: scored(s.ranked, s.evidence),
      }),
    );
  return { library, groups, small };
}
