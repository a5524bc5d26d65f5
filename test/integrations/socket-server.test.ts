import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LiveIndex } from '../../src/integrations/live-index.js';
import { SkillSocketClient } from '../../src/integrations/socket-client.js';
import { socketPathFor, toWireHit } from '../../src/integrations/socket-protocol.js';
import { SkillSocketServer } from '../../src/integrations/socket-server.js';
import { SKILLS, removeDir, tempDir } from '../cli/helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

/** Sends raw text on a fresh connection and collects `count` answer lines. */
function exchange(where: string, text: string | Buffer, count: number): Promise<{ lines: unknown[]; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(where);
    let buffer = '';
    const lines: unknown[] = [];
    let closed = false;
    const finish = () => {
      socket.destroy();
      resolve({ lines, closed });
    };
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(text));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        lines.push(JSON.parse(buffer.slice(0, newline)));
        buffer = buffer.slice(newline + 1);
      }
      if (lines.length >= count) finish();
    });
    socket.on('end', () => {
      closed = true;
      finish();
    });
    socket.on('error', reject);
  });
}

describe('SkillSocketServer', () => {
  let live: LiveIndex;
  let indexDir: string;
  let server: SkillSocketServer;

  beforeAll(async () => {
    indexDir = tempDir();
    dirs.push(indexDir);
    live = await LiveIndex.open({ catalog: { skillsDirs: [SKILLS] }, model: 'hash', indexDir });
    await live.refresh();
    server = await SkillSocketServer.listen({
      path: socketPathFor(indexDir),
      searcher: live.engine,
      size: () => live.engine.size,
      version: '9.9.9',
    });
  });
  afterAll(async () => {
    await server.close();
    await live.close();
  });

  it('listens beside the index, for this user only', () => {
    expect(server.path).toBe(path.join(indexDir, 'server.sock'));
    const stats = lstatSync(server.path);
    expect(stats.isSocket()).toBe(true);
    expect(stats.mode & 0o777).toBe(0o600);
  });

  it('answers a search with exactly what the engine ranks in-process, scores unrounded', async () => {
    const client = await SkillSocketClient.connect(server.path);
    try {
      expect(await client.ping()).toEqual({ id: 1, pong: true, pid: process.pid, version: '9.9.9', skills: 6 });
      const query = 'find the commit that broke the build with git bisect';
      const request = { k: 3, mode: 'hybrid' as const };
      const remote = await client.search(query, request);
      const local = await live.engine.search(query, request);
      expect(local.length).toBeGreaterThan(0);
      expect(remote.skills).toBe(6);
      expect(remote.hits.map(toWireHit)).toEqual(local.map(toWireHit));
      expect(remote.hits[0]?.skill).toMatchObject({ name: 'git-bisect', source: 'skills', path: path.join(SKILLS, 'git-bisect', 'SKILL.md') });
    } finally {
      client.close();
    }
  });

  it('passes explain through: the same why as in-process, and none unless asked', async () => {
    const client = await SkillSocketClient.connect(server.path);
    try {
      const query = 'fill in a pdf form';
      const request = { k: 2, mode: 'hybrid' as const, explain: true };
      const remote = await client.search(query, request);
      const local = await live.engine.search(query, request);
      expect(remote.hits.map(toWireHit)).toEqual(local.map(toWireHit));
      expect(remote.hits[0]?.why?.matched).toEqual({
        name: ['pdf', 'form'],
        whenToUse: ['fillabl', 'pdf', 'form'],
        description: ['fill', 'pdf', 'form'],
        body: ['fill', 'pdf', 'form'],
      });
      expect(remote.hits[0]?.why?.answerable).toBe(local[0]?.why?.answerable);
    } finally {
      client.close();
    }
    const { lines } = await exchange(
      server.path,
      '{"id":1,"op":"search","query":"fill in a pdf form","k":1}\n{"id":2,"op":"search","query":"pdf","explain":"yes"}\n',
      2,
    );
    const [plain, refused] = lines as [{ hits: object[] }, unknown];
    expect(plain.hits).toHaveLength(1);
    expect(plain.hits[0]).not.toHaveProperty('why');
    expect(refused).toEqual({ id: 2, error: { code: 'bad-request', message: '"explain" must be a boolean, got "yes"' } });
  });

  it('answers every malformed line with an error and keeps serving the same connection', async () => {
    const requests = [
      'not json',
      '[1,2]',
      '{"id":{"x":1},"op":"ping"}',
      '{"id":7,"op":"dance"}',
      '{"id":8,"op":"search","query":"pdf","k":0}',
      '{"id":"nine","op":"search","query":"pdf","mode":"fuzzy"}',
      '{"id":10,"op":"search"}',
      '{"id":11,"op":"ping"}',
    ];
    const { lines } = await exchange(server.path, `${requests.join('\n')}\n`, requests.length);
    expect(lines).toEqual([
      { id: null, error: { code: 'bad-json', message: 'request is not JSON' } },
      { id: null, error: { code: 'bad-request', message: 'request is not a JSON object' } },
      { id: null, error: { code: 'bad-request', message: '"id" must be a string, a number or null' } },
      { id: 7, error: { code: 'bad-request', message: '"op" must be "search" or "ping", got "dance"' } },
      { id: 8, error: { code: 'bad-request', message: '"k" must be an integer from 1 to 100, got 0' } },
      { id: 'nine', error: { code: 'bad-request', message: '"mode" must be one of hybrid, dense, lexical, got "fuzzy"' } },
      { id: 10, error: { code: 'bad-request', message: '"query" must be a string' } },
      { id: 11, pong: true, pid: process.pid, version: '9.9.9', skills: 6 },
    ]);
  });

  it('refuses an oversized request line, closes that connection, and serves the next one', async () => {
    const huge = Buffer.alloc(70 * 1024, 'a');
    const refused = await exchange(server.path, huge, 1);
    expect(refused.lines).toEqual([{ id: null, error: { code: 'too-large', message: 'request line longer than 65536 bytes; closing the connection' } }]);
    const next = await exchange(server.path, '{"id":1,"op":"ping"}\n', 1);
    expect(next.lines).toEqual([{ id: 1, pong: true, pid: process.pid, version: '9.9.9', skills: 6 }]);
  });

  it('answers a client that sends its last request and shuts its side, then closes', async () => {
    const result = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = net.connect(server.path, () => socket.end('{"id":"last","op":"search","query":"resize images","mode":"lexical","k":1}'));
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    const answer = JSON.parse(result) as { id: string; hits: { name: string }[] };
    expect(answer.id).toBe('last');
    expect(answer.hits.map((hit) => hit.name)).toEqual(['image-resize']);
  });
});

describe('SkillSocketServer: lifecycle', () => {
  const searcher = { search: async () => [] };
  const options = (where: string) => ({ path: where, searcher, size: () => 0, version: 'test' });

  it.skipIf(process.platform === 'win32')('a client finds no socket file without making a socket: ENOENT, as connecting says', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const where = socketPathFor(dir);
    const connect = vi.spyOn(net, 'connect');
    try {
      const refused = await SkillSocketClient.connect(where).catch((error: unknown) => error as Error);
      expect(refused).toMatchObject({ message: `skill-search: search server: cannot connect to ${where}: connect ENOENT ${where}`, cause: { code: 'ENOENT' } });
      expect(connect).not.toHaveBeenCalled();
    } finally {
      connect.mockRestore();
    }
  });

  it('replaces a socket file left by a killed server', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const where = socketPathFor(dir);
    const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(where)}, () => console.log('up'))`]);
    await new Promise((resolve) => child.stdout.once('data', resolve));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(lstatSync(where).isSocket()).toBe(true);
    await expect(SkillSocketClient.connect(where)).rejects.toThrow(/ECONNREFUSED/);

    const server = await SkillSocketServer.listen(options(where));
    const client = await SkillSocketClient.connect(where);
    expect((await client.ping()).version).toBe('test');
    client.close();
    await server.close();
    expect(existsSync(where)).toBe(false);
  });

  it('leaves a live server alone, and never deletes a file that is not a socket', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const where = socketPathFor(dir);
    const first = await SkillSocketServer.listen(options(where));
    await expect(SkillSocketServer.listen(options(where))).rejects.toThrow(`skill-search: another skill-search server is already serving ${where}`);
    const client = await SkillSocketClient.connect(where);
    expect((await client.ping()).pong).toBe(true);
    client.close();
    await first.close();
    await first.close();

    writeFileSync(where, 'my notes');
    await expect(SkillSocketServer.listen(options(where))).rejects.toThrow(
      `skill-search: ${where} exists and is not a socket; remove it or choose another --index-dir`,
    );
    expect(readFileSync(where, 'utf8')).toBe('my notes');
  });

  it('a failing search is answered with an internal error; the server goes on', async () => {
    const dir = tempDir();
    dirs.push(dir);
    let calls = 0;
    const logs: string[] = [];
    const server = await SkillSocketServer.listen({
      path: socketPathFor(dir),
      searcher: {
        search: async () => {
          calls += 1;
          if (calls === 1) throw new Error('skill-search: the index exploded\n    at somewhere');
          return [];
        },
      },
      size: () => 0,
      version: 'test',
      log: (line) => logs.push(line),
    });
    try {
      const { lines } = await exchange(server.path, '{"id":1,"op":"search","query":"a"}\n{"id":2,"op":"search","query":"b"}\n', 2);
      expect(lines).toEqual([
        { id: 1, error: { code: 'internal', message: 'the index exploded' } },
        { id: 2, hits: [], tookMs: expect.any(Number), skills: 0 },
      ]);
      expect(logs).toEqual(['skill-search server: search failed: the index exploded']);
      expect(server.stats).toMatchObject({ requests: 2, errors: 1 });
    } finally {
      await server.close();
    }
  });

  it('moves the socket to the temp folder when the index path is too long for one', () => {
    const deep = path.join('/tmp', 'x'.repeat(120));
    expect(socketPathFor(deep)).toMatch(/\/skill-search(-\d+)?\/[0-9a-f]{16}\.sock$/);
    expect(socketPathFor('/home/me/.cache/skill-search/skills-0123')).toBe('/home/me/.cache/skill-search/skills-0123/server.sock');
    expect(socketPathFor('C:\\cache\\skills', 'win32')).toMatch(/^\\\\\.\\pipe\\skill-search-[0-9a-f]{16}$/);
  });
});
