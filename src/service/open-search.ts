import { SkillSearchError, errorMessage, isAbortError } from '../errors.js';
import type { LiveIndex, LiveIndexOptions, RefreshOptions, SnapshotSearch } from '../integrations/live-index.js';
import type { ClosableSearcher } from '../integrations/service.js';
import { SkillSocketClient, type SocketClientOptions } from '../integrations/socket-client.js';
import { hasHanOrKana } from '../lang/detect.js';
import type { SkillSearchEngine } from '../search/engine.js';
import { ENGINE_DEFAULTS } from '../search/options.js';
import type { AbstainSetting, Diagnostic, SearchHit, SearchMode, SearchRequest } from '../types.js';

export type { ClosableSearcher };

/** Which path answered: a running `watch` server, the saved search snapshot, or the live index. */
export type SearchPath = 'server' | 'snapshot' | 'live';

/** The read-only search of a saved snapshot, as far as an answer needs it. */
export type SnapshotPath = Pick<SnapshotSearch, 'search' | 'close' | 'diagnostics'> & {
  readonly engine: Pick<SkillSearchEngine, 'size' | 'explain'>;
};

/** The live index, as far as an answer needs it. */
export type LivePath = Pick<LiveIndex, 'search' | 'refresh' | 'close'> & { readonly engine: Pick<SkillSearchEngine, 'explain' | 'saveProblem'> };

/** The server to ask first, and the client's timeouts and owner check ({@link SocketClientOptions}). */
export interface ServerPath extends Omit<SocketClientOptions, 'signal'> {
  /** Where a `watch` server for the same index would listen (`socketPathFor(indexDir)`). */
  readonly socketPath: string;
}

/** Why a path was left for the next one. */
export interface Fallback {
  readonly from: 'server' | 'snapshot';
  readonly reason: string;
  /** From the server: the connection was refused outright (no socket, or a killed server's): the usual case. */
  readonly noServer: boolean;
  /** From the server: the socket or its folder belongs to another user; nothing was sent to it. */
  readonly untrusted: boolean;
}

export interface OpenSearchOptions {
  /** A running server to ask first; absent: in-process only. */
  readonly server?: ServerPath;
  /** The read-only search of the saved snapshot (`LiveIndex.openSnapshot`); called at most once. */
  readonly openSnapshot: () => Promise<SnapshotPath | { readonly reason: string }>;
  /** The live index (`LiveIndex.open`); called at most once, only when neither path above answers. */
  readonly openLive: () => Promise<LivePath>;
  /** Filled into every request that names none, so every path searches alike. */
  readonly k: number;
  readonly mode: SearchMode;
  /** Undefined leaves it to the answering engine's default. */
  readonly abstain?: AbstainSetting | undefined;
  /** Progress of the live index's first sync (embedding new skills). */
  readonly onProgress?: RefreshOptions['onProgress'];
  /** Why a path was left (for a log line); not called for paths never tried. */
  readonly onFallback?: (why: Fallback) => void;
}

/** `explain` on an empty in-process answer: why nothing was shown (`SkillSearchEngine.explain`). */
export type NothingShown = Awaited<ReturnType<SkillSearchEngine['explain']>>;

/** One answer, with what callers print beside the hits. */
export interface SearchAnswer {
  readonly hits: readonly SearchHit[];
  readonly via: SearchPath;
  /** Skills searched. */
  readonly skills: number;
  /** The catalog's load problems (in-process paths; a server's are its own). */
  readonly diagnostics: readonly Diagnostic[];
  /** Why the index folder could not be saved (the live path answered from memory). */
  readonly saveProblem?: string;
  /** With `explain` and no hits (in-process paths): the best candidates and the threshold they missed. */
  readonly nothingShown?: NothingShown;
}

/** Whether a search snapshot can answer `query`: not one with Han or kana, whose translation needs the whole catalog. */
export function snapshotCanAnswer(query: string): boolean {
  return !hasHanOrKana(query);
}

/**
 * "Open a search", for every caller (`query`, the hook, the library): a running server when one
 * answers, else the saved search snapshot when it still matches the disk and
 * {@link snapshotCanAnswer} the query, else the live index. A path that fails is left for good
 * and the search goes to the next; an abort or a user error is passed on, never retried.
 */
export class OpenedSearch implements ClosableSearcher {
  readonly #options: OpenSearchOptions;
  #client: Promise<SkillSocketClient | undefined> | undefined;
  #snapshot: Promise<SnapshotPath | undefined> | undefined;
  #live: Promise<LivePath> | undefined;
  #via: SearchPath | undefined;
  #saveProblem: string | undefined;

  constructor(options: OpenSearchOptions) {
    this.#options = options;
  }

  /** Why the live index could not save the index folder (it answers from memory); undefined while it saves, or before it opened. */
  get saveProblem(): string | undefined {
    return this.#saveProblem;
  }

  /** Which path answered the last search; undefined before the first. */
  get via(): SearchPath | undefined {
    return this.#via;
  }

  async search(query: string, request: SearchRequest = {}): Promise<readonly SearchHit[]> {
    return (await this.answer(query, request)).hits;
  }

  async answer(query: string, request: SearchRequest = {}): Promise<SearchAnswer> {
    const abstain = request.abstain ?? this.#options.abstain;
    const full: SearchRequest = {
      ...request,
      k: request.k ?? this.#options.k,
      mode: request.mode ?? this.#options.mode,
      ...(abstain === undefined ? {} : { abstain }),
    };
    const answer = (await this.#fromServer(query, full)) ?? (await this.#fromSnapshot(query, full)) ?? (await this.#fromLive(query, full));
    this.#via = answer.via;
    this.#saveProblem ??= answer.saveProblem;
    return answer;
  }

  async close(): Promise<void> {
    (await this.#client?.catch(() => undefined))?.close();
    await (await this.#snapshot?.catch(() => undefined))?.close();
    await (await this.#live?.catch(() => undefined))?.close();
  }

  /**
   * The server's answer, or undefined to search in-process: no server, a failure, an empty index
   * (the in-process path then says where it looked), or `explain` from a server that does not
   * explain (an older version, or an empty answer, which only the engine can explain).
   */
  async #fromServer(query: string, request: SearchRequest): Promise<SearchAnswer | undefined> {
    const server = this.#options.server;
    let client: SkillSocketClient | undefined;
    try {
      this.#client ??= server && SkillSocketClient.connect(server.socketPath, { ...server, signal: request.signal });
      client = await this.#client;
    } catch (error) {
      if (isAbortError(error)) throw error;
      // Refused, missing, not a directory…: nothing listens. A timeout is a server too busy to accept.
      this.#leaveServer(error, ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code !== undefined);
    }
    if (client === undefined) return undefined;
    try {
      const { hits, skills } = await client.search(query, request);
      if (skills === 0 || (request.explain === true && (hits.length === 0 || hits.some((hit) => hit.why === undefined)))) return undefined;
      return { hits, via: 'server', skills, diagnostics: [] };
    } catch (error) {
      if (isAbortError(error)) throw error;
      this.#leaveServer(error, false);
      return undefined;
    }
  }

  async #fromSnapshot(query: string, request: SearchRequest): Promise<SearchAnswer | undefined> {
    if (!snapshotCanAnswer(query)) return undefined;
    const snapshot = await this.#openSnapshot();
    if (snapshot === undefined) return undefined;
    try {
      const hits = await snapshot.search(query, request);
      const { engine, diagnostics } = snapshot;
      return { hits, via: 'snapshot', skills: engine.size, diagnostics, ...(await explainNone(engine, query, request, hits)) };
    } catch (error) {
      if (isAbortError(error) || (error instanceof SkillSearchError && error.isUserError)) throw error;
      // A snapshot that fails mid-search (a record that does not decode) is not used again.
      this.#leaveSnapshot(`search snapshot failed: ${errorMessage(error)}`);
      void snapshot.close().catch(() => undefined);
      return undefined;
    }
  }

  async #fromLive(query: string, request: SearchRequest): Promise<SearchAnswer> {
    this.#live ??= this.#options.openLive();
    const live = await this.#live;
    const { snapshot } = await live.refresh({ onProgress: this.#options.onProgress, signal: request.signal });
    const skills = snapshot.skills.length;
    const hits = skills === 0 ? [] : await live.search(query, request);
    const { saveProblem } = live.engine;
    return {
      hits,
      via: 'live',
      skills,
      diagnostics: snapshot.diagnostics,
      ...(saveProblem === undefined ? {} : { saveProblem }),
      ...(skills === 0 ? {} : await explainNone(live.engine, query, request, hits)),
    };
  }

  #leaveServer(error: unknown, noServer: boolean): void {
    void this.#client?.then(
      (client) => client?.close(),
      () => undefined,
    );
    this.#client = Promise.resolve(undefined);
    const untrusted = error instanceof SkillSearchError && error.code === 'UNTRUSTED';
    this.#options.onFallback?.({ from: 'server', reason: errorMessage(error), noServer, untrusted });
  }

  #leaveSnapshot(reason: string): undefined {
    this.#snapshot = Promise.resolve(undefined);
    this.#options.onFallback?.({ from: 'snapshot', reason, noServer: false, untrusted: false });
    return undefined;
  }

  /** The snapshot search, or undefined (once, for good) when there is none to use or it failed to open. */
  #openSnapshot(): Promise<SnapshotPath | undefined> {
    this.#snapshot ??= this.#options.openSnapshot().then(
      (opened) => ('reason' in opened ? this.#leaveSnapshot(opened.reason) : opened),
      (error: unknown) => this.#leaveSnapshot(`search snapshot failed to open: ${errorMessage(error)}`),
    );
    return this.#snapshot;
  }
}

/** `{ nothingShown }` for an explained search that showed nothing, else `{}`. */
async function explainNone(
  engine: Pick<SkillSearchEngine, 'explain'>,
  query: string,
  request: SearchRequest,
  hits: readonly SearchHit[],
): Promise<{ nothingShown?: NothingShown }> {
  if (request.explain !== true || hits.length > 0) return {};
  return { nothingShown: await engine.explain(query, { k: request.k, mode: request.mode }) };
}

/** {@link OpenedSearch} over a `LiveIndex`'s options: `k`, `mode` and `abstain` default to theirs. */
export function openSearch(
  index: LiveIndexOptions,
  options: Omit<OpenSearchOptions, 'openSnapshot' | 'openLive' | 'k' | 'mode'> & Partial<Pick<OpenSearchOptions, 'k' | 'mode'>> = {},
): OpenedSearch {
  const liveIndex = async () => (await import('../integrations/live-index.js')).LiveIndex;
  return new OpenedSearch({
    k: index.k ?? ENGINE_DEFAULTS.k,
    mode: index.mode ?? ENGINE_DEFAULTS.mode,
    ...(index.abstain === undefined ? {} : { abstain: index.abstain }),
    ...options,
    openSnapshot: async () => (await liveIndex()).openSnapshot(index, { assemble: true }),
    openLive: async () => (await liveIndex()).open(index),
  });
}
