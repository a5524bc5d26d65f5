/**
 * The shared evaluation corpora (../shared/eval, read when present, never copied) as suites
 * of Skill objects and labelled queries, with the deterministic train/dev/test split that
 * fitting (scripts/fit-abstention.ts) and measuring (scripts/eval-shared.ts) both use.
 *
 * Split: each query goes to train (60%), dev (20%) or test (20%) by the sha256 of
 * `SPLIT_SEED:suite:id`, so a query's split never depends on which others were loaded, and
 * the test split is never seen by fitting. SkillsBench is a held-out check only (every query
 * is in `test`); the fresh library requests (`library-r2`) split 25/25/50, so their test
 * split is large enough to judge one request at a time; the third to seventh sets (`library-r3`, `library-r4`,
 * `library-r5`, `library-r6`, `library-r7`) are all `test`. Large splits are sampled
 * deterministically (every n-th query).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEvalQueries, type EvalQuery } from '../src/eval/queries.js';
import type { Embedder, Skill } from '../src/types.js';

export const EVAL_DIR = process.env.SKILL_SEARCH_EVAL_DIR ?? join(import.meta.dirname, '..', '..', 'shared', 'eval');

/** Where the eval and fit scripts keep their catalog indexes and remembered query vectors, so reruns embed nothing new. */
export const EVAL_CACHE_ROOT = join(tmpdir(), 'skill-search-eval');

/** An embedder id as a file-name part. */
export function fileSafe(embedder: Pick<Embedder, 'id'>): string {
  return embedder.id.replace(/[^\w.@-]+/g, '_');
}

/** The catalog a suite searches: the boundary requests search the library's. */
export function catalogOf(suite: SuiteName): string {
  return suite === 'boundaries' ||
    suite === 'library-r2' ||
    suite === 'library-r3' ||
    suite === 'library-r4' ||
    suite === 'library-r5' ||
    suite === 'library-r6' ||
    suite === 'library-r7'
    ? 'library'
    : suite;
}

/** The persistent index of one catalog (`label`, e.g. a suite name) under one embedder. */
export function evalIndexDir(label: string, embedder: Pick<Embedder, 'id'>): string {
  return join(EVAL_CACHE_ROOT, `${label}-${fileSafe(embedder)}`);
}

/** The file `rememberVectors` keeps one embedder's query vectors in. */
export function queryVectorsFile(embedder: Pick<Embedder, 'id'>): string {
  return join(EVAL_CACHE_ROOT, `queries-${fileSafe(embedder)}.txt`);
}
/** Our own labelled requests over the library (written for this project, see fixtures/eval/README.md). */
export const LIBRARY_QUERIES = join(import.meta.dirname, '..', 'fixtures', 'eval', 'library-queries.jsonl');
/** Fresh requests over the library, written and committed before their first measurement (issue #31; fixtures/eval/README.md). */
export const LIBRARY_R2_QUERIES = join(import.meta.dirname, '..', 'fixtures', 'eval', 'library-queries-r2.jsonl');
/** A third fresh set, held out whole (no train or dev): 30% everyday messages no skill answers (fixtures/eval/README.md). */
export const LIBRARY_R3_QUERIES = join(import.meta.dirname, '..', 'fixtures', 'eval', 'library-queries-r3.jsonl');
/** A fourth fresh set, held out whole and committed before any search ran over it (issue #31 done-when (a); fixtures/eval/README.md). */
export const LIBRARY_R4_QUERIES = join(import.meta.dirname, '..', 'fixtures', 'eval', 'library-queries-r4.jsonl');
/** A fifth fresh set, held out whole and committed before any search ran over it: 44% everyday messages (fixtures/eval/README.md). */
export const LIBRARY_R5_QUERIES = join(import.meta.dirname, '..', 'fixtures', 'eval', 'library-queries-r5.jsonl');
/** A sixth fresh set, held out whole and committed before any search ran over it: every skill, many told apart from a sibling (fixtures/eval/README.md). */
export const LIBRARY_R6_QUERIES = join(import.meta.dirname, '..', 'fixtures', 'eval', 'library-queries-r6.jsonl');
/** A seventh fresh set, held out whole and committed before any search ran over it: generic name words and siblings (fixtures/eval/README.md). */
export const LIBRARY_R7_QUERIES = join(import.meta.dirname, '..', 'fixtures', 'eval', 'library-queries-r7.jsonl');
/** Requests that fall on the "not for" boundaries of real library skills (see eval/boundaries/README.md). */
export const BOUNDARY_QUERIES = join(import.meta.dirname, '..', 'eval', 'boundaries', 'library-boundaries.jsonl');

export const SPLIT_SEED = 'skill-search-split-1';
export const SPLITS = ['train', 'dev', 'test'] as const;
export type Split = (typeof SPLITS)[number];
/** The ~24k-skill registry pool (a tools file) the scale scripts search; absent without the eval folder. */
export const REGISTRY_POOL = join(EVAL_DIR, 'pools', 'skill-registry-metadata', 'tools.jsonl');

/** Writes the first `size` lines of the registry pool as one tools file `file` (the cold-hook scripts' catalog). */
export function writePoolTools(file: string, size: number): void {
  const lines = readFileSync(REGISTRY_POOL, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  writeFileSync(file, `${lines.slice(0, size).join('\n')}\n`);
}
export const SUITE_NAMES = [
  'metatool',
  'seal',
  'skillsbench',
  'library',
  'boundaries',
  'library-r2',
  'library-r3',
  'library-r4',
  'library-r5',
  'library-r6',
  'library-r7',
] as const;
export type SuiteName = (typeof SUITE_NAMES)[number];

export interface Suite {
  readonly name: SuiteName;
  readonly skills: Skill[];
  readonly queries: EvalQuery[];
}

/** Upper bounds of train and dev in [0, 1) per suite; the rest is test. */
const SPLIT_BOUNDS: Partial<Record<SuiteName, readonly [number, number]>> = { 'library-r2': [0.25, 0.5] };

export function splitOf(suite: SuiteName, id: string): Split {
  if (suite === 'skillsbench' || suite === 'library-r3' || suite === 'library-r4' || suite === 'library-r5' || suite === 'library-r6' || suite === 'library-r7')
    return 'test';
  const digest = createHash('sha256').update(`${SPLIT_SEED}:${suite}:${id}`).digest();
  const u = digest.readUInt32BE(0) / 2 ** 32;
  const [train, dev] = SPLIT_BOUNDS[suite] ?? [0.6, 0.8];
  return u < train ? 'train' : u < dev ? 'dev' : 'test';
}

export function makeSkill(id: string, name: string, description: string, whenToUse?: string, body = ''): Skill {
  const text = `${name}\n${description}\n${whenToUse ?? ''}`;
  return {
    id,
    name,
    description,
    ...(whenToUse === undefined ? {} : { whenToUse }),
    source: 'skills',
    rank: 4,
    path: `tools:${id}`,
    body,
    tokenEstimate: Math.ceil(text.length / 4),
    contentHash: createHash('sha256').update(text).digest('hex'),
  };
}

function readJsonl(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** `description_for_model` (MetaTool plugins) is the text written for a model to choose the tool: it plays the `whenToUse` role. */
export function toolsAsSkills(file: string): Skill[] {
  return readJsonl(file).map((line) => {
    const name = String(line.name ?? line.id);
    const description = typeof line.description === 'string' ? line.description : name;
    const forModel = typeof line.description_for_model === 'string' && line.description_for_model !== description ? line.description_for_model : undefined;
    return makeSkill(String(line.id), name, description, forModel);
  });
}

/** Deterministic sample: every ⌈n/size⌉-th item, so reruns compare like with like. */
export function sample<T>(items: readonly T[], size: number): T[] {
  if (items.length <= size) return [...items];
  const step = items.length / size;
  return Array.from({ length: size }, (_, i) => items[Math.floor(i * step)]!);
}

/** The library's SKILL.md files as skills (first of each name wins), bodies included. */
export function librarySkills(): Skill[] {
  const root = join(EVAL_DIR, 'library');
  const seen = new Set<string>();
  const skills: Skill[] = [];
  for (const source of readdirSync(root).sort()) {
    const indexFile = join(root, source, '_index.jsonl');
    if (!existsSync(indexFile)) continue;
    for (const line of readJsonl(indexFile)) {
      const name = String(line.name);
      if (seen.has(name)) continue;
      seen.add(name);
      const file = join(root, source, String(line.folder ?? name), 'SKILL.md');
      const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
      const body = text.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n?/, '');
      skills.push(makeSkill(name, name, typeof line.description === 'string' ? line.description : name, undefined, body));
    }
  }
  return skills;
}

export interface LoadOptions {
  /** Keep only these splits' queries. @default all */
  readonly splits?: readonly Split[];
  /** Most labelled queries per suite after splitting (MetaTool has 21k). @default 2000 */
  readonly sample?: number;
}

/** A suite, or undefined when its data is absent. */
export async function loadSuite(name: SuiteName, options: LoadOptions = {}): Promise<Suite | undefined> {
  const dir = (folder: string): string => join(EVAL_DIR, folder);
  const size = options.sample ?? 2000;
  const keep = (queries: EvalQuery[]): EvalQuery[] =>
    options.splits === undefined ? queries : queries.filter((query) => options.splits!.includes(splitOf(name, query.id)));
  switch (name) {
    case 'metatool': {
      if (!existsSync(dir('metatool'))) return undefined;
      const labelled = sample(keep(await readEvalQueries(join(dir('metatool'), 'queries.jsonl'))), size);
      const negatives = keep(await readEvalQueries(join(dir('metatool'), 'queries_no_tool.jsonl')));
      return { name, skills: toolsAsSkills(join(dir('metatool'), 'tools.jsonl')), queries: [...labelled, ...negatives] };
    }
    case 'seal':
      if (!existsSync(dir('seal-tools'))) return undefined;
      return {
        name,
        skills: toolsAsSkills(join(dir('seal-tools'), 'tools.jsonl')),
        queries: sample(keep(await readEvalQueries(join(dir('seal-tools'), 'queries.jsonl'))), size),
      };
    case 'skillsbench':
      if (!existsSync(dir('skillsbench'))) return undefined;
      return {
        name,
        skills: toolsAsSkills(join(dir('skillsbench'), 'tools.jsonl')),
        queries: keep(await readEvalQueries(join(dir('skillsbench'), 'queries.jsonl'))),
      };
    case 'library':
      if (!existsSync(dir('library'))) return undefined;
      return { name, skills: librarySkills(), queries: keep(await readEvalQueries(LIBRARY_QUERIES)) };
    case 'boundaries':
      if (!existsSync(dir('library'))) return undefined;
      return { name, skills: librarySkills(), queries: keep(await readEvalQueries(BOUNDARY_QUERIES)) };
    case 'library-r2':
      if (!existsSync(dir('library'))) return undefined;
      return { name, skills: librarySkills(), queries: keep(await readEvalQueries(LIBRARY_R2_QUERIES)) };
    case 'library-r3':
      if (!existsSync(dir('library'))) return undefined;
      return { name, skills: librarySkills(), queries: keep(await readEvalQueries(LIBRARY_R3_QUERIES)) };
    case 'library-r4':
      if (!existsSync(dir('library'))) return undefined;
      return { name, skills: librarySkills(), queries: keep(await readEvalQueries(LIBRARY_R4_QUERIES)) };
    case 'library-r5':
      if (!existsSync(dir('library'))) return undefined;
      return { name, skills: librarySkills(), queries: keep(await readEvalQueries(LIBRARY_R5_QUERIES)) };
    case 'library-r6':
      if (!existsSync(dir('library'))) return undefined;
      return { name, skills: librarySkills(), queries: keep(await readEvalQueries(LIBRARY_R6_QUERIES)) };
    case 'library-r7':
      if (!existsSync(dir('library'))) return undefined;
      return { name, skills: librarySkills(), queries: keep(await readEvalQueries(LIBRARY_R7_QUERIES)) };
  }
}

/** Every suite's query texts, each suite sampled to `perSuite` queries (deterministic), in suite order (the library's extra request sets left out). */
export async function evalQueryTexts(perSuite = 400): Promise<string[]> {
  const texts: string[] = [];
  for (const name of SUITE_NAMES) {
    if (
      name === 'boundaries' ||
      name === 'library-r2' ||
      name === 'library-r3' ||
      name === 'library-r4' ||
      name === 'library-r5' ||
      name === 'library-r6' ||
      name === 'library-r7'
    )
      continue;
    const suite = await loadSuite(name, { sample: perSuite });
    if (suite !== undefined) texts.push(...suite.queries.map((query) => query.query));
  }
  return texts;
}
