import { unwatchFile, watchFile } from 'node:fs';
import { errorMessage } from '../../errors.js';
import type { ParsedArgs } from '../args.js';
import { configPaths } from '../../config/user-config.js';
import { catalogOptions, line, openLiveIndex, printJson, storeFile } from '../context.js';
import { firstLine, plural } from '../../util/text.js';
import type { CliIo } from '../io.js';
import { describeSources, resolveIndexDir, resolveRetrieval, resolveSources, type SourceOptions } from '../sources.js';
import type { LiveIndex, RefreshResult } from '../../integrations/live-index.js';
import type { SkillSocketServer } from '../../integrations/socket-server.js';
import { IdleCollector } from '../../util/idle-collector.js';
import { INSTALLED_FILES, packageVersion } from '../../util/package-version.js';

/** Sync, then one reindex per coalesced catalog change until the signal aborts, serving searches meanwhile; reindexes never overlap. */
export async function runWatch(args: ParsedArgs, io: CliIo): Promise<number> {
  let sources = resolveSources(args.values, io);
  const retrieval = resolveRetrieval(args.values, io);
  const json = args.values.json === true;
  const { formatDiagnostic } = await import('../../load/index.js');
  const live = await openLiveIndex(sources, retrieval, io);
  let server: SkillSocketServer | undefined;
  // Each reindex leaves the catalog it replaced as garbage: collected once the server is quiet.
  const collector = new IdleCollector();
  let seen = new Set<string>();

  const report = (event: 'indexed' | 'reindexed', result: RefreshResult) => {
    const { sync, snapshot } = result;
    const ms = Math.round(result.ms);
    const fresh = snapshot.diagnostics.map(formatDiagnostic).filter((text) => !seen.has(text));
    seen = new Set(snapshot.diagnostics.map(formatDiagnostic));
    for (const text of fresh) line(io.stderr, text);
    if (sync === undefined) return;
    const { added, updated, removed, unchanged } = sync;
    if (json) printJson(io, { event, skills: snapshot.skills.length, added, updated, removed, ms });
    else if (event === 'indexed')
      line(io.stdout, `indexed ${plural(snapshot.skills.length, 'skill')}: +${added} ~${updated} -${removed}, ${unchanged} unchanged (${ms} ms)`);
    else line(io.stdout, `reindexed: +${added} ~${updated} -${removed} (${ms} ms)`);
  };

  try {
    const first = await live.refresh();
    if (first.snapshot.skills.length === 0 && (sources.skillsDirs.length > 0 || sources.toolsFiles.length > 0)) {
      line(io.stderr, `skill-search: no skills yet ${describeSources(sources)}; waiting for some`);
    }
    report('indexed', first);
    collector.touch();

    // Changes during a reindex queue exactly one more.
    let running = Promise.resolve();
    let queued = false;
    const reindex = (): void => {
      if (queued) return;
      queued = true;
      running = running.then(async () => {
        queued = false;
        if (io.signal?.aborted) return;
        try {
          report('reindexed', await live.refresh());
          collector.touch();
        } catch (error) {
          line(io.stderr, `skill-search: reindex failed: ${errorMessage(error)}`);
        }
      });
    };
    live.catalog.on('change', reindex);
    live.catalog.on('error', (error) => line(io.stderr, `skill-search: watcher: ${error.message}`));
    await live.catalog.watch({ usePolling: args.values.polling === true });
    const serving = args.values['no-server'] !== true;
    if (serving) server = await startServer(live, resolveIndexDir(sources, retrieval, io.env), io);

    // A config that names other sources (a `library` entry added or removed) changes the catalog, and where hooks look for the server.
    let configuring = Promise.resolve();
    const reconfigure = async (): Promise<void> => {
      let next: SourceOptions;
      try {
        next = resolveSources(args.values, io);
      } catch (error) {
        line(io.stderr, `skill-search: config not applied: ${firstLine(errorMessage(error))}`);
        return;
      }
      const changed = JSON.stringify(catalogOptions(next)) !== JSON.stringify(catalogOptions(sources));
      const nextIndexDir = resolveIndexDir(next, retrieval, io.env);
      const moved = nextIndexDir !== resolveIndexDir(sources, retrieval, io.env);
      sources = next;
      if (!changed || io.signal?.aborted) return;
      line(io.stderr, 'skill-search: the config changed the sources; reindexing');
      live.catalog.reconfigure(catalogOptions(next));
      if (serving && moved) {
        await server?.close();
        server = await startServer(live, nextIndexDir, io);
      }
    };
    const follow = () => {
      configuring = configuring.then(reconfigure).catch((error: unknown) => line(io.stderr, `skill-search: config not applied: ${errorMessage(error)}`));
    };
    const stopConfigWatch = watchFiles(configPaths(sources.cwd, sources.home), () => follow());
    // A change made while the first index was built is seen now.
    follow();
    line(io.stderr, `watching for skill changes; index saved in ${storeFile(io.env)} (Ctrl-C to stop)`);

    let stopPackageWatch = () => {};
    await new Promise<void>((resolve) => {
      // An upgrade, downgrade or reinstall replaces the package under a running watch, which would
      // go on answering hooks with the code it started with (the version it reports unchanged, and
      // a store of another layout under it): it stops, and hooks search in-process until it is started again.
      stopPackageWatch = watchFiles(INSTALLED_FILES, (file) => {
        line(io.stderr, `skill-search: ${file} changed (skill-search was upgraded, rebuilt or reinstalled); stopped: start \`skill-search watch\` again`);
        resolve();
      });
      if (!io.signal) return;
      if (io.signal.aborted) resolve();
      io.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    stopPackageWatch();
    stopConfigWatch();
    await configuring;
    live.catalog.off('change', reindex);
    await running;
    return 0;
  } finally {
    collector.close();
    await server?.close();
    await live.close();
  }
}

/** How often `watch` stats the config files: `fs.watchFile` polls, and so follows a file that does not exist yet. */
const CONFIG_POLL_MS = 1000;

/** Calls `onChange` with the file when any of `files` is created, changed or removed; returns the stopper. */
function watchFiles(files: readonly string[], onChange: (file: string) => void): () => void {
  const listeners = files.map((file) => [file, () => onChange(file)] as const);
  for (const [file, listener] of listeners) watchFile(file, { interval: CONFIG_POLL_MS, persistent: false }, listener);
  return () => {
    for (const [file, listener] of listeners) unwatchFile(file, listener);
  };
}

/** Serves searches on the index's socket (from the engine as it stands); failing to listen is reported, not fatal. */
async function startServer(live: LiveIndex, indexDir: string, io: CliIo): Promise<SkillSocketServer | undefined> {
  const [{ SkillSocketServer }, { socketPathFor }] = await Promise.all([
    import('../../integrations/socket-server.js'),
    import('../../integrations/socket-protocol.js'),
  ]);
  // Load the model before announcing the server: its first answer must be as fast as the rest.
  try {
    await live.engine.options.embedder.embed(['warm up'], io.signal);
  } catch (error) {
    if (io.signal?.aborted) return undefined;
    line(io.stderr, `skill-search: model warm-up failed: ${errorMessage(error)}`);
  }
  try {
    const server = await SkillSocketServer.listen({
      path: socketPathFor(indexDir),
      searcher: live.engine,
      size: () => live.engine.size,
      version: packageVersion(),
      log: (text) => line(io.stderr, text),
    });
    line(io.stderr, `serving searches on ${server.path}`);
    return server;
  } catch (error) {
    line(io.stderr, `skill-search: not serving searches: ${errorMessage(error)}`);
    return undefined;
  }
}
