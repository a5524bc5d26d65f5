/**
 * The development cases of the skills relevance fits (`fit-relevance-kind.ts`, `fit-long-relevance.ts`):
 * the library sets' requests and everyday messages, the cached candidates (`ranking-cases.ts`)
 * replayed as the engine ranks them (bundled per-kind re-rankers, boundaries, everyday gate), and
 * the small-catalogue requests (`small-catalogues.ts`) of kind `skills` that today's engine shows
 * their skill, each small catalogue in one fold group by a hash of its name.
 */
import { createHash } from 'node:crypto';
import { lacksSpecificEvidence } from '../src/search/everyday-gate.js';
import { ENGINE_DEFAULTS } from '../src/search/index.js';
import type { QueryEvidence, RankedEvidence } from '../src/search/relevance.js';
import { BUNDLED_RERANKERS, type CatalogKind } from '../src/search/rerank.js';
import { catalogOf, loadSuite, type Split, type SuiteName } from './eval-suites.js';
import { asEngineSees, rankingCases, reorder, reorderedLabels, type Reordering } from './ranking-cases.js';
import { smallCatalogueCases } from './small-catalogues.js';

export const KIND: CatalogKind = 'skills';
/** How deep the relevance model reads a ranked list. */
export const DEPTH = 10;
const ordering: Reordering = { ...ENGINE_DEFAULTS, rerank: BUNDLED_RERANKERS };
/** A message's white-space words (the length classes of docs/retrieval.md). */
export const words = (text: string): number => text.split(/\s+/u).filter((word) => word !== '').length;

export interface Case {
  /** Fold group: `library` or the set's name. */
  readonly group: string;
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
  /** White-space words of the message. */
  readonly words: number;
  /** Skills in the catalogue searched. */
  readonly skills: number;
}

/** The splits read of a set: `library`'s test split is held out; the fresh sets are development data whole. */
const splitsOf = (suite: SuiteName): Split[] => (suite === 'library' ? ['train', 'dev'] : ['train', 'dev', 'test']);

/** The cases of `sets`, replayed as the engine ranks them. */
export async function libraryCases(sets: readonly SuiteName[], sample: number, model: string): Promise<Case[]> {
  const skillsIn = new Map<SuiteName, number>();
  const texts = new Map<string, string>();
  for (const suite of sets) {
    skillsIn.set(suite, (await loadSuite(catalogOf(suite) as SuiteName, { splits: [] }))!.skills.length);
    const loaded = await loadSuite(suite, { splits: splitsOf(suite), sample });
    if (loaded === undefined) throw new Error(`${suite}: no data; set SKILL_SEARCH_EVAL_DIR`);
    for (const query of loaded.queries) texts.set(`${suite}\u0000${query.id}`, query.query);
  }
  const raw = [];
  for (const suite of sets) raw.push(...(await rankingCases([suite], splitsOf(suite), sample, model)));
  return raw.map((one) => {
    if (one.kind !== KIND) throw new Error(`${one.suite} reads as ${one.kind}, not ${KIND}`);
    const text = texts.get(`${one.suite}\u0000${one.id}`);
    if (text === undefined) throw new Error(`${one.suite} ${one.id}: no text`);
    const c = asEngineSees(one);
    const ranked = reorder(c, ordering).slice(0, DEPTH);
    const skills = skillsIn.get(c.suite)!;
    const gated = lacksSpecificEvidence(ranked, c.query.terms.size, skills, ENGINE_DEFAULTS.everydayGate);
    const { query, answerable, named, namedRelevant } = c;
    return {
      group: c.suite,
      query,
      ranked,
      labels: reorderedLabels(c, ranked),
      answerable,
      named,
      namedRelevant,
      gated,
      small: false,
      words: words(text),
      skills,
    };
  });
}

/** The small-catalogue requests of kind `skills` today's engine shows their skill, each catalogue in one of `groups` by a hash of its name. */
export async function smallCases(groups: readonly string[]): Promise<Case[]> {
  const groupOf = (set: string): string => groups[Number.parseInt(createHash('sha256').update(set).digest('hex').slice(0, 8), 16) % groups.length]!;
  return (await smallCatalogueCases(process.cwd(), ENGINE_DEFAULTS.relevance))
    .filter((s) => s.kind === KIND)
    .map((s) => ({
      group: groupOf(s.set),
      query: s.evidence,
      ranked: s.ranked,
      labels: s.labels,
      answerable: true,
      named: false,
      namedRelevant: false,
      gated: lacksSpecificEvidence(s.ranked, s.terms, s.skills, ENGINE_DEFAULTS.everydayGate),
      small: true,
      words: words(s.query),
      skills: s.skills,
    }));
}
