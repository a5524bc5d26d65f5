import type { ParsedArgs } from '../args.js';
import { flagError } from '../args.js';
import { DEFAULT_K } from '../commands.js';
import { line, openLiveIndex, printJson } from '../context.js';
import { formatHits, round, toJsonHit } from '../format.js';
import type { CliIo } from '../io.js';
import { describeSources, resolveRetrieval, resolveSources } from '../sources.js';

export async function runQuery(args: ParsedArgs, io: CliIo): Promise<number> {
  const query = args.positionals.join(' ');
  if (query.trim() === '') throw flagError("'query' needs a non-empty message (see skill-search query --help)");
  const sources = resolveSources(args.values, io);
  const retrieval = resolveRetrieval(args.values, io, DEFAULT_K);
  const started = performance.now();
  const live = await openLiveIndex(sources, retrieval, io);
  try {
    const { snapshot } = await live.refresh(io.signal === undefined ? {} : { signal: io.signal });
    if (snapshot.skills.length === 0) {
      const { nothingToIndex } = await import('../../integrations/live-index.js');
      throw nothingToIndex(describeSources(sources));
    }
    const hits = await live.search(query, {
      k: retrieval.k,
      mode: retrieval.mode,
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    });
    const tookMs = round(performance.now() - started, 1);
    if (args.values.json === true) {
      printJson(io, { query, hits: hits.map(toJsonHit), tookMs });
      return 0;
    }
    if (hits.length === 0) {
      line(io.stdout, `No skill fits this message (searched ${snapshot.skills.length} skills, ${retrieval.mode}).`);
      return 0;
    }
    for (const text of formatHits(hits)) line(io.stdout, text);
    return 0;
  } finally {
    await live.close();
  }
}
