import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { abortError } from '../errors.js';

export interface HttpOptions {
  readonly method: 'GET' | 'HEAD';
  readonly headers?: Readonly<Record<string, string>>;
  /** Give up when no TCP (and TLS) connection is up after this long. */
  readonly connectTimeoutMs: number;
  /** Give up when the connection goes silent for this long (headers or body). */
  readonly idleTimeoutMs: number;
  readonly signal?: AbortSignal;
}

/** A request that failed before or while its response arrived: worth retrying, unlike a refusal. pull.ts makes it a `NETWORK` error. */
export class HttpFailure extends Error {
  override readonly name = 'HttpFailure';
}

/** One HTTP(S) request, redirects not followed; Node's client, since fetch() cannot time out a connect (minutes when unroutable). */
export function request(url: URL, options: HttpOptions): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(abortError(options.signal));
      return;
    }
    const client = url.protocol === 'http:' ? http : https;
    let connected = false;
    const req = client.request(url, { method: options.method, headers: { 'user-agent': 'skill-search', ...options.headers } });
    const fail = (error: Error) => {
      clearTimeout(connectTimer);
      options.signal?.removeEventListener('abort', onAbort);
      req.destroy();
      reject(error);
    };
    const connectTimer = setTimeout(
      () => fail(new HttpFailure(`no connection to ${url.host} within ${options.connectTimeoutMs} ms`)),
      options.connectTimeoutMs,
    );
    const onAbort = () => fail(abortError(options.signal));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('socket', (socket) => {
      const up = () => {
        connected = true;
        clearTimeout(connectTimer);
      };
      if (!socket.connecting) up();
      else socket.once(url.protocol === 'http:' ? 'connect' : 'secureConnect', up);
    });
    req.setTimeout(options.idleTimeoutMs, () => {
      if (connected) fail(new HttpFailure(`${url.host} sent nothing for ${options.idleTimeoutMs} ms`));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code ?? error.message;
      fail(new HttpFailure(connected ? `connection to ${url.host} lost (${reason})` : `cannot connect to ${url.host} (${reason})`, { cause: error }));
    });
    req.on('response', (response) => {
      clearTimeout(connectTimer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(response);
    });
    req.end();
  });
}

/** The header's single value (node joins repeated ones). */
export function header(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
