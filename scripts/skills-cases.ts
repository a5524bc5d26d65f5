/**
 * The development cases of the skills relevance fits (`fit-relevance-kind.ts`, `fit-long-relevance.ts`):
 * the library sets' requests and everyday messages, the cached candidates (`ranking-cases.ts`)
 * replayed as the engine ranks them (bundled per-kind re-rankers, boundaries, everyday gate), and
 * the small-catalogue requests (`small-catalogues.ts`) of kind `skills` that today's engine shows
 * their skill, each small catalogue in one fold group by a hash of its name; and what the engine
 * shows them (`tally`). Also read by `long-chat-gate.ts`.
 *
 * Every case is built in one object literal: a case extended by a spread (`{ ...row, more }`) gets
 * a hidden class of its own in V8, and a loop reading many such cases runs several times slower
 * (docs/retrieval.md, "The replay shared by `fit-relevance-kind.ts` and `long-chat-gate.ts`").
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
/** A long message: more white-space words than this (docs/retrieval.md, round 6). */
export const LONG_WORDS = 12;
/** A very long one (library-r12's class). */
export const VERY_LONG_WORDS = 40;
/** Past the longest message of round 10's data (r13's 64 words, its entry's 70); r14's class (round 11). */
export const OVER_80_WORDS = 80;
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
  /** The message. */
  readonly text: string;
  /** Its white-space words. */
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
      text,
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
      text: s.query,
      words: words(s.query),
      skills: s.skills,
    }));
}

/** Answerable and shown counts of one pool of requests. */
export interface Hits {
  answerable: number;
  shown1: number;
  shown5: number;
}
/** What the engine shows the cases, pooled. */
export interface Outcome {
  /** All answerable requests, those over `LONG_WORDS`, `VERY_LONG_WORDS` and `OVER_80_WORDS` words. */
  all: Hits;
  long: Hits;
  veryLong: Hits;
  over80: Hits;
  /** Hits shown to answerable requests, and those shown nothing. */
  length: number;
  blank: number;
  /** No-skill messages, and those shown nothing; the same over `LONG_WORDS` words. */
  negatives: number;
  abstained: number;
  longNegatives: number;
  longAbstained: number;
  /** Small-catalogue requests whose shown list lacks their skill. */
  smallLost: number;
}
const hits = (): Hits => ({ answerable: 0, shown1: 0, shown5: 0 });

/** Whether the `shown` hits of `row` hold a relevant skill (a named skill is shown alone). */
function relevantShown(row: Case, shown: number): boolean {
  if (row.named) return row.namedRelevant;
  for (let i = 0; i < shown && i < row.labels.length; i += 1) if (row.labels[i]) return true;
  return false;
}

/** What the engine shows `rows`: a named skill alone, whatever the relevance; nothing when the everyday gate empties the list; else `count(row)` hits. */
export function tally(rows: readonly Case[], count: (row: Case) => number): Outcome {
  const o: Outcome = {
    all: hits(),
    long: hits(),
    veryLong: hits(),
    over80: hits(),
    length: 0,
    blank: 0,
    negatives: 0,
    abstained: 0,
    longNegatives: 0,
    longAbstained: 0,
    smallLost: 0,
  };
  for (const row of rows) {
    const shown = row.named ? 1 : row.gated ? 0 : count(row);
    if (row.small) {
      if (!relevantShown(row, shown)) o.smallLost += 1;
      continue;
    }
    const long = row.words > LONG_WORDS;
    if (!row.answerable) {
      o.negatives += 1;
      if (long) o.longNegatives += 1;
      if (shown === 0) {
        o.abstained += 1;
        if (long) o.longAbstained += 1;
      }
      continue;
    }
    const first = row.named ? row.namedRelevant : shown > 0 && row.labels[0] === true;
    const any = relevantShown(row, shown);
    o.length += shown;
    if (shown === 0) o.blank += 1;
    add(o.all, first, any);
    if (long) add(o.long, first, any);
    if (row.words > VERY_LONG_WORDS) add(o.veryLong, first, any);
    if (row.words > OVER_80_WORDS) add(o.over80, first, any);
  }
  return o;
}
function add(pool: Hits, first: boolean, any: boolean): void {
  pool.answerable += 1;
  if (first) pool.shown1 += 1;
  if (any) pool.shown5 += 1;
}
