import type { ParsedArgs } from '../args.js';
import { flagError } from '../args.js';
import { DEFAULT_K } from '../defaults.js';
import { buildProgress, line, openLiveIndex, openSnapshotSearch, printJson, reportSkipped } from '../context.js';
import { formatExplanation, formatHits, formatTranslation, round, toJsonHit } from '../format.js';
import type { CliIo } from '../io.js';
import { describeSources, resolveIndexDir, resolveRetrieval, resolveSources, type RetrievalOptions, type SourceOptions } from '../sources.js';
import { isAbortError, SkillSearchError } from '../../errors.js';
import type { RemoteSearchResult } from '../../integrations/socket-client.js';
import type { SkillSearchEngine } from '../../search/engine.js';
import type { Diagnostic, SearchHit, SearchMode, SkillSearcher } from '../../types.js';

const QUERY_CONNECT_TIMEOUT_MS = 200;
/** Longer than a hook's: a person can wait, but a stalled server should not hang the shell. */
const QUERY_REQUEST_TIMEOUT_MS = 5000;
/** A cold query's build reports progress only past this: a quick one stays as quiet as a warm query. */
const QUERY_PROGRESS_AFTER_MS = 1000;

export async function runQuery(args: ParsedArgs, io: CliIo): Promise<number> {
  const query = args.positionals.join(' ');
  if (query.trim() === '') throw flagError("'query' needs a non-empty message (see skill-search query --help)");
  const sources = resolveSources(args.values, io);
  const retrieval = resolveRetrieval(args.values, io, DEFAULT_K);
  const started = performance.now();
  const { capQuery } = await import('../../integrations/query-cap.js');
  // The server searches the capped query; in-process does the same, so both answer alike.
  const searched = capQuery(query);
  const explain = args.values.explain === true;
  const remote = await searchOnServer(searched, sources, retrieval, explain, io);
  if (remote !== undefined) {
    printAnswer(io, args, { query, hits: remote.hits, started, skills: remote.skills, mode: retrieval.mode });
    return 0;
  }
  const request = {
    k: retrieval.k,
    mode: retrieval.mode,
    ...(explain ? { explain } : {}),
    ...(io.signal === undefined ? {} : { signal: io.signal }),
  };
  // Both in-process paths report skipped files, search, explain an empty answer alike.
  const answer = async (searcher: SkillSearcher, engine: SkillSearchEngine, skills: number, diagnostics: readonly Diagnostic[]): Promise<number> => {
    const hits = await searcher.search(searched, request);
    reportSkipped(io, diagnostics);
    if (engine.saveProblem !== undefined)
      line(io.stderr, `skill-search: could not save the index in ${engine.options.indexDir} (${engine.saveProblem}); answered from memory`);
    const none = explain && hits.length === 0 ? explainNone(await engine.explain(searched, { k: retrieval.k, mode: retrieval.mode })) : undefined;
    printAnswer(io, args, { query, hits, started, skills, mode: retrieval.mode, ...(none === undefined ? {} : { none }) });
    return 0;
  };
  // An unchanged catalog is searched from its saved snapshot, without loading it (snapshot-first.ts).
  const { snapshotCanAnswer } = await import('../../integrations/snapshot-first.js');
  const cold = snapshotCanAnswer(searched) ? await openSnapshotSearch(sources, retrieval, io) : undefined;
  if (cold !== undefined) {
    try {
      return await answer(cold, cold.engine, cold.engine.size, cold.diagnostics);
    } catch (error) {
      // As SnapshotFirstSearcher does: a snapshot that fails mid-search (a record that does not decode) gives way to the live index.
      if (isAbortError(error) || (error instanceof SkillSearchError && error.isUserError)) throw error;
    } finally {
      await cold.close();
    }
  }
  const live = await openLiveIndex(sources, retrieval, io);
  try {
    // A cold index embeds every skill first: past a second, say so rather than sit silent.
    const onProgress = await buildProgress(io, args.values, QUERY_PROGRESS_AFTER_MS);
    const { snapshot } = await live.refresh({
      ...(onProgress === undefined ? {} : { onProgress }),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    });
    if (snapshot.skills.length === 0) {
      const { nothingToIndex } = await import('../../integrations/live-index.js');
      throw nothingToIndex(describeSources(sources), snapshot.diagnostics);
    }
    return await answer(live, live.engine, snapshot.skills.length, snapshot.diagnostics);
  } finally {
    await live.close();
  }
}

interface Answer {
  readonly query: string;
  readonly hits: readonly SearchHit[];
  /** `performance.now()` when the command began: `tookMs` covers opening the index too. */
  readonly started: number;
  /** Skills searched. */
  readonly skills: number;
  readonly mode: SearchMode;
  /** With `--explain`, why nothing was shown. */
  readonly none?: NothingShown;
}

/** `--explain` on an empty answer: P(answerable), the threshold, and the best candidate that missed it. */
interface NothingShown {
  readonly answerable: number;
  readonly threshold: number;
  readonly best?: { readonly name: string; readonly score: number; readonly fits: number };
}

function explainNone(explained: Awaited<ReturnType<SkillSearchEngine['explain']>>): NothingShown {
  const best = explained.hits[0];
  return {
    answerable: round(explained.answerable, 4),
    threshold: round(explained.threshold, 4),
    ...(best === undefined ? {} : { best: { name: best.name, score: round(best.score, 4), fits: round(best.fits, 4) } }),
  };
}

function printAnswer(io: CliIo, args: ParsedArgs, { query, hits, started, skills, mode, none }: Answer): void {
  const tookMs = round(performance.now() - started, 1);
  if (args.values.json === true) {
    printJson(io, { query, hits: hits.map(toJsonHit), tookMs, ...(none === undefined ? {} : { nothingShown: none }) });
    return;
  }
  if (hits.length === 0) {
    line(io.stdout, `No skill fits this message (searched ${skills} skills, ${mode}).`);
    if (none !== undefined) {
      const best =
        none.best === undefined
          ? 'no candidate matched the message'
          : `best candidate ${none.best.name}: P(fits) ${none.best.fits.toFixed(3)}, score ${none.best.score.toFixed(3)} < threshold ${none.threshold.toFixed(3)}`;
      line(io.stdout, `    P(answerable) ${none.answerable.toFixed(3)}; ${best}`);
    }
    return;
  }
  const translation = hits.find((hit) => hit.why?.translation !== undefined)?.why?.translation;
  if (translation !== undefined) line(io.stdout, formatTranslation(translation));
  formatHits(hits).forEach((text, i) => {
    line(io.stdout, text);
    const { why, score } = hits[i]!;
    if (why !== undefined) for (const detail of formatExplanation(why, score)) line(io.stdout, detail);
  });
}

/**
 * The answer of a `watch` server for the same index, or undefined when none answers (or it
 * holds no skills: the in-process path then says where it looked).
 */
async function searchOnServer(
  query: string,
  sources: SourceOptions,
  retrieval: RetrievalOptions,
  explain: boolean,
  io: CliIo,
): Promise<RemoteSearchResult | undefined> {
  const [{ SkillSocketClient }, { socketPathFor }] = await Promise.all([
    import('../../integrations/socket-client.js'),
    import('../../integrations/socket-protocol.js'),
  ]);
  let client;
  try {
    client = await SkillSocketClient.connect(socketPathFor(resolveIndexDir(sources, retrieval, io.env)), {
      connectTimeoutMs: QUERY_CONNECT_TIMEOUT_MS,
      requestTimeoutMs: QUERY_REQUEST_TIMEOUT_MS,
    });
  } catch (error) {
    // A socket another user controls is never asked, and the user hears of it.
    if ((error as { code?: unknown }).code === 'UNTRUSTED') line(io.stderr, (error as Error).message);
    return undefined;
  }
  try {
    const result = await client.search(query, {
      k: retrieval.k,
      mode: retrieval.mode,
      ...(retrieval.abstain === undefined ? {} : { abstain: retrieval.abstain }),
      ...(explain ? { explain } : {}),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    });
    // A server from an older version ignores `explain`, and an empty answer is explained from
    // the ranked candidates, which only the in-process engine gives: search in-process then.
    if (explain && (result.hits.length === 0 || result.hits.some((hit) => hit.why === undefined))) return undefined;
    return result.skills > 0 ? result : undefined;
  } catch (error) {
    if (isAbortError(error)) throw error;
    return undefined;
  } finally {
    client.close();
  }
}
