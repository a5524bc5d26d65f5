import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Run order: the quality numbers early, so an interrupted run (results are written after each suite) keeps them. */
export const SUITE_NAMES = [
  'embed',
  'runtime',
  'hit-rate',
  'query',
  'crosslingual',
  'prefetch',
  'reindex',
  'ann',
  'ann-choice',
  'lexical',
  'scaling',
  'scale',
  'imports',
  'new-folder',
  'cold-hook',
  'cold-build',
  'cold-change',
  'cold-readers',
  'cold-watch',
] as const;
export type SuiteName = (typeof SUITE_NAMES)[number];

/** Where the repository root is, whatever the working directory. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface BenchOptions {
  /** Small sizes and short time budgets, for a smoke run. @default false */
  readonly quick?: boolean;
  /** Run only these suites. @default every suite */
  readonly only?: readonly SuiteName[];
  /** Catalog sizes for the scaling, ANN and lexical runs. @default [1000, 10000, 24000] (quick: [300, 1000]) */
  readonly sizes?: readonly number[];
  /** Real evaluation sets; `null` forces the synthetic fixtures. @default `../shared/eval` beside the repo, when present */
  readonly evalDir?: string | null;
  /** Embedding cache, kept across runs. @default `bench/.cache` */
  readonly cacheDir?: string;
  /**
   * Where results.json and chart.svg are written. @default `bench/` for the full default run;
   * `bench/.cache/quick/` with `--quick` and `bench/.cache/partial/` for any other subset
   * (`--only`, `--sizes`, `--embedder`, …), so only a full run replaces the committed results.
   */
  readonly outDir?: string;
  /** Embedder spec passed to `resolveEmbedder`. @default the library default (USE-lite) */
  readonly embedder?: string;
  /** Queries sampled per labelled set for the hit-rate runs. @default 400 (quick: 60) */
  readonly maxQueries?: number;
  /** tinybench time budget per task, ms. @default 1500 (quick: 200) */
  readonly taskTimeMs?: number;
  /** SKILL.md edits the `cold-watch` suite makes (each waits out the watcher's ~1.3 s settling). @default 100 (quick: 20) */
  readonly watchEdits?: number;
}

export type ResolvedBenchOptions = Readonly<Required<Omit<BenchOptions, 'evalDir' | 'embedder'>>> & {
  readonly evalDir: string | null;
  readonly embedder: string | undefined;
};

const defaults = {
  quick: false,
  only: SUITE_NAMES,
  sizes: [1000, 10_000, 24_000],
  cacheDir: path.join(REPO_ROOT, 'bench', '.cache'),
  outDir: path.join(REPO_ROOT, 'bench'),
  maxQueries: 400,
  taskTimeMs: 1500,
  watchEdits: 100,
} as const;

const quickDefaults = {
  sizes: [300, 1000],
  maxQueries: 60,
  taskTimeMs: 200,
  watchEdits: 20,
  outDir: path.join(REPO_ROOT, 'bench', '.cache', 'quick'),
} as const;

/** Where runs that are not the full default one write, so they never replace the committed results. */
const PARTIAL_OUT_DIR = path.join(REPO_ROOT, 'bench', '.cache', 'partial');

/** The committed bench/results.* come only from a run with every suite at the default sizes and model. */
function isFullRun(options: BenchOptions): boolean {
  const everySuite = options.only === undefined || SUITE_NAMES.every((name) => options.only!.includes(name));
  const defaultSizes = options.sizes === undefined || options.sizes.join(',') === defaults.sizes.join(',');
  return (
    everySuite &&
    defaultSizes &&
    options.embedder === undefined &&
    options.maxQueries === undefined &&
    options.taskTimeMs === undefined &&
    options.watchEdits === undefined
  );
}

export function resolveOptions(options: BenchOptions = {}): ResolvedBenchOptions {
  const quick = options.quick ?? defaults.quick;
  const base = quick ? { ...defaults, ...quickDefaults } : defaults;
  const only = options.only ?? base.only;
  for (const name of only) {
    if (!(SUITE_NAMES as readonly string[]).includes(name)) {
      throw new Error(`Expected \`--only\` to be one of ${SUITE_NAMES.join(', ')}, got \`${name}\``);
    }
  }
  const sizes = options.sizes ?? base.sizes;
  if (sizes.length === 0 || !sizes.every((size) => Number.isInteger(size) && size > 0)) {
    throw new Error(`Expected \`--sizes\` to be positive integers, got \`${sizes.join(',')}\``);
  }
  const maxQueries = options.maxQueries ?? base.maxQueries;
  if (!Number.isInteger(maxQueries) || maxQueries <= 0) {
    throw new Error(`Expected \`--max-queries\` to be a positive integer, got \`${maxQueries}\``);
  }
  const taskTimeMs = options.taskTimeMs ?? base.taskTimeMs;
  if (!Number.isFinite(taskTimeMs) || taskTimeMs <= 0) {
    throw new Error(`Expected \`--time\` to be a positive number of ms, got \`${taskTimeMs}\``);
  }
  const watchEdits = options.watchEdits ?? base.watchEdits;
  if (!Number.isInteger(watchEdits) || watchEdits <= 0) {
    throw new Error(`Expected \`--watch-edits\` to be a positive integer, got \`${watchEdits}\``);
  }
  return Object.freeze({
    quick,
    watchEdits,
    only: Object.freeze([...only]),
    sizes: Object.freeze([...new Set(sizes)].sort((a, b) => a - b)),
    evalDir: options.evalDir === undefined ? path.resolve(REPO_ROOT, '..', 'shared', 'eval') : options.evalDir,
    cacheDir: options.cacheDir ?? base.cacheDir,
    outDir: options.outDir ?? (quick ? base.outDir : isFullRun(options) ? defaults.outDir : PARTIAL_OUT_DIR),
    embedder: options.embedder,
    maxQueries,
    taskTimeMs,
  });
}

const USAGE = `usage: npm run bench -- [--quick] [--only ${SUITE_NAMES.join('|')}[,…]] [--sizes 1000,10000,24000]
  [--eval-dir DIR | --no-eval] [--cache-dir DIR] [--out-dir DIR] [--embedder SPEC] [--max-queries N] [--time MS] [--watch-edits N]`;

/** Parses `process.argv.slice(2)`; throws a one-line error naming the flag. */
export function parseArgs(argv: readonly string[]): BenchOptions | 'help' {
  const options: { -readonly [K in keyof BenchOptions]: BenchOptions[K] } = {};
  const only: SuiteName[] = [];
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const [name, inline] = flag.startsWith('--') && flag.includes('=') ? flag.split(/=(.*)/s, 2) : [flag, undefined];
    const value = (): string => {
      const next = inline ?? argv[++i];
      if (next === undefined || next === '') throw new Error(`Expected a value after \`${name}\``);
      return next;
    };
    switch (name) {
      case '--help':
      case '-h':
        return 'help';
      case '--quick':
        options.quick = true;
        break;
      case '--only':
        only.push(...(value().split(',').filter(Boolean) as SuiteName[]));
        break;
      case '--sizes':
        options.sizes = value()
          .split(',')
          .map((s) => Number(s.trim().replace(/k$/i, '000')));
        break;
      case '--eval-dir':
        options.evalDir = path.resolve(value());
        break;
      case '--no-eval':
        options.evalDir = null;
        break;
      case '--cache-dir':
        options.cacheDir = path.resolve(value());
        break;
      case '--out-dir':
        options.outDir = path.resolve(value());
        break;
      case '--embedder':
        options.embedder = value();
        break;
      case '--max-queries':
        options.maxQueries = Number(value());
        break;
      case '--time':
        options.taskTimeMs = Number(value());
        break;
      case '--watch-edits':
        options.watchEdits = Number(value());
        break;
      default:
        throw new Error(`Unknown flag \`${flag}\`\n${USAGE}`);
    }
  }
  if (only.length > 0) options.only = only;
  return options;
}

export { USAGE };
