import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { serveMcpStdio } from '../../src/integrations/mcp-server.js';
import type { SkillService } from '../../src/integrations/service.js';

const service: SkillService = { search: async () => [], skills: async () => [], close: async () => undefined };

/** The client's end of the server's stdin and stdout, as a stdio client reads and writes them. */
class StreamsTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly toServer: PassThrough,
    private readonly fromServer: PassThrough,
  ) {}

  async start(): Promise<void> {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message !== null; message = this.buffer.readMessage()) this.onmessage?.(message);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.toServer.end();
    this.onclose?.();
  }
}

describe('serveMcpStdio: what a host waits for comes first', () => {
  it('heavy start-up work (onInitialized) starts once the client has been sent its tool list, not at the handshake', async () => {
    const events: string[] = [];
    const stdin = new PassThrough();
    // Told as the server writes each line (the write is synchronous), so the order is the server's own.
    const stdout = new PassThrough({
      transform(chunk: Buffer, _encoding, done) {
        const line = chunk.toString('utf8');
        if (line.includes('"tools":[')) events.push('tool list written');
        else if (line.includes('"protocolVersion"')) events.push('initialize answered');
        done(null, chunk);
      },
    });
    const served = serveMcpStdio({
      service,
      k: 3,
      mode: 'hybrid',
      version: 'test',
      log: () => undefined,
      stdin,
      stdout,
      onInitialized: () => events.push('heavy work'),
    });
    const client = new Client({ name: 'host', version: '0' });
    // initialize, then notifications/initialized (which the server handles before the next request).
    await client.connect(new StreamsTransport(stdin, stdout));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['read_skill', 'search_skills']);
    await expect.poll(() => events.length).toBe(3);
    expect(events).toEqual(['initialize answered', 'tool list written', 'heavy work']);
    // Once only.
    await client.listTools();
    await client.close();
    await served;
    expect(events.filter((event) => event === 'heavy work')).toHaveLength(1);
  });
});
