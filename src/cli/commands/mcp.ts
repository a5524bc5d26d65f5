import type { ParsedArgs } from '../args.js';
import { openLiveIndex } from '../context.js';
import type { CliIo } from '../io.js';
import { resolveRetrieval, resolveSources } from '../sources.js';
import { IdleCollector } from '../../util/idle-collector.js';
import { packageVersion } from '../../util/package-version.js';

export async function runMcp(args: ParsedArgs, io: CliIo): Promise<number> {
  // A host cannot know this package's demo skills: never serve them unless asked (--demo).
  const sources = resolveSources(args.values, io, undefined, 'never');
  const retrieval = resolveRetrieval(args.values, io);
  const { serveMcpStdio } = await import('../../integrations/mcp-server.js');
  const log = (text: string) => io.stderr.write(`${text}\n`);
  const live = await openLiveIndex(sources, retrieval, io);
  // Each re-sync leaves the catalog it replaced as garbage: collected once the server is quiet.
  const collector = new IdleCollector();
  try {
    live.catalog.on('error', (error) => log(`skill-search mcp: watcher: ${error.message}`));
    // Once the client has its tool list: watch (the next request re-syncs, so an idle server does no work) and warm the
    // index; a failure of either resurfaces on the first search.
    const warm = () => {
      void live.catalog.watch({ usePolling: args.values.polling === true }).catch((error: Error) => log(`skill-search mcp: watcher: ${error.message}`));
      void live.refresh().then(
        () => collector.touch(),
        () => undefined,
      );
    };
    const { neverSuggesting } = await import('../../integrations/hosts.js');
    await serveMcpStdio({
      service: neverSuggesting(
        live,
        sources.config.never.map((entry) => entry.value),
      ),
      k: retrieval.k,
      mode: retrieval.mode,
      version: packageVersion(),
      log,
      onInitialized: warm,
      collector,
      ...(io.stdin === undefined ? {} : { stdin: io.stdin }),
      ...(io.rawStdout === undefined ? {} : { stdout: io.rawStdout }),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    });
    return 0;
  } finally {
    await live.close();
  }
}
