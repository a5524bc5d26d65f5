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
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BenchContext } from './context.js';
import { POOL_FILE } from './corpus.js';
import { REPO_ROOT } from './options.js';
import { compare, type Measurement } from './results.js';
import { writerRunning } from './scale.js';
import { buildDist } from '../scripts/ensure-built.js';
import type { CliIo } from '../src/cli/io.js';
import { resolveIndexDir, resolveRetrieval, resolveSources } from '../src/cli/sources.js';

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

/**
 * One catalog as the bench hands it to every command: the tools file, the index folder, and the project folder the hook runs in;
 * or, with `home` and no tools file, the default sources of that home (its `~/.claude/skills`), given no source flag.
 */
export interface Catalog {
  readonly tools?: string;
  readonly indexDir: string;
  readonly cwd: string;
  /** More `--skills-dir` folders (the watch suite's SKILL.md folders). */
  readonly skillsDirs?: readonly string[];
  /** The home whose default sources this catalog is; every command runs with it as `HOME`, in `cwd`, with no source flag. */
  readonly home?: string;
}

export function sourceArgs(catalog: Catalog): string[] {
  if (catalog.tools === undefined) return (catalog.skillsDirs ?? []).flatMap((dir) => ['--skills-dir', dir]);
  return ['--tools', catalog.tools, ...(catalog.skillsDirs ?? []).flatMap((dir) => ['--skills-dir', dir]), '--index-dir', catalog.indexDir];
}

/** The environment every bin run gets: a private home, the warm store's cache root, no library of the user's. */
export function binEnv(cacheRoot: string, home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), SKILL_SEARCH_CACHE_DIR: cacheRoot };
  delete env.SKILL_SEARCH_LIBRARY;
  delete env.XDG_CACHE_HOME;
  return env;
}

/** `skill-search <args>` through the bin (in `cwd`, else the bench's folder), started and waited for like a host does; never throws. */
export function runBin(args: readonly string[], env: NodeJS.ProcessEnv, input?: string, cwd?: string): Promise<BinRun> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
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
  return runBin(['hook', 'claude-code', ...sourceArgs(catalog)], env, hookInput(prompt, catalog.cwd), catalog.cwd);
}

/** Suggestions a hook printed: the skills its additionalContext names, one `- name` line each; 0 when it printed none. */
export function suggestionsOf(run: BinRun): number {
  if (!run.stdout.includes('additionalContext')) return 0;
  try {
    const output = JSON.parse(run.stdout) as { hookSpecificOutput?: { additionalContext?: string } };
    return (output.hookSpecificOutput?.additionalContext ?? '').split('\n').filter((line) => /^- \S/.test(line)).length;
  } catch {
    return 0;
  }
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

  /** The environment of every bin run over `catalog`: its own home for a default-sources catalog, else this run's. */
  envOf(catalog: Catalog): NodeJS.ProcessEnv {
    return catalog.home === undefined ? this.env : binEnv(this.cacheRoot, catalog.home);
  }

  /** A new catalog of the first `size` pool lines: its own tools file (its own path, so no index of another catalog answers for it), index folder and project folder. */
  catalog(size: number, label: string): ToolsCatalog {
    this.#serial += 1;
    const dir = this.context.tempDir(`cold-${label}-${this.#serial}`);
    const tools = path.join(dir, `tools-${size}.jsonl`);
    writeFileSync(tools, `${this.#lines.slice(0, size).join('\n')}\n`);
    const cwd = path.join(dir, 'project');
    mkdirSync(cwd, { recursive: true });
    return { tools, indexDir: path.join(dir, 'index'), cwd };
  }

  /**
   * A new home whose `~/.claude/skills` holds the first `size` pool lines as SKILL.md folders (copies of {@link skillFolders}: a hard
   * link would change the ctime of every file it shares with the homes made before, which the saved catalogs' stamps record),
   * with a project folder in it: the default sources, searched by commands given no source flag and their own index folder.
   */
  skillsCatalog(size: number, label: string): Catalog {
    this.#serial += 1;
    const home = this.context.tempDir(`cold-${label}-${this.#serial}`);
    const skills = path.join(home, '.claude', 'skills');
    const tree = this.#skillFolders(size);
    for (const folder of readdirSync(tree)) {
      mkdirSync(path.join(skills, folder), { recursive: true });
      copyFileSync(path.join(tree, folder, 'SKILL.md'), path.join(skills, folder, 'SKILL.md'));
    }
    const cwd = path.join(home, 'project');
    mkdirSync(cwd, { recursive: true });
    const env = binEnv(this.cacheRoot, home);
    const io = { env, cwd } as CliIo;
    // The folder the commands themselves choose (the detached indexer a hook starts is told it by --index-dir).
    return { indexDir: resolveIndexDir(resolveSources({}, io, cwd, 'never'), resolveRetrieval({}, io), env), cwd, home };
  }

  /**
   * The first `size` pool lines as `<name>/SKILL.md` folders (name and description in the frontmatter, no body), written once into the
   * bench cache. Claude Code names a skill by its folder, so a name the pool repeats gets `-2`, `-3`… (those skills embed once).
   */
  #skillFolders(size: number): string {
    const tree = path.join(this.context.options.cacheDir, 'cold', `skill-folders-${size}`);
    const done = path.join(this.context.options.cacheDir, 'cold', `skill-folders-${size}.done`);
    if (existsSync(done)) return tree;
    rmSync(tree, { recursive: true, force: true });
    const taken = new Set<string>();
    for (const line of this.#lines.slice(0, size)) {
      const record = JSON.parse(line) as { name?: string; description?: string };
      let name = record.name ?? '';
      for (let count = 2; taken.has(name); count++) name = `${record.name ?? ''}-${count}`;
      taken.add(name);
      const folder = path.join(tree, name);
      mkdirSync(folder, { recursive: true });
      writeFileSync(path.join(folder, 'SKILL.md'), skillFile(path.basename(folder), record.description ?? ''));
    }
    writeFileSync(done, `${new Date().toISOString()}\n`);
    return tree;
  }

  /** Line `at` of the catalog's tools file with its description changed (a user's edit), the file rewritten; for a default-sources catalog, the SKILL.md of its `at`-th folder. */
  changeDescription(catalog: Catalog, at: number, round: number): void {
    if (catalog.tools === undefined) {
      changeSkillFile(catalog, at, round);
      return;
    }
    const lines = readFileSync(catalog.tools, 'utf8').split('\n');
    const record = JSON.parse(lines[at]!) as { description?: string };
    record.description = `${record.description ?? ''} (revised ${round})`;
    lines[at] = JSON.stringify(record);
    writeFileSync(catalog.tools, lines.join('\n'));
  }

  /** A catalog of `size` skills, a tools file or (`skills`) a home's skill folders, indexed by `skill-search index` (memoised per size and kind for the run). */
  indexed(size: number, kind: CatalogKind = 'tools'): Promise<Catalog> {
    const key = `index:${kind}:${size}`;
    let built = this.#built.get(key);
    if (built === undefined) {
      built = (async () => {
        const catalog = kind === 'tools' ? this.catalog(size, 'index') : this.skillsCatalog(size, 'index');
        await this.index(catalog);
        return catalog;
      })();
      this.#built.set(key, built);
    }
    return built;
  }

  /** `skill-search index` over `catalog`; throws when it fails. */
  async index(catalog: Catalog): Promise<BinRun> {
    const run = await runBin(['index', '--quiet', ...sourceArgs(catalog)], this.envOf(catalog), undefined, catalog.cwd);
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

/** A tools file ({@link ColdRun.catalog}) or a home's skill folders ({@link ColdRun.skillsCatalog}). */
export type CatalogKind = 'tools' | 'skills';

/** A catalog with a tools file ({@link ColdRun.catalog}). */
export type ToolsCatalog = Catalog & { readonly tools: string };

/** A SKILL.md of `name` and `description` (JSON strings are YAML double-quoted scalars). */
function skillFile(name: string, description: string): string {
  return `---\nname: ${JSON.stringify(name)}\ndescription: ${JSON.stringify(description)}\n---\n`;
}

/** The SKILL.md of the `at`-th folder of a default-sources catalog with its description changed, saved as an editor does (a new file renamed over it). */
function changeSkillFile(catalog: Catalog, at: number, round: number): void {
  const skills = path.join(catalog.home!, '.claude', 'skills');
  const folders = readdirSync(skills).sort();
  const file = path.join(skills, folders[at % folders.length]!, 'SKILL.md');
  const text = readFileSync(file, 'utf8').replace(/^description: "(.*)"$/m, (_line, quoted: string) => `description: "${quoted} (revised ${round})"`);
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

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
