/** Client of the local search server (socket-server.ts): it imports no model, engine or loader, so a hook that finds a server stays small. */
import { once } from 'node:events';
import net from 'node:net';
import { SkillSearchError, abortError, errorMessage, throwIfAborted } from '../errors.js';
import { linkAbortSignal } from '../util/link-signal.js';
import type { SearchHit, SearchRequest } from '../types.js';
import { capQuery } from './query-cap.js';
import { LineSplitter, fromWireHit, isWireHit, type PingResponseLine, type RequestId } from './socket-protocol.js';
import { currentUid, lstatOrUndefined, untrustedSocketReason } from './socket-trust.js';
import { isRecord, parseJsonQuietly } from '../util/json-file.js';

export interface SocketClientOptions {
  /** Give up connecting after this long (the caller has its own way to answer). @default 150 */
  readonly connectTimeoutMs?: number;
  /** Give up on one request after this long. @default 1000 */
  readonly requestTimeoutMs?: number;
  /** The user the socket and its folder must belong to, else UNTRUSTED before a byte is sent; undefined skips the check. @default process.getuid() */
  readonly uid?: number;
  readonly signal?: AbortSignal;
}

export interface RemoteSearchResult {
  readonly hits: readonly SearchHit[];
  /** The server's own search time. */
  readonly tookMs: number;
  /** Skills in the served index. */
  readonly skills: number;
}

type Pending = { readonly resolve: (value: Record<string, unknown>) => void; readonly reject: (error: Error) => void };

/** Defaults of {@link SocketClientOptions} (documented there). */
const SOCKET_CLIENT_DEFAULTS = Object.freeze({ connectTimeoutMs: 150, requestTimeoutMs: 1000 });
/** A server answer longer than this is not ours: drop the connection. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

function serverError(message: string, cause?: unknown): SkillSearchError {
  return new SkillSearchError('INTERNAL', `search server: ${message}`, cause === undefined ? undefined : { cause });
}

export class SkillSocketClient {
  readonly #socket: net.Socket;
  readonly #requestTimeoutMs: number;
  readonly #pending = new Map<RequestId, Pending>();
  #nextId = 1;
  readonly #lines = new LineSplitter(MAX_RESPONSE_BYTES);
  #failure: Error | undefined;

  private constructor(socket: net.Socket, requestTimeoutMs: number) {
    this.#socket = socket;
    this.#requestTimeoutMs = requestTimeoutMs;
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('error', (error) => this.#fail(serverError(error.message, error)));
    socket.on('close', () => this.#fail(serverError('connection closed')));
  }

  /** Rejects when nothing accepts on `where` within the connect timeout, and (UNTRUSTED, without connecting) when the socket or its folder is another user's. */
  static async connect(where: string, options: SocketClientOptions = {}): Promise<SkillSocketClient> {
    const connectTimeoutMs = options.connectTimeoutMs ?? SOCKET_CLIENT_DEFAULTS.connectTimeoutMs;
    const requestTimeoutMs = options.requestTimeoutMs ?? SOCKET_CLIENT_DEFAULTS.requestTimeoutMs;
    const uid = 'uid' in options ? options.uid : currentUid();
    throwIfAborted(options.signal);
    const distrust = untrustedSocketReason(where, uid);
    if (distrust !== undefined) throw new SkillSearchError('UNTRUSTED', `not using the search socket ${where}: it ${distrust}`);
    // No file at a POSIX socket's path (no server): what connecting would say, 2 ms sooner.
    if (uid !== undefined && lstatOrUndefined(where) === undefined) {
      const missing = Object.assign(new Error(`connect ENOENT ${where}`), { code: 'ENOENT', syscall: 'connect', address: where });
      throw serverError(`cannot connect to ${where}: ${missing.message}`, missing);
    }
    const socket = net.connect(where);
    const controller = new AbortController();
    const unlink = linkAbortSignal(options.signal, controller);
    const timer = setTimeout(() => controller.abort(), connectTimeoutMs);
    try {
      // Rejects on the socket's error, or once the signal or the timer aborts the wait.
      await once(socket, 'connect', { signal: controller.signal });
    } catch (error) {
      socket.destroy();
      if (options.signal?.aborted) throw abortError(options.signal);
      const why = controller.signal.aborted ? `no answer within ${connectTimeoutMs} ms` : errorMessage(error);
      throw serverError(`cannot connect to ${where}: ${why}`, error);
    } finally {
      clearTimeout(timer);
      unlink();
    }
    return new SkillSocketClient(socket, requestTimeoutMs);
  }

  async ping(signal?: AbortSignal): Promise<PingResponseLine> {
    const response = await this.#request({ op: 'ping' }, signal);
    if (response.pong !== true || typeof response.skills !== 'number') throw serverError('malformed ping answer');
    return response as unknown as PingResponseLine;
  }

  async search(query: string, request: SearchRequest = {}): Promise<RemoteSearchResult> {
    const { k, mode, abstain, explain } = request;
    // Capped, as the server would (and under its line limit); undefined fields are not sent.
    const response = await this.#request({ op: 'search', query: capQuery(query), k, mode, abstain, explain: explain || undefined }, request.signal);
    const { hits, tookMs, skills } = response;
    if (!Array.isArray(hits) || !hits.every(isWireHit) || typeof tookMs !== 'number' || typeof skills !== 'number') {
      throw serverError('malformed search answer');
    }
    return { hits: hits.map(fromWireHit), tookMs, skills };
  }

  /** Idempotent; requests still waiting reject. */
  close(): void {
    this.#fail(serverError('client closed'));
    this.#socket.destroy();
  }

  #request(body: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = () => settle(() => reject(abortError(signal)));
      const settle = (then: () => void) => {
        clearTimeout(timer);
        this.#pending.delete(id);
        signal?.removeEventListener('abort', onAbort);
        then();
      };
      const timer = setTimeout(() => settle(() => reject(serverError(`no answer within ${this.#requestTimeoutMs} ms`))), this.#requestTimeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(id, {
        resolve: (value) => settle(() => resolve(value)),
        reject: (error) => settle(() => reject(error)),
      });
      this.#socket.write(`${JSON.stringify({ id, ...body })}\n`);
    });
  }

  #receive(chunk: Buffer): void {
    const { lines, overflow } = this.#lines.push(chunk);
    for (const line of lines) {
      const text = line.toString('utf8');
      if (text.trim() === '') continue;
      const response = parseJsonQuietly(text);
      if (response === undefined) {
        this.#fail(serverError('answer is not JSON'));
        this.#socket.destroy();
        return;
      }
      if (!isRecord(response)) continue;
      const error = response.error as { code?: unknown; message?: unknown } | undefined;
      const pending = this.#pending.get(response.id as RequestId);
      if (error !== undefined) {
        const failure = serverError(`${String(error?.code)}: ${String(error?.message)}`);
        // An error not tied to one request (a refused line) concerns every request on the line.
        if (pending) pending.reject(failure);
        else this.#fail(failure);
        continue;
      }
      pending?.resolve(response);
    }
    if (overflow) {
      this.#fail(serverError('answer too large'));
      this.#socket.destroy();
    }
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const pending of [...this.#pending.values()]) pending.reject(error);
  }
}
