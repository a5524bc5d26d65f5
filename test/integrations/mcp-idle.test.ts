import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { serveMcpStdio } from '../../src/integrations/mcp-server.js';
import type { SkillService } from '../../src/integrations/service.js';
import type { SearchHit, Skill } from '../../src/types.js';

const skill: Skill = {
  name: 'pdf-forms',
  description: 'Fill in PDF forms',
  source: 'skills',
  rank: 5,
  path: '/s/pdf-forms/SKILL.md',
  id: 'pdf-forms',
  body: '# pdf-forms',
  tokenEstimate: 1,
  contentHash: 'pdf-forms',
};

/** A service whose searches answer when released, so a test can look between a call's start and its end. */
function gatedService(): { service: SkillService; release: () => void } {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const service: SkillService = {
    search: async (): Promise<readonly SearchHit[]> => {
      await gate;
      return [{ skill, score: 0.9, via: ['lexical'] }];
    },
    skills: async () => [skill],
    close: async () => undefined,
  };
  return { service, release };
}

describe('serveMcpStdio and the idle collector', () => {
  it('touches the collector as each tool call ends, and closes it when the server stops', async () => {
    const events: string[] = [];
    const collector = { touch: () => void events.push('touch'), close: () => void events.push('close') };
    const { service, release } = gatedService();
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const answers: { id?: number }[] = [];
    let buffered = '';
    stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        answers.push(JSON.parse(buffered.slice(0, end)) as { id?: number });
        buffered = buffered.slice(end + 1);
      }
    });
    const send = (message: object) => stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const answered = (id: number) => expect.poll(() => answers.some((answer) => answer.id === id), { timeout: 5000 }).toBe(true);

    const served = serveMcpStdio({ service, k: 3, mode: 'hybrid', version: 'test', log: () => undefined, stdin, stdout, collector });
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '0' } } });
    await answered(1);
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'search_skills', arguments: { query: 'fill a pdf form' } } });
    send({ id: 3, method: 'tools/call', params: { name: 'read_skill', arguments: { name: 'pdf-forms' } } });
    await answered(3);
    // The search is still running: only the finished read was touched for.
    expect(events).toEqual(['touch']);
    release();
    await answered(2);
    await expect.poll(() => events.length).toBe(2);
    stdin.end();
    await served;
    expect(events).toEqual(['touch', 'touch', 'close']);
  });
});
