import type { ParsedArgs } from '../args.js';
import { BuilderLease, besideIndex, writeMarker } from '../builder-lease.js';
import { SkillSearchError } from '../../errors.js';
import { buildProgress, line, liveIndexOptions, noteStoreLayout, openLiveIndex, printJson, reportSkipped, requireSkills, storeFile } from '../context.js';
import { round } from '../format.js';
import { storeUnwritable } from '../store-access.js';
import { plural } from '../../util/text.js';
import type { CliIo } from '../io.js';
import type { Diagnostic } from '../../types.js';
import type { DeltaSaved } from '../../integrations/live-index.js';
import { resolveIndexDir, resolveRetrieval, resolveSources } from '../sources.js';

export async function runIndex(args: ParsedArgs, io: CliIo): Promise<number> {
  const sources = resolveSources(args.values, io);
  const retrieval = resolveRetrieval(args.values, io);
  const indexDir = resolveIndexDir(sources, retrieval, io.env);
  // Said before any skill is embedded: nothing built here could be kept.
  const locked = storeUnwritable(storeFile(io.env));
  if (locked !== undefined) {
    const fix = 'make it writable, or point SKILL_SEARCH_CACHE_DIR at a folder of yours';
    throw new SkillSearchError('BAD_FILE', `cannot save the index: ${storeFile(io.env)} cannot be written (${locked.at}: ${locked.code}); ${fix}`);
  }
  const { retireIndexFolder } = await import('../../store/legacy-folder.js');
  const retired = retireIndexFolder(indexDir);
  if (retired !== undefined) line(io.stderr, retired);
  // While this builds, a hook starts no other builder of the same index (it would write the same catalog).
  const lease = BuilderLease.claim(besideIndex(indexDir, 'builder'));
  try {
    const code = await build();
    // Only spares a hook a second build: a marker that cannot be written is ignored.
    writeMarker(besideIndex(indexDir, 'built'));
    return code;
  } finally {
    lease?.release();
  }

  async function build(): Promise<number> {
    // Only a tools file's lines edited since a saved catalog (what a hook hands its indexer): saved from them.
    const started = performance.now();
    await noteStoreLayout(io);
    const { LiveIndex } = await import('../../integrations/live-index.js');
    const quick = await LiveIndex.saveDelta(liveIndexOptions(sources, retrieval, io), io.signal);
    if (quick !== undefined) {
      const { diagnostics, ...counts } = quick;
      return report({ ...counts, ms: performance.now() - started, indexDir }, diagnostics);
    }
    const live = await openLiveIndex(sources, retrieval, io);
    try {
      // The skills of a saved catalog at another path (a tools file copied or moved, what a hook hands on): written from its entries.
      const moved = await live.saveMoved();
      if (moved !== undefined) {
        await live.engine.whenStoreFree(() => live.engine.collectStore(), 0);
        const { diagnostics, skills, model } = moved;
        const counts = { skills, added: 0, updated: 0, removed: 0, unchanged: skills, embedded: 0, model };
        return report({ ...counts, ms: performance.now() - started, indexDir }, diagnostics);
      }
      const { snapshot, sync, ms } = await live.refresh({ onProgress: await buildProgress(io, args.values), signal: io.signal });
      await requireSkills(sources, snapshot.skills.length, snapshot.diagnostics);
      // Saved for cold processes (the hook without a server, `query`, other project folders).
      const saved = await live.saveCatalog();
      const unsaved = saved instanceof Error ? saved.message : live.engine.saveProblem;
      if (unsaved !== undefined) throw new SkillSearchError('BAD_FILE', `could not save the index in ${storeFile(io.env)} (${unsaved})`);
      // Off a prompt's path: what no catalog used for a while goes.
      await live.engine.whenStoreFree(() => live.engine.collectStore(), 0);
      const summary = {
        skills: snapshot.skills.length,
        added: sync?.added ?? 0,
        updated: sync?.updated ?? 0,
        removed: sync?.removed ?? 0,
        unchanged: sync?.unchanged ?? snapshot.skills.length,
        embedded: sync?.embedded ?? 0,
        ms,
        model: live.engine.info.model,
        indexDir,
      };
      return report(summary, snapshot.diagnostics);
    } finally {
      await live.close();
    }
  }

  function report(summary: IndexSummary, diagnostics: readonly Diagnostic[]): number {
    const { ms, added, updated, embedded } = summary;
    if (args.values.json === true) return printJson(io, { ...summary, ms: round(ms, 1) });
    // The counts are the catalog's; the vectors of new and changed skills were embedded or found in the store.
    const stored = Math.max(0, added + updated - embedded);
    const vectors = added + updated === 0 ? '' : `; ${embedded} embedded${stored === 0 ? '' : `, ${stored} from the store`}`;
    line(
      io.stdout,
      `indexed ${plural(summary.skills, 'skill')}: ${added} added, ${updated} updated, ${summary.removed} removed, ${summary.unchanged} unchanged${vectors} (${Math.round(ms)} ms)`,
    );
    // The index lives in the shared store; `indexDir` holds only a `watch` server's socket and markers.
    line(io.stderr, `index: saved in ${storeFile(io.env)} (${summary.model})`);
    reportSkipped(io, diagnostics);
    return 0;
  }
}

/** What `index` reports: the catalog's counts (as `LiveIndex.saveDelta` gives them), its time and where it went. */
type IndexSummary = Omit<DeltaSaved, 'diagnostics'> & { readonly ms: number; readonly indexDir: string };
