/**
 * Answerable requests over small catalogues, for the everyday gate's common-words clause
 * (`everyday-gate.ts`), which must not take a user's first skills away: the test fixtures' skill
 * sets (each skill's description's first sentence as its request) and seeded random subsets of
 * 1, 3, 10 and 30 library skills (the library train requests whose skill is in the subset).
 * Searched with the engine's defaults and the clause off (USE-lite, exact vectors); every request
 * whose shown list holds its skill, without naming it, is kept with its ranked evidence: the
 * clause may not gate any of them.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { createUseLiteEmbedder } from '../src/embed/use-lite.js';
import { scanSkillsDir } from '../src/load/scan.js';
import { relevanceFor, scoringDepth } from '../src/search/abstention.js';
import { SkillSearchEngine } from '../src/search/engine.js';
import { ENGINE_DEFAULTS, type EngineOptions } from '../src/search/options.js';
import type { QueryEvidence, RankedEvidence } from '../src/search/relevance.js';
import type { CatalogKind } from '../src/search/rerank.js';
import type { Skill } from '../src/types.js';
import { librarySkills, loadSuite } from './eval-suites.js';
import { suiteKind } from './ranking-cases.js';

/** One request whose shown list holds its skill with the clause off. */
export interface ShownSmall {
  readonly set: string;
  readonly query: string;
  readonly skills: number;
  readonly terms: number;
  /** The kind of the catalogue (`catalogKind`), which picks its re-ranker and relevance model. */
  readonly kind: CatalogKind;
  /** The ranked list as deep as the engine's search reads it. */
  readonly ranked: readonly RankedEvidence[];
  /** The query's evidence beside its ranked list, as the relevance model reads it. */
  readonly evidence: QueryEvidence;
  /** Per ranked hit: the request's skill. */
  readonly labels: readonly boolean[];
}

const FIXTURE_SETS = ['fixtures/valid/skills', 'fixtures/chinese-skills/skills', 'test/cli/fixtures/skills', 'examples/skills'];
const SUBSET_SIZES = [1, 3, 10, 30];
const DRAWS = 12;

const order = (key: string): string => createHash('sha256').update(`small-catalogues:${key}`).digest('hex');
const firstSentence = (text: string): string => text.split(/(?<=[.!?。])\s*/u)[0]!.trim();

interface Request {
  readonly query: string;
  readonly relevant: readonly string[];
}

async function shownOver(
  set: string,
  skills: readonly Skill[],
  requests: readonly Request[],
  embedder: ReturnType<typeof createUseLiteEmbedder>,
  relevance: EngineOptions['relevance'],
): Promise<ShownSmall[]> {
  const engine = await SkillSearchEngine.open({ embedder, ann: 'exact', everydayGate: { bm25Share: 0 }, relevance });
  await engine.sync(skills);
  const kept: ShownSmall[] = [];
  const kind = suiteKind(skills);
  for (const { query, relevant } of requests) {
    const fits = (id: string, name: string): boolean => relevant.includes(id) || relevant.includes(name);
    const shown = await engine.search(query);
    if (!shown.some((hit) => fits(hit.skill.id, hit.skill.name))) continue;
    const { ranked, exact } = await engine.rank(query, {
      mode: 'hybrid',
      k: Math.max(ENGINE_DEFAULTS.k, scoringDepth(relevanceFor(ENGINE_DEFAULTS.relevance, kind))),
    });
    if (exact.length > 0) continue;
    const labels = ranked.ranked.map((hit) => fits(hit.id, hit.name));
    kept.push({ set, query, skills: skills.length, terms: ranked.query.terms.size, kind, ranked: ranked.ranked, evidence: ranked.query, labels });
  }
  await engine.close();
  return kept;
}

/** Every small-catalogue request shown its skill with the clause off (and the given relevance models), with its ranked evidence. */
export async function smallCatalogueCases(root = process.cwd(), relevance = ENGINE_DEFAULTS.relevance): Promise<ShownSmall[]> {
  const embedder = createUseLiteEmbedder();
  const kept: ShownSmall[] = [];
  for (const dir of FIXTURE_SETS) {
    const { skills } = await scanSkillsDir(join(root, dir), { source: 'skills', rank: 0 });
    const requests = skills.map((skill) => ({ query: firstSentence(skill.description), relevant: [skill.id] }));
    kept.push(...(await shownOver(dir, skills, requests, embedder, relevance)));
  }
  const library = librarySkills();
  const byName = new Map(library.map((skill) => [skill.name, skill]));
  const train = (await loadSuite('library', { splits: ['train'] }))!.queries;
  const labelled = [...new Set(train.flatMap((query) => query.relevant))].filter((name) => byName.has(name)).sort((a, b) => order(a).localeCompare(order(b)));
  for (const size of SUBSET_SIZES) {
    for (let draw = 0; draw < DRAWS; draw += 1) {
      // A labelled skill first, so every subset has requests, then the rest drawn from the whole library.
      const seed = labelled[(size * DRAWS + draw) % labelled.length]!;
      const rest = library
        .filter((skill) => skill.name !== seed)
        .sort((a, b) => order(`${size}:${draw}:${a.name}`).localeCompare(order(`${size}:${draw}:${b.name}`)))
        .slice(0, size - 1);
      const skills = [byName.get(seed)!, ...rest];
      const names = new Set(skills.map((skill) => skill.name));
      const requests = train.filter((query) => query.relevant.some((name) => names.has(name)));
      kept.push(...(await shownOver(`library ${size} #${draw}`, skills, requests, embedder, relevance)));
    }
  }
  return kept;
}
