/**
 * The shared evaluation corpora (../shared/eval, read when present, never copied) as suites
 * of Skill objects and labelled queries, with the deterministic train/dev/test split that
 * fitting (scripts/fit-abstention.ts) and measuring (scripts/eval-shared.ts) both use.
 *
 * Split: each query goes to train (60%), dev (20%) or test (20%) by the sha256 of
 * `SPLIT_SEED:suite:id`, so a query's split never depends on which others were loaded, and
 * the test split is never seen by fitting. SkillsBench is a held-out check only (every query
 * is in `test`); the fresh library requests (`library-r2`) split 25/25/50, so their test
 * split is large enough to judge one request at a time; the task statements (`library-tasks`) are all `dev`; the third to twenty-first sets (`library-r3`, `library-r4`,
 * `library-r5`, `library-r6`, `library-r7`, `library-r8`, `library-r9`, `library-r10`, `library-r11`, `library-r12`, `library-r13`, `library-r14`, `library-r15`, `library-r16`, `library-r17`, `library-r18`, `library-r19`, `library-r20`, `library-r21`) are all `test`. Large splits are sampled
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
  return suite in LIBRARY_REQUESTS ? 'library' : suite;
}

/** The persistent index of one catalog (`label`, e.g. a suite name) under one embedder. */
export function evalIndexDir(label: string, embedder: Pick<Embedder, 'id'>): string {
  return join(EVAL_CACHE_ROOT, `${label}-${fileSafe(embedder)}`);
}

/** The file `rememberVectors` keeps one embedder's query vectors in. */
export function queryVectorsFile(embedder: Pick<Embedder, 'id'>): string {
  return join(EVAL_CACHE_ROOT, `queries-${fileSafe(embedder)}.txt`);
}
const fixture = (file: string): string => join(import.meta.dirname, '..', 'fixtures', 'eval', file);
/**
 * The request sets written for this project over the library's skills, by suite (how and when each
 * was written: fixtures/eval/README.md). From r2 on, each was committed before any search ran over it.
 */
export const LIBRARY_REQUESTS = {
  library: fixture('library-queries.jsonl'),
  /** Requests that fall on the "not for" boundaries of real library skills (eval/boundaries/README.md). */
  boundaries: join(import.meta.dirname, '..', 'eval', 'boundaries', 'library-boundaries.jsonl'),
  'library-r2': fixture('library-queries-r2.jsonl'),
  /** 30% everyday messages no skill answers. */
  'library-r3': fixture('library-queries-r3.jsonl'),
  'library-r4': fixture('library-queries-r4.jsonl'),
  /** 44% everyday messages. */
  'library-r5': fixture('library-queries-r5.jsonl'),
  /** Every skill, many told apart from a sibling. */
  'library-r6': fixture('library-queries-r6.jsonl'),
  /** Generic name words and siblings. */
  'library-r7': fixture('library-queries-r7.jsonl'),
  /** Every skill; short, medium and long prompts in thirds. */
  'library-r8': fixture('library-queries-r8.jsonl'),
  /** Every skill again, lengths in thirds; a second blind judge of one ranking change. */
  'library-r9': fixture('library-queries-r9.jsonl'),
  /** Every skill, lengths in thirds, and 100 everyday messages; judges one ranking and one abstention change. */
  'library-r10': fixture('library-queries-r10.jsonl'),
  /** Every skill, lengths in thirds, and 100 everyday messages (over 40 of them long); a blind judge of one change. */
  'library-r11': fixture('library-queries-r11.jsonl'),
  /** Every skill, lengths in quarters (a quarter over 40 words), and 100 everyday messages (60 of them long); a blind judge of long messages. */
  'library-r12': fixture('library-queries-r12.jsonl'),
  /** A second set like r12 (every skill, lengths in quarters, 100 everyday messages); a blind judge of long messages. */
  'library-r13': fixture('library-queries-r13.jsonl'),
  /** A third set like r12 (every skill, lengths in quarters, 100 everyday messages), a third of its longest messages over 80 words; a blind judge of long messages. */
  'library-r14': fixture('library-queries-r14.jsonl'),
  /** A fourth set like r12 (every skill, lengths in quarters, 100 everyday messages), about half of its longest messages over 80 words; a blind judge of long messages. */
  'library-r15': fixture('library-queries-r15.jsonl'),
  /** A fifth set like r12 (every skill, lengths in quarters, 100 everyday messages), over a third of its longest answerable messages over 80 words; a blind judge of long messages. */
  'library-r16': fixture('library-queries-r16.jsonl'),
  /** Like r16 but 300 answerable in quarters of 75, every skill that fully serves a request labelled (21 with two or three); a blind judge of long messages. */
  'library-r17': fixture('library-queries-r17.jsonl'),
  /** Like r17: 300 answerable in quarters of 75 over the skills r1–r17 labelled least, every skill that fully serves a request labelled (8 with two or three); a blind judge of long messages. */
  'library-r18': fixture('library-queries-r18.jsonl'),
  /** Like r18: 300 answerable in quarters of 75 over the skills r1–r18 labelled least, every skill that fully serves a request labelled (21 with two or three); a blind judge of long messages. */
  'library-r19': fixture('library-queries-r19.jsonl'),
  /** Like r19: 300 answerable in quarters of 75 over the skills r1–r19 labelled least, every skill that fully serves a request labelled (17 with two or three); a blind judge of long messages. */
  'library-r20': fixture('library-queries-r20.jsonl'),
  /** Like r20: 300 answerable in quarters of 75 over the skills r1–r20 labelled least, every skill that fully serves a request labelled (14 with two or three); a blind judge of long messages. */
  'library-r21': fixture('library-queries-r21.jsonl'),
  /** Pasted task statements (100–140 words, SkillsBench-shaped), most with two to five fitting skills, 15 with none: development data only. */
  'library-tasks': fixture('library-tasks-dev.jsonl'),
} as const;
export type LibrarySuite = keyof typeof LIBRARY_REQUESTS;
export const LIBRARY_QUERIES = LIBRARY_REQUESTS.library;
/** The fresh library request sets in the order they were written (`library-r2` … ). */
export const FRESH_LIBRARY_SETS = (Object.keys(LIBRARY_REQUESTS) as LibrarySuite[]).filter((name) => name.startsWith('library-r'));
/** The fresh sets from `library-r2` through `last`: a script's development data when `last` was the newest read. */
export const freshLibrarySetsThrough = (last: LibrarySuite): LibrarySuite[] => FRESH_LIBRARY_SETS.slice(0, FRESH_LIBRARY_SETS.indexOf(last) + 1);
/** Suites held out whole: every request is in `test` (every fresh set but r2, split 25/25/50 below). */
const ALL_TEST: ReadonlySet<SuiteName> = new Set(['skillsbench', ...FRESH_LIBRARY_SETS.filter((name) => name !== 'library-r2')]);
/** Suites that are development data whole: every request is in `dev`. */
const ALL_DEV: ReadonlySet<SuiteName> = new Set(['library-tasks']);

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
export const SUITE_NAMES = ['metatool', 'seal', 'skillsbench', ...(Object.keys(LIBRARY_REQUESTS) as LibrarySuite[])] as const;
export type SuiteName = (typeof SUITE_NAMES)[number];

export interface Suite {
  readonly name: SuiteName;
  readonly skills: Skill[];
  readonly queries: EvalQuery[];
}

/** Upper bounds of train and dev in [0, 1) per suite; the rest is test. */
const SPLIT_BOUNDS: Partial<Record<SuiteName, readonly [number, number]>> = { 'library-r2': [0.25, 0.5] };

export function splitOf(suite: SuiteName, id: string): Split {
  if (ALL_TEST.has(suite)) return 'test';
  if (ALL_DEV.has(suite)) return 'dev';
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
    default:
      if (!existsSync(dir('library'))) return undefined;
      return { name, skills: librarySkills(), queries: keep(await readEvalQueries(LIBRARY_REQUESTS[name])) };
  }
}

/** Every suite's query texts, each suite sampled to `perSuite` queries (deterministic), in suite order (the library's extra request sets left out). */
export async function evalQueryTexts(perSuite = 400): Promise<string[]> {
  const texts: string[] = [];
  for (const name of SUITE_NAMES) {
    if (name !== 'library' && name in LIBRARY_REQUESTS) continue;
    const suite = await loadSuite(name, { sample: perSuite });
    if (suite !== undefined) texts.push(...suite.queries.map((query) => query.query));
  }
  return texts;
}
