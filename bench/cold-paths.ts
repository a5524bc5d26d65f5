/**
 * What the cold-path suites (`cold-hook`, `cold-change`, `cold-readers`, `cold-watch`) share:
 * the built bin run as a host runs it, a bare `node -e 0` measured in the same run as every
 * figure's baseline, the registry pool written as a tools file at run time (first `size` lines of
 * the eval folder's pool, never kept in the repository), and one vector store warmed once per
 * store format so a run embeds nothing it embedded before.
 *
 * Every index a suite times is built by the command under study in a fresh folder; only the
 * vectors (keyed by content) come from the warm store, as on a machine that indexed them once.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BenchContext } from './context.js';
import { POOL_FILE } from './corpus.js';
import { REPO_ROOT } from './options.js';
import { compare, type Measurement } from './results.js';
import { writerRunning } from './scale.js';
import { buildDist } from '../scripts/ensure-built.js';

export const BIN = path.join(REPO_ROOT, 'bin', 'skill-search.js');
/** A prompt the registry pool answers (a PDF-tables skill), so a hook that answers prints a suggestion. */
export const PROMPT = 'extract the tables from this pdf and put them in a spreadsheet';
/** More prompts, so repeated calls are first sights (nothing about the message cached). */
export const PROMPTS = [
  PROMPT,
  'convert this docx report to pdf and keep the headings',
  'write unit tests for my react component with jest',
  'deploy the app to kubernetes with a helm chart',
  'summarize the git history of this repository',
  'resize every png in this folder to 512 pixels',
] as const;

export interface BinRun {
  readonly ms: number;
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Whether a hook run answered with a suggestion, answered nothing, was skipped (budget, build) or failed. */
export type HookOutcome = 'suggested' | 'silent' | 'skipped' | 'failed';

export function outcomeOf(run: BinRun): HookOutcome {
  // Stopped by its own watchdog past the budget (a loaded machine): the user got nothing, as with a skip.
  if (run.status !== 0) return run.stderr.includes('past the') ? 'skipped' : 'failed';
  if (run.stderr.includes('skipped') || run.stderr.includes('no answer')) return 'skipped';
  return run.stdout.includes('additionalContext') ? 'suggested' : 'silent';
}

/** The JSON Claude Code writes on a UserPromptSubmit hook's stdin. */
export function hookInput(prompt: string, cwd: string): string {
  const session = randomUUID();
  return JSON.stringify({
    session_id: session,
    transcript_path: path.join(cwd, '.transcripts', `${session}.jsonl`),
    cwd,
    permission_mode: 'default',
    hook_event_name: 'UserPromptSubmit',
    prompt,
  });
}

/** One catalog as the bench hands it to every command: the tools file, the index folder, and the project folder the hook runs in. */
export interface Catalog {
  readonly tools: string;
  readonly indexDir: string;
  readonly cwd: string;
  /** More `--skills-dir` folders (the watch suite's SKILL.md folders). */
  readonly skillsDirs?: readonly string[];
}

export function sourceArgs(catalog: Catalog): string[] {
  return ['--tools', catalog.tools, ...(catalog.skillsDirs ?? []).flatMap((dir) => ['--skills-dir', dir]), '--index-dir', catalog.indexDir];
}

/** The environment every bin run gets: a private home, the warm store's cache root, no library of the user's. */
export function binEnv(cacheRoot: string, home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), SKILL_SEARCH_CACHE_DIR: cacheRoot };
  delete env.SKILL_SEARCH_LIBRARY;
  delete env.XDG_CACHE_HOME;
  return env;
}

/** `skill-search <args>` through the bin, started and waited for like a host does; never throws. */
export function runBin(args: readonly string[], env: NodeJS.ProcessEnv, input?: string): Promise<BinRun> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error) => resolve({ ms: performance.now() - started, status: null, stdout, stderr: `${stderr}${error.message}` }));
    child.on('close', (status) => resolve({ ms: performance.now() - started, status, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** `skill-search hook claude-code` for `catalog`, fed a real UserPromptSubmit JSON; the host's default budget. */
export function runHook(catalog: Catalog, env: NodeJS.ProcessEnv, prompt: string): Promise<BinRun> {
  return runBin(['hook', 'claude-code', ...sourceArgs(catalog)], env, hookInput(prompt, catalog.cwd));
}

/** Wall time of a bare `node -e 0`: the floor under every bin call, sampled between the timed runs. */
export class NodeFloor {
  readonly #samples: number[] = [];

  sample(): void {
    const started = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    this.#samples.push(performance.now() - started);
  }

  get samples(): number {
    return this.#samples.length;
  }

  get median(): number {
    if (this.#samples.length === 0) this.sample();
    return median(this.#samples);
  }
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** `items` in order on even rounds and reversed on odd ones, so each goes first as often. */
export function inTurn<T>(items: readonly T[], round: number): readonly T[] {
  return round % 2 === 0 ? items : [...items].reverse();
}

/**
 * A ratio measurement with its target and whether this run met it. With `runs`, the target is
 * met only when every hook answered: a skipped hook's time is its budget, not its work.
 */
export function againstTarget(
  measurement: Omit<Measurement, 'baseline' | 'ratio' | 'target'>,
  baseline: { name: string; value: number },
  max: number,
  runs?: readonly BinRun[],
): Measurement {
  const row = compare(measurement, baseline);
  const answered = runs === undefined || runs.every((run) => outcomeOf(run) === 'suggested' || outcomeOf(run) === 'silent');
  return { ...row, target: { text: `≤ ${max}×${runs === undefined ? '' : ', every hook answering'}`, met: answered && row.ratio != null && row.ratio <= max } };
}

/** Waits (at most `limitMs`) until no indexer a hook or the bench started runs on `indexDir`; false when one still does. */
export async function indexerDone(indexDir: string, limitMs = 180_000): Promise<boolean> {
  const until = Date.now() + limitMs;
  while (writerRunning(indexDir)) {
    if (Date.now() > until) return false;
    await sleep(100);
  }
  return true;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The cold-path suites' shared state for one run: dist/ built once, the store warmed once, the
 * pool's lines read once. Built indexes are memoised per key, so suites run together reuse the
 * index `cold-hook` built with `skill-search index` (each suite alone builds its own).
 */
export class ColdRun {
  readonly context: BenchContext;
  readonly cacheRoot: string;
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  readonly floor = new NodeFloor();
  readonly #lines: readonly string[];
  readonly #built = new Map<string, Promise<Catalog>>();
  #serial = 0;

  private constructor(context: BenchContext, cacheRoot: string, lines: readonly string[]) {
    this.context = context;
    this.cacheRoot = cacheRoot;
    this.#lines = lines;
    this.home = context.tempDir('cold-home');
    this.env = binEnv(cacheRoot, this.home);
  }

  /** Undefined (the suite skips) without the registry pool. */
  static async start(context: BenchContext): Promise<ColdRun | undefined> {
    if (context.options.evalDir === null || !existsSync(path.join(context.options.evalDir, POOL_FILE))) return undefined;
    const memo = runs.get(context);
    if (memo !== undefined) return memo;
    const run = (async () => {
      buildDist('inherit');
      const lines = readFileSync(path.join(context.options.evalDir!, POOL_FILE), 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '');
      const cold = new ColdRun(context, storeRoot(context), lines);
      await cold.#warm();
      return cold;
    })();
    runs.set(context, run);
    return run;
  }

  /** The catalog sizes this run times: 4k and 24k (quick: 1k and 4k). */
  get sizes(): { readonly small: number; readonly large: number } {
    return this.context.options.quick ? { small: 1000, large: 4000 } : { small: 4000, large: Math.min(24_000, this.#lines.length) };
  }

  /** A new catalog of the first `size` pool lines: its own tools file (its own path, so no index of another catalog answers for it), index folder and project folder. */
  catalog(size: number, label: string): Catalog {
    this.#serial += 1;
    const dir = this.context.tempDir(`cold-${label}-${this.#serial}`);
    const tools = path.join(dir, `tools-${size}.jsonl`);
    writeFileSync(tools, `${this.#lines.slice(0, size).join('\n')}\n`);
    const cwd = path.join(dir, 'project');
    mkdirSync(cwd, { recursive: true });
    return { tools, indexDir: path.join(dir, 'index'), cwd };
  }

  /** Line `at` of the catalog's tools file with its description changed (a user's edit), the file rewritten. */
  changeDescription(catalog: Catalog, at: number, round: number): void {
    const lines = readFileSync(catalog.tools, 'utf8').split('\n');
    const record = JSON.parse(lines[at]!) as { description?: string };
    record.description = `${record.description ?? ''} (revised ${round})`;
    lines[at] = JSON.stringify(record);
    writeFileSync(catalog.tools, lines.join('\n'));
  }

  /** A catalog of `size` skills indexed by `skill-search index` (memoised per size for the run). */
  indexed(size: number): Promise<Catalog> {
    const key = `index:${size}`;
    let built = this.#built.get(key);
    if (built === undefined) {
      built = (async () => {
        const catalog = this.catalog(size, 'index');
        await this.index(catalog);
        return catalog;
      })();
      this.#built.set(key, built);
    }
    return built;
  }

  /** `skill-search index` over `catalog`; throws when it fails. */
  async index(catalog: Catalog): Promise<BinRun> {
    const run = await runBin(['index', '--quiet', ...sourceArgs(catalog)], this.env);
    if (run.status !== 0) throw new Error(`skill-search index exited ${String(run.status)}: ${run.stderr.trim()}`);
    return run;
  }

  /** Embeds the largest catalog into the store once per store format (the first run's cost; later runs embed nothing). */
  async #warm(): Promise<void> {
    const size = this.sizes.large;
    const marker = path.join(this.cacheRoot, `warm-${size}`);
    if (existsSync(marker)) return;
    const catalog = this.catalog(size, 'warm');
    this.context.log(`cold: embedding the first ${size} pool lines into ${this.cacheRoot} (first run for this store only)`);
    const run = await this.index(catalog);
    this.context.log(`cold: store warm in ${(run.ms / 1000).toFixed(0)} s`);
    writeFileSync(marker, `${new Date().toISOString()}\n`);
  }
}

const runs = new WeakMap<BenchContext, Promise<ColdRun>>();

/**
 * The warm store's cache root under the bench cache, one per version of the code that stores
 * vectors (the tree of src/store, else the commit): another format starts a store of its own
 * rather than misreading this one.
 */
function storeRoot(context: BenchContext): string {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).stdout.trim();
  const key = git('rev-parse', '--short=12', 'HEAD:src/store') || git('rev-parse', '--short=12', 'HEAD') || 'unversioned';
  const root = path.join(context.options.cacheDir, 'cold', `store-${key}`);
  mkdirSync(root, { recursive: true });
  return root;
}

/** Counts of each outcome, and the first line the first run that did not answer printed, for a note. */
export function outcomes(runs: readonly BinRun[]): string {
  const counts = new Map<HookOutcome, number>();
  for (const run of runs) counts.set(outcomeOf(run), (counts.get(outcomeOf(run)) ?? 0) + 1);
  const unanswered = runs.find((run) => outcomeOf(run) === 'failed' || outcomeOf(run) === 'skipped');
  const why = unanswered?.stderr.trim().split('\n').at(-1);
  return `${[...counts].map(([outcome, n]) => `${n} ${outcome}`).join(', ')}${why ? ` (first unanswered: "${why.slice(0, 160)}")` : ''}`;
}
