import path from 'node:path';
import type { CatalogOptions } from '../load/index.js';
import type { CatalogSnapshot, Diagnostic } from '../types.js';
import type { LiveIndex, LiveIndexOptions } from '../integrations/live-index.js';
import type { OpenedSearch, OpenSearchOptions } from '../service/open-search.js';
import type { EngineKnobs } from '../search/options.js';
import { type RetrievalOptions, type SourceOptions, describeSources, resolveIndexDir } from './sources.js';
import { skippedSummary } from '../load/format.js';
import { cacheRoot, modelsRoot } from '../model-store/paths.js';
import { STORE_DEFAULTS } from '../store/entry-store.js';
import type { CliIo } from './io.js';
import type { ParsedValues } from './args.js';
import { plural } from '../util/text.js';

/** The loader options for what the flags named. */
export function catalogOptions(sources: SourceOptions): CatalogOptions {
  const { config, ...where } = sources;
  return {
    ...where,
    include: config.include.map((entry) => entry.value),
    exclude: config.exclude.map((entry) => entry.value),
  };
}

/** One scan of the sources the flags named, for commands that need no index (list, validate). */
export async function loadSnapshot(sources: SourceOptions): Promise<CatalogSnapshot> {
  const { SkillCatalog } = await import('../load/index.js');
  const catalog = new SkillCatalog(catalogOptions(sources));
  try {
    return await catalog.get();
  } finally {
    await catalog.close();
  }
}

/** Catalog + persistent engine for the flags; the model loads only when first needed. */
export async function openLiveIndex(sources: SourceOptions, retrieval: RetrievalOptions, io: CliIo, knobs?: EngineKnobs): Promise<LiveIndex> {
  await noteStoreLayout(io);
  const { LiveIndex } = await import('../integrations/live-index.js');
  return LiveIndex.open(liveIndexOptions(sources, retrieval, io, knobs));
}

/** A search opened as every command opens one (`service/open-search.ts`) for the flags. */
export async function openSearchFor(
  sources: SourceOptions,
  retrieval: RetrievalOptions,
  io: CliIo,
  options: Omit<OpenSearchOptions, 'openSnapshot' | 'openLive' | 'k' | 'mode'> & { readonly onSnapshotDue?: (sourceStamp: string) => void } = {},
): Promise<OpenedSearch> {
  await noteStoreLayout(io);
  const { openSearch } = await import('../service/open-search.js');
  const { onSnapshotDue, ...rest } = options;
  return openSearch({ ...liveIndexOptions(sources, retrieval, io), onSnapshotDue }, rest);
}

/** One line on stderr when an older (or newer) skill-search left the store in another layout, which is emptied. */
export async function noteStoreLayout(io: CliIo): Promise<void> {
  const { retireOtherStoreLayout } = await import('../store/legacy-folder.js');
  const reset = await retireOtherStoreLayout(storeFile(io.env));
  if (reset !== undefined) line(io.stderr, reset);
}

/** The store shared by every folder and process: `store.sqlite` under the cache root. */
export function storeFile(env: NodeJS.ProcessEnv): string {
  return path.join(cacheRoot(env), STORE_DEFAULTS.file);
}

export function liveIndexOptions(sources: SourceOptions, retrieval: RetrievalOptions, io: CliIo, knobs?: EngineKnobs): LiveIndexOptions {
  return {
    catalog: catalogOptions(sources),
    model: retrieval.model,
    downloadsDir: modelsRoot(io.env),
    indexDir: resolveIndexDir(sources, retrieval, io.env),
    store: storeFile(io.env),
    k: retrieval.k,
    mode: retrieval.mode,
    dictionaryDir: path.join(cacheRoot(io.env), 'dictionaries'),
    abstain: retrieval.abstain,
    knobs,
  };
}

export function line(stream: CliIo['stdout'], text = ''): void {
  stream.write(`${text}\n`);
}

/** `value` as one JSON line on stdout; 0, the exit code of a command that printed it (`return printJson(…)`). */
export function printJson(io: CliIo, value: unknown): 0 {
  io.stdout.write(`${JSON.stringify(value)}\n`);
  return 0;
}

/** How many of `skills` are this package's demo skills. */
export function demoCount(skills: readonly { readonly source: string }[]): number {
  return skills.filter((skill) => skill.source === 'demo').length;
}

/** Says which skills are demo skills, and why they are there, or '' when none are. */
export function demoNote(skills: readonly { readonly source: string }[]): string {
  const demo = demoCount(skills);
  if (demo === 0) return '';
  const all = demo === skills.length;
  return `${all ? 'all ' : ''}${plural(demo, 'demo skill')} (this package's examples${all ? ', used because no skill of yours was found' : ''}; --no-demo leaves them out)`;
}

/** Throws `NOTHING_TO_INDEX`, naming where `sources` looked, when the catalog holds no skill. */
export async function requireSkills(sources: SourceOptions, skills: number, diagnostics: readonly Diagnostic[]): Promise<void> {
  if (skills > 0) return;
  const { nothingToIndex } = await import('../integrations/live-index.js');
  throw nothingToIndex(describeSources(sources), diagnostics);
}

/** One stderr line when skill files were skipped, so a broken file never disappears silently. */
export function reportSkipped(io: CliIo, diagnostics: readonly Diagnostic[]): void {
  const skipped = skippedSummary(diagnostics);
  if (skipped === undefined) return;
  line(io.stderr, `skill-search: ${skipped} could not be loaded; run \`skill-search validate\``);
}

/** The `onProgress` of a build the user waits for, silent for `after` ms first; undefined with `--quiet`. */
export async function buildProgress(io: CliIo, values: ParsedValues, after = 0): Promise<((done: number, total: number) => void) | undefined> {
  if (values.quiet === true) return undefined;
  const { BuildProgress } = await import('./progress-bar.js');
  return new BuildProgress(io.stderr, { after }).update;
}
