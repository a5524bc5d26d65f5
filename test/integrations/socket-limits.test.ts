import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_QUERY_CHARS, capQuery } from '../../src/integrations/query-cap.js';
import { SkillSocketClient } from '../../src/integrations/socket-client.js';
import { MAX_REQUEST_BYTES, socketPathFor } from '../../src/integrations/socket-protocol.js';
import { SkillSocketServer, type SkillSocketServerOptions } from '../../src/integrations/socket-server.js';
import type { SearchHit, Skill } from '../../src/types.js';
import { useTempDirs } from '../support/temp-dirs.js';

const tempDir = useTempDirs('limits');
const servers: SkillSocketServer[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await server.close();
});

function hit(name: string, description: string): SearchHit {
  const skill: Skill = { name, description, source: 'skills', rank: 5, path: `/s/${name}/SKILL.md`, id: name, body: '', tokenEstimate: 1, contentHash: name };
  return { skill, score: 0.5, via: ['lexical'] };
}

async function serve(options: Partial<SkillSocketServerOptions> & Pick<SkillSocketServerOptions, 'searcher'>): Promise<SkillSocketServer> {
  const server = await SkillSocketServer.listen({ path: socketPathFor(tempDir()), size: () => 1, version: 'test', ...options });
  servers.push(server);
  return server;
}

function connect(where: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(where, () => resolve(socket));
    socket.on('error', reject);
    sockets.push(socket);
  });
}

async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('socket server resource bounds', () => {
  it('drops a client that sends requests but never reads the answers', async () => {
    const big = Array.from({ length: 20 }, (_, i) => hit(`skill-${i}`, 'd'.repeat(4000)));
    const server = await serve({ searcher: { search: async () => big }, maxWriteBufferBytes: 256 * 1024 });
    const client = await connect(server.path);
    client.pause();
    const requests = 200;
    client.write(Array.from({ length: requests }, (_, id) => `{"id":${id},"op":"search","query":"q","k":20}\n`).join(''));
    await until(() => server.stats.dropped === 1, 'the server to drop the client');
    // Reading now: the answers stop short, and the connection is over.
    let answers = 0;
    client.setEncoding('utf8');
    client.on('data', (chunk: string) => (answers += chunk.split('\n').length - 1));
    const closed = new Promise((resolve) => client.once('close', resolve));
    client.resume();
    await closed;
    expect(answers).toBeLessThan(requests);
  });

  it('idle connections never lock a new client out: the longest idle one gives way', async () => {
    const server = await serve({ searcher: { search: async () => [] }, maxConnections: 4 });
    const idle: net.Socket[] = [];
    for (let i = 0; i < 4; i += 1) idle.push(await connect(server.path));
    const firstClosed = new Promise((resolve) => idle[0]!.once('close', resolve));
    const client = await SkillSocketClient.connect(server.path);
    expect((await client.ping()).pong).toBe(true);
    client.close();
    await firstClosed;
    expect(server.stats).toMatchObject({ dropped: 1, refused: 0 });
  });

  it('a new client waits while every connection has a request in progress, and is served when one is answered', async () => {
    let release: () => void = () => undefined;
    const stall = new Promise<readonly SearchHit[]>((resolve) => (release = () => resolve([])));
    const server = await serve({ searcher: { search: () => stall }, maxConnections: 2 });
    // Each sends its request and its end: the server closes it once answered.
    for (let i = 0; i < 2; i += 1) (await connect(server.path)).end('{"id":1,"op":"search","query":"q"}\n');
    await until(() => server.stats.requests === 2, 'both requests to arrive');
    let answered = false;
    const pinged = SkillSocketClient.connect(server.path)
      .then((client) => client.ping().finally(() => client.close()))
      .then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(false);
    release();
    await pinged;
    expect(server.stats).toMatchObject({ refused: 0 });
  });

  it('a burst of clients over the limit is served, none evicted before its first request is read', async () => {
    const server = await serve({ searcher: { search: async () => [] }, maxConnections: 8 });
    // All connect first, then all ask: the connections accepted early have not sent anything yet
    // (well within the server's idle grace, so none of them is idle).
    const clients = await Promise.all(Array.from({ length: 40 }, () => connect(server.path)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const answers = clients.map(
      (socket) =>
        new Promise<string>((resolve) => {
          let text = '';
          socket.setEncoding('utf8');
          socket.on('data', (chunk: string) => (text += chunk));
          socket.on('close', () => resolve(text));
        }),
    );
    clients.forEach((socket, i) => socket.end(`{"id":${i},"op":"ping"}\n`));
    const texts = await Promise.all(answers);
    expect(texts.filter((text) => text.includes('"pong":true'))).toHaveLength(40);
    expect(server.stats).toMatchObject({ dropped: 0, refused: 0 });
  });

  it('refuses a client at once only when the waiting room is full too', async () => {
    let release: () => void = () => undefined;
    const stall = new Promise<readonly SearchHit[]>((resolve) => (release = () => resolve([])));
    const server = await serve({ searcher: { search: () => stall }, maxConnections: 1 });
    (await connect(server.path)).write('{"id":1,"op":"search","query":"q"}\n');
    await until(() => server.stats.requests === 1, 'the request to arrive');
    for (let i = 0; i < 256; i += 1) await connect(server.path);
    const last = await connect(server.path);
    await new Promise((resolve) => last.once('close', resolve));
    expect(server.stats.refused).toBe(1);
    release();
  });

  it('searches a long query as the hook would send it (capped), whoever the client', async () => {
    const seen: string[] = [];
    const server = await serve({
      searcher: {
        search: async (query: string) => {
          seen.push(query);
          return [];
        },
      },
    });
    const query = `${'fill a pdf form '.repeat(3000)}end`;
    expect(Buffer.byteLength(query)).toBeLessThan(MAX_REQUEST_BYTES - 100);
    const socket = await connect(server.path);
    socket.write(`${JSON.stringify({ id: 1, op: 'search', query })}\n`);
    await until(() => seen.length === 1, 'the search');
    expect(seen[0]).toBe(capQuery(query));
    expect(seen[0]).toHaveLength(MAX_QUERY_CHARS);
  });

  it('a prompt over 64 KiB still gets an answer: the client sends the capped query', async () => {
    const seen: string[] = [];
    const server = await serve({
      searcher: {
        search: async (query: string) => {
          seen.push(query);
          return [hit('log-triage', 'Read a pasted log')];
        },
      },
    });
    const prompt = `why does this fail?\n${'E'.repeat(200_000)}`;
    const client = await SkillSocketClient.connect(server.path);
    try {
      const { hits } = await client.search(prompt);
      expect(hits.map((h) => h.skill.name)).toEqual(['log-triage']);
      expect(seen).toEqual([capQuery(prompt)]);
    } finally {
      client.close();
    }
  });

  it('every limit is a validated option', async () => {
    await expect(
      SkillSocketServer.listen({
        path: path.join(tempDir(), 's.sock'),
        searcher: { search: async () => [] },
        size: () => 0,
        version: 't',
        maxWriteBufferBytes: 0,
      }),
    ).rejects.toThrow('Expected `maxWriteBufferBytes` to be a positive integer, got `0`');
  });
});
