/**
 * A loopback HTTP server that records every request (method, path, parsed JSON body) and
 * answers through a handler: the shared part of the model-API stubs.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body parsed as JSON, or the raw text when it is not JSON. */
  readonly body: unknown;
}

export type StubHandler = (request: RecordedRequest, response: ServerResponse) => void;

export interface RecordingServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

function parsed(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Writes one server-sent event. */
export function sendEvent(response: ServerResponse, event: string, data: unknown): void {
  response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

export function startSse(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}

export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
}

export async function startRecordingServer(handler: StubHandler): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((request, response) => {
    readBody(request).then(
      (text) => {
        const url = new URL(request.url ?? '/', 'http://127.0.0.1');
        const recorded: RecordedRequest = { method: request.method ?? 'GET', path: url.pathname, headers: request.headers, body: parsed(text) };
        requests.push(recorded);
        handler(recorded, response);
      },
      () => response.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
