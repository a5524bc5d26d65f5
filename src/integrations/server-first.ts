import { SkillSearchError, errorMessage, isAbortError } from '../errors.js';
import type { AbstainSetting, SearchHit, SearchMode, SearchRequest, SkillSearcher } from '../types.js';
import { SkillSocketClient } from './socket-client.js';

/** A search that can be closed: a `LiveIndex`, or the searcher below. */
export interface ClosableSearcher extends SkillSearcher {
  close(): Promise<void>;
}

export interface ServerFirstOptions {
  /** Where a `watch` server for the same index would listen (`socketPathFor(indexDir)`). */
  readonly socketPath: string;
  /** Opens the in-process search; called at most once, and only when the server cannot answer. */
  readonly openLocal: () => Promise<ClosableSearcher>;
  /** Sent when a request names none, so both paths search alike. */
  readonly k: number;
  readonly mode: SearchMode;
  /** Sent when a request names none; undefined leaves it to the answering engine's default. */
  readonly abstain?: AbstainSetting | undefined;
  /** @default 150 */
  readonly connectTimeoutMs?: number;
  /** @default 1000 */
  readonly requestTimeoutMs?: number;
  /** The user the socket must belong to (see `SocketClientOptions.uid`). @default process.getuid() */
  readonly uid?: number;
  /**
   * Why the server was not used. `noServer`: the connection was refused outright (no socket
   * file, or one left by a killed server): the usual case, not worth a log line.
   * `untrusted`: the socket or its folder belongs to another user; nothing was sent to it.
   */
  readonly onFallback?: (why: { readonly reason: string; readonly noServer: boolean; readonly untrusted: boolean }) => void;
}

/**
 * Asks a running server first and the in-process index otherwise. Any failure of the server
 * (none listening, a stale socket, a timeout, a malformed answer) moves this searcher to the
 * in-process path for good; an abort is passed on, never retried.
 */
export class ServerFirstSearcher implements ClosableSearcher {
  readonly #options: ServerFirstOptions;
  #client: Promise<SkillSocketClient | undefined> | undefined;
  #local: Promise<ClosableSearcher> | undefined;
  #via: 'server' | 'local' | undefined;

  constructor(options: ServerFirstOptions) {
    this.#options = options;
  }

  /** Which path answered the last search; undefined before the first. */
  get via(): 'server' | 'local' | undefined {
    return this.#via;
  }

  async search(query: string, request: SearchRequest = {}): Promise<readonly SearchHit[]> {
    const abstain = request.abstain ?? this.#options.abstain;
    const full: SearchRequest = {
      ...request,
      k: request.k ?? this.#options.k,
      mode: request.mode ?? this.#options.mode,
      ...(abstain === undefined ? {} : { abstain }),
    };
    if (this.#local === undefined) {
      let client: SkillSocketClient | undefined;
      try {
        client = await this.#connect(request.signal);
      } catch (error) {
        if (isAbortError(error)) throw error;
        // Refused, missing, not a directory…: nothing listens. A timeout is a server too busy to accept.
        const code = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code;
        this.#fallBack(error, code !== undefined);
      }
      if (client) {
        try {
          const { hits } = await client.search(query, full);
          this.#via = 'server';
          return hits;
        } catch (error) {
          if (isAbortError(error)) throw error;
          this.#fallBack(error, false);
        }
      }
    }
    this.#local ??= this.#options.openLocal();
    const local = await this.#local;
    const hits = await local.search(query, full);
    this.#via = 'local';
    return hits;
  }

  async close(): Promise<void> {
    const client = await this.#client?.catch(() => undefined);
    client?.close();
    const local = await this.#local?.catch(() => undefined);
    await local?.close();
  }

  #connect(signal: AbortSignal | undefined): Promise<SkillSocketClient | undefined> {
    this.#client ??= SkillSocketClient.connect(this.#options.socketPath, {
      ...(this.#options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: this.#options.connectTimeoutMs }),
      ...(this.#options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: this.#options.requestTimeoutMs }),
      ...('uid' in this.#options ? { uid: this.#options.uid } : {}),
      ...(signal === undefined ? {} : { signal }),
    });
    return this.#client;
  }

  #fallBack(error: unknown, noServer: boolean): void {
    void this.#client?.then(
      (client) => client?.close(),
      () => undefined,
    );
    this.#client = Promise.resolve(undefined);
    const untrusted = error instanceof SkillSearchError && error.code === 'UNTRUSTED';
    this.#options.onFallback?.({ reason: errorMessage(error), noServer, untrusted });
  }
}
