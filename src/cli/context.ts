import type { CatalogOptions } from '../load/index.js';
import type { CatalogSnapshot, Diagnostic } from '../types.js';
import type { LiveIndex } from '../integrations/live-index.js';
import type { RetrievalOptions, SourceOptions } from './sources.js';
import { resolveIndexDir } from './sources.js';
import type { CliIo } from './io.js';

/** The loader options for what the flags named. */
export function catalogOptions(sources: SourceOptions): CatalogOptions {
  return {
    cwd: sources.cwd,
    home: sources.home,
    addDirs: sources.addDirs,
    skillsDirs: sources.skillsDirs,
    toolsFiles: sources.toolsFiles,
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
export async function openLiveIndex(sources: SourceOptions, retrieval: RetrievalOptions, io: CliIo): Promise<LiveIndex> {
  const { LiveIndex } = await import('../integrations/live-index.js');
  return LiveIndex.open({
    catalog: catalogOptions(sources),
    model: retrieval.model,
    indexDir: resolveIndexDir(sources, retrieval, io.env),
    k: retrieval.k,
    mode: retrieval.mode,
  });
}

export function line(stream: CliIo['stdout'], text = ''): void {
  stream.write(`${text}\n`);
}

export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value)}\n`);
}

/** One stderr line when skill files were skipped, so a broken file never disappears silently. */
export function reportSkipped(io: CliIo, diagnostics: readonly Diagnostic[]): void {
  const skipped = diagnostics.filter((d) => d.severity === 'error' && d.code !== 'shadowed').length;
  if (skipped === 0) return;
  line(io.stderr, `skill-search: ${skipped} skill file${skipped === 1 ? '' : 's'} could not be loaded; run \`skill-search validate\``);
}
