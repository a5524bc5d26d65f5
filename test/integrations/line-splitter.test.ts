import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/integrations/socket-protocol.js';
import { SkillSocketClient } from '../../src/integrations/socket-client.js';
import { removeDir, tempDir } from '../cli/helpers.js';

const text = (lines: readonly Buffer[]) => lines.map((line) => line.toString('utf8'));

describe('LineSplitter', () => {
  it('joins a line split across chunks, a multi-byte character included', () => {
    const splitter = new LineSplitter(64);
    const bytes = Buffer.from('{"q":"调试"}\n{"q":"b"}\n');
    const cut = bytes.indexOf(Buffer.from('调')) + 1;
    expect(text(splitter.push(bytes.subarray(0, cut)).lines)).toEqual([]);
    expect(splitter.push(bytes.subarray(cut))).toEqual({ lines: [Buffer.from('{"q":"调试"}'), Buffer.from('{"q":"b"}')], overflow: false });
    expect(splitter.end()).toBeUndefined();
  });

  it('hands back a last line that has no newline', () => {
    const splitter = new LineSplitter(64);
    expect(text(splitter.push(Buffer.from('a\nb')).lines)).toEqual(['a']);
    expect(splitter.end()?.toString()).toBe('b');
    expect(splitter.end()).toBeUndefined();
  });

  it('keeps the lines before an oversized one, then reports the overflow and holds nothing', () => {
    const splitter = new LineSplitter(4);
    expect(splitter.push(Buffer.from('ok\nabcdef\nnext\n'))).toEqual({ lines: [Buffer.from('ok')], overflow: true });
    expect(splitter.end()).toBeUndefined();
  });

  it('reports an unfinished line as soon as it passes the limit, across chunks', () => {
    const splitter = new LineSplitter(4);
    expect(splitter.push(Buffer.from('abc')).overflow).toBe(false);
    expect(splitter.push(Buffer.from('de'))).toEqual({ lines: [], overflow: true });
    expect(splitter.end()).toBeUndefined();
  });

  it('a line of exactly the limit passes', () => {
    expect(new LineSplitter(4).push(Buffer.from('abcd\n'))).toEqual({ lines: [Buffer.from('abcd')], overflow: false });
  });
});

describe('SkillSocketClient framing', () => {
  let dir: string | undefined;
  let server: net.Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    if (dir) removeDir(dir);
  });

  /** A server that answers every request with `reply(id)`, written in one-byte pieces. */
  async function fakeServer(reply: (id: unknown) => string): Promise<string> {
    dir = tempDir('ss-frame-');
    const where = path.join(dir, 'server.sock');
    server = net.createServer((socket) => {
      socket.on('error', () => undefined);
      socket.on('data', (chunk) => {
        const { id } = JSON.parse(chunk.toString('utf8').trim()) as { id: unknown };
        const bytes = Buffer.from(reply(id));
        for (let i = 0; i < bytes.length; i += 1) socket.write(bytes.subarray(i, i + 1));
      });
    });
    await new Promise<void>((resolve) => server!.listen(where, resolve));
    return where;
  }

  it('reads an answer that arrives a byte at a time, multi-byte characters intact', async () => {
    const where = await fakeServer((id) => `${JSON.stringify({ id, pong: true, pid: 1, version: '调试', skills: 3 })}\n`);
    const client = await SkillSocketClient.connect(where);
    expect(await client.ping()).toMatchObject({ version: '调试', skills: 3 });
    client.close();
  });

  it('drops a server whose answer has no end', async () => {
    dir = tempDir('ss-frame-');
    const where = path.join(dir, 'server.sock');
    server = net.createServer((socket) => {
      socket.on('error', () => undefined);
      socket.on('data', () => socket.write(Buffer.alloc(9 * 1024 * 1024, 0x61)));
    });
    await new Promise<void>((resolve) => server!.listen(where, resolve));
    const client = await SkillSocketClient.connect(where, { requestTimeoutMs: 5000 });
    await expect(client.ping()).rejects.toThrow('skill-search: search server: answer too large');
    client.close();
  });
});
