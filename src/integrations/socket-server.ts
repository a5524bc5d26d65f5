/**
 * A resident search server on a local socket (Unix, mode 0600, or a Windows pipe), so a hook
 * process asks an index already in memory. Protocol: socket-protocol.ts.
 *
 * Invariants: nothing a client sends can throw out of a handler or stop the server; a
 * connection holds at most `maxRequestBytes` unparsed, MAX_QUEUED requests (reading pauses
 * beyond, and while answers wait to be written) and `maxWriteBufferBytes` unsent (past that it
 * is dropped); idle connections never lock new clients out, but are evicted only after
 * IDLE_GRACE_MS without a request; `close()` is idempotent.
 */
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';
import { SkillSearchError, abortError, badOption, errorMessage, isAbortError } from '../errors.js';
import type { SkillSearcher } from '../types.js';
import { LineSplitter, MAX_REQUEST_BYTES, errorLine, parseRequestLine, toWireHit, type ResponseLine } from './socket-protocol.js';
import { capQuery } from './query-cap.js';
import { currentUid, lstatOrUndefined, prepareSocketDir } from './socket-trust.js';
import { definedOnly } from '../util/defined.js';
import { firstLine } from '../util/text.js';
import { positiveInteger } from '../util/option-checks.js';

export interface SkillSocketServerOptions {
  /** Socket path or pipe name, usually `socketPathFor(indexDir)`. */
  readonly path: string;
  /** Answers `search` requests (the watcher's engine: it searches without waiting for a reindex). */
  readonly searcher: SkillSearcher;
  /** Skills the searcher currently holds, reported with every answer. */
  readonly size: () => number;
  /** Reported by `ping`. */
  readonly version: string;
  /** One line per internal search failure (client mistakes are answered, not logged). @default no logging */
  readonly log?: (line: string) => void;
  /** @default MAX_REQUEST_BYTES (64 KiB) */
  readonly maxRequestBytes?: number;
  /** Open connections at most; when full, a new client replaces the one idle longest, or waits (MAX_WAITING at most). @default 64 */
  readonly maxConnections?: number;
  /** A connection with nothing read or written for this long is closed. @default 30_000 */
  readonly idleTimeoutMs?: number;
  /** Unsent answers on one connection, in bytes; a client that lets more pile up is dropped. @default 1 MiB */
  readonly maxWriteBufferBytes?: number;
}

type ResolvedServerOptions = Required<SkillSocketServerOptions>;

const defaults = {
  log: () => undefined,
  maxRequestBytes: MAX_REQUEST_BYTES,
  maxConnections: 64,
  idleTimeoutMs: 30_000,
  maxWriteBufferBytes: 1024 * 1024,
} as const;

function resolveServerOptions(options: SkillSocketServerOptions): ResolvedServerOptions {
  const merged = { ...defaults, ...definedOnly(options) } as ResolvedServerOptions;
  if (typeof merged.path !== 'string' || merged.path === '') throw badOption('path', 'be a socket path', merged.path);
  for (const key of ['maxRequestBytes', 'maxConnections', 'idleTimeoutMs', 'maxWriteBufferBytes'] as const) positiveInteger(key, merged[key]);
  return Object.freeze(merged);
}

/** Requests waiting on one connection before it stops reading (a client that floods waits). */
const MAX_QUEUED = 32;
/** Clients waiting for a place when every connection is in use; more are refused. */
const MAX_WAITING = 256;
/** A connection idle this long may be evicted; short, as a waiting hook has a budget of its own. */
const IDLE_GRACE_MS = 250;

export interface SocketServerStats {
  readonly connections: number;
  readonly requests: number;
  readonly errors: number;
  /** Connections closed to protect the server: not reading answers, or evicted for a new client. */
  readonly dropped: number;
  /** Connections closed on arrival: every place in use and MAX_WAITING clients waiting. */
  readonly refused: number;
}

/** Per connection, to choose whom to evict: requests not yet answered, and `performance.now()` of the last read. */
type ConnectionState = { queued: number; lastActive: number };

export class SkillSocketServer {
  readonly options: ResolvedServerOptions;
  readonly #server: net.Server;
  readonly #sockets = new Map<net.Socket, ConnectionState>();
  /** Accepted, not yet served, oldest first (paused: their requests wait in the kernel). */
  readonly #waiting: net.Socket[] = [];
  #retry: NodeJS.Timeout | undefined;
  #stats = { connections: 0, requests: 0, errors: 0, dropped: 0, refused: 0 };
  #closing: Promise<void> | undefined;
  readonly #onExit = () => unlinkOwnSocket(this.path);

  private constructor(options: ResolvedServerOptions) {
    this.options = options;
    // Half-open: a client may send its last request and shut its side; it still gets answers.
    this.#server = net.createServer({ allowHalfOpen: true }, (socket) => this.#accept(socket));
  }

  /** Listens on `options.path` (`listenOnSocket`: a stale socket file of this user is replaced). */
  static async listen(options: SkillSocketServerOptions): Promise<SkillSocketServer> {
    const server = new SkillSocketServer(resolveServerOptions(options));
    await listenOnSocket(server.#server, server.path);
    server.#server.on('error', (error) => server.options.log(`skill-search server: ${error.message}`));
    if (process.platform !== 'win32') process.once('exit', server.#onExit);
    return server;
  }

  get path(): string {
    return this.options.path;
  }

  get stats(): SocketServerStats {
    return { ...this.#stats };
  }

  /** Stops accepting, drops open connections and removes the socket file. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      process.off('exit', this.#onExit);
      clearTimeout(this.#retry);
      for (const socket of this.#sockets.keys()) socket.destroy();
      for (const socket of this.#waiting.splice(0)) socket.destroy();
      if (!this.#server.listening) {
        resolve();
        return;
      }
      this.#server.close(() => resolve());
    });
    return this.#closing;
  }

  /** Room for one more connection: evicts the connection idle the longest, or says there is none. */
  #makeRoom(): boolean {
    if (this.#sockets.size < this.options.maxConnections) return true;
    const idleBefore = performance.now() - IDLE_GRACE_MS;
    let idlest: [net.Socket, ConnectionState] | undefined;
    for (const entry of this.#sockets) {
      if (entry[1].queued === 0 && entry[1].lastActive <= idleBefore && (idlest === undefined || entry[1].lastActive < idlest[1].lastActive)) idlest = entry;
    }
    if (idlest === undefined) return false;
    this.#stats.dropped += 1;
    this.#sockets.delete(idlest[0]);
    idlest[0].destroy();
    return true;
  }

  #accept(socket: net.Socket): void {
    socket.on('error', () => undefined);
    if (this.#waiting.length === 0 && this.#makeRoom()) {
      this.#serve(socket);
      return;
    }
    if (this.#waiting.length >= MAX_WAITING) {
      this.#stats.refused += 1;
      socket.destroy();
      return;
    }
    socket.pause();
    socket.setTimeout(this.options.idleTimeoutMs, () => socket.destroy());
    socket.once('close', () => {
      const at = this.#waiting.indexOf(socket);
      if (at >= 0) this.#waiting.splice(at, 1);
    });
    this.#waiting.push(socket);
    this.#admitWaiting();
  }

  /** Serves waiting clients while there is room; checks again once a busy connection may have gone idle. */
  #admitWaiting(): void {
    if (this.#closing !== undefined) return;
    while (this.#waiting.length > 0 && this.#makeRoom()) {
      const next = this.#waiting.shift()!;
      if (!next.destroyed) this.#serve(next);
    }
    if (this.#waiting.length > 0 && this.#retry === undefined) {
      this.#retry = setTimeout(() => {
        this.#retry = undefined;
        this.#admitWaiting();
      }, IDLE_GRACE_MS / 5);
      this.#retry.unref();
    }
  }

  #serve(socket: net.Socket): void {
    const state: ConnectionState = { queued: 0, lastActive: performance.now() };
    this.#sockets.set(socket, state);
    this.#stats.connections += 1;
    const controller = new AbortController();
    const splitter = new LineSplitter(this.options.maxRequestBytes);
    let awaitingDrain = false;
    let chain: Promise<void> = Promise.resolve();

    const resumeIfRoom = () => {
      if (!awaitingDrain && state.queued < MAX_QUEUED / 2 && socket.isPaused() && !socket.destroyed) socket.resume();
    };
    const send = (response: ResponseLine) => {
      if (socket.destroyed || !socket.writable) return;
      const flushed = socket.write(`${JSON.stringify(response)}\n`);
      if (socket.writableLength > this.options.maxWriteBufferBytes) {
        // It sends but does not read: its answers would grow this process without bound.
        this.#stats.dropped += 1;
        socket.destroy();
        return;
      }
      if (!flushed && !awaitingDrain) {
        awaitingDrain = true;
        socket.pause();
        socket.once('drain', () => {
          awaitingDrain = false;
          resumeIfRoom();
        });
      }
    };
    const enqueue = (line: Buffer) => {
      const text = line.toString('utf8').trim();
      if (text === '') return;
      this.#stats.requests += 1;
      state.queued += 1;
      state.lastActive = performance.now();
      if (state.queued >= MAX_QUEUED) socket.pause();
      chain = chain
        .then(() => this.#answer(text, controller.signal))
        .then(
          (response) => {
            if (response !== undefined) send(response);
          },
          () => undefined,
        )
        .finally(() => {
          state.queued -= 1;
          state.lastActive = performance.now();
          resumeIfRoom();
        });
    };

    socket.setTimeout(this.options.idleTimeoutMs, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      const { lines, overflow } = splitter.push(chunk);
      for (const line of lines) enqueue(line);
      if (!overflow) return;
      this.#stats.errors += 1;
      send(errorLine(null, 'too-large', `request line longer than ${this.options.maxRequestBytes} bytes; closing the connection`));
      socket.removeAllListeners('data');
      socket.end();
    });
    socket.on('end', () => {
      // A last request without a trailing newline still counts.
      const last = splitter.end();
      if (last !== undefined) enqueue(last);
      void chain.finally(() => socket.end());
    });
    // Resets and broken pipes are the client's business; the server carries on (handler above).
    socket.on('close', () => {
      this.#sockets.delete(socket);
      controller.abort(abortError());
      this.#admitWaiting();
    });
    socket.resume();
  }

  async #answer(text: string, signal: AbortSignal): Promise<ResponseLine | undefined> {
    const request = parseRequestLine(text);
    if ('error' in request) {
      this.#stats.errors += 1;
      return request;
    }
    if (request.op === 'ping') {
      return { id: request.id, pong: true, pid: process.pid, version: this.options.version, skills: this.options.size() };
    }
    const started = performance.now();
    try {
      // One giant query would stall every client: search what the hook would send.
      const { k, mode, abstain, explain } = request;
      const hits = await this.options.searcher.search(capQuery(request.query), { ...definedOnly({ k, mode, abstain, explain }), signal });
      const tookMs = Math.round((performance.now() - started) * 10) / 10;
      return { id: request.id, hits: hits.map(toWireHit), tookMs, skills: this.options.size() };
    } catch (error) {
      if (signal.aborted && isAbortError(error)) return undefined;
      this.#stats.errors += 1;
      const message = firstLine(errorMessage(error));
      this.options.log(`skill-search server: search failed: ${message}`);
      return errorLine(request.id, 'internal', message);
    }
  }
}

// The socket file: listened on, replaced when a killed server left it, removed when the process exits without closing.

/** How long a stale-socket probe waits for a live server to accept. */
const PROBE_TIMEOUT_MS = 300;

/** Listens `server` on `where`, replacing a socket file a killed server of this user left; anything else there is an error. */
async function listenOnSocket(server: net.Server, where: string): Promise<void> {
  const isPipe = process.platform === 'win32';
  if (!isPipe) prepareSocketDir(path.dirname(where));
  try {
    await tryListen(server, where);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || isPipe) throw listenError(where, error);
    await replaceStaleSocket(where);
    await tryListen(server, where).catch((retry: unknown) => {
      throw listenError(where, retry);
    });
  }
  if (isPipe) return;
  // Searches reveal skill names and descriptions: only this user may connect.
  try {
    chmodSync(where, 0o600);
  } catch {
    // A file system without modes (some mounts): the folder's permissions still apply.
  }
}

/** Listens once; rejects with the server's error (`events.once` takes that listener off again). */
async function tryListen(server: net.Server, where: string): Promise<void> {
  const listening = once(server, 'listening');
  server.listen(where);
  await listening;
}

async function replaceStaleSocket(where: string): Promise<void> {
  const stats = lstatOrUndefined(where);
  if (stats === undefined) return;
  if (!stats.isSocket()) throw new SkillSearchError('BAD_FILE', `${where} exists and is not a socket; remove it or choose another --index-dir`);
  const uid = currentUid();
  if (uid !== undefined && stats.uid !== uid) {
    throw new SkillSearchError(
      'UNTRUSTED',
      `${where} is a socket of uid ${stats.uid}, not of this user (uid ${uid}); not replacing it (choose another --index-dir)`,
    );
  }
  if (await answers(where)) throw new SkillSearchError('BAD_OPTION', `another skill-search server is already serving ${where}`);
  try {
    unlinkSync(where);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw listenError(where, error);
  }
}

/** Last resort when the process exits without the server's `close()` (a forced exit): no stale file left behind. */
function unlinkOwnSocket(where: string): void {
  try {
    const stats = lstatSync(where);
    const uid = currentUid();
    if (stats.isSocket() && (uid === undefined || stats.uid === uid)) unlinkSync(where);
  } catch {
    // Already gone.
  }
}

function listenError(where: string, error: unknown): SkillSearchError {
  if (error instanceof SkillSearchError) return error;
  return new SkillSearchError('INTERNAL', `cannot listen on ${where}: ${errorMessage(error)}`, { cause: error });
}

/** Whether something accepts connections on `where` (a live server, not a stale file). */
function answers(where: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(where);
    const done = (live: boolean) => {
      clearTimeout(timer);
      probe.destroy();
      resolve(live);
    };
    // A server too busy to accept within the probe is still alive: never take its path.
    const timer = setTimeout(() => done(true), PROBE_TIMEOUT_MS);
    probe.once('connect', () => done(true));
    probe.once('error', (error: NodeJS.ErrnoException) => done(error.code !== 'ECONNREFUSED' && error.code !== 'ENOENT'));
  });
}
