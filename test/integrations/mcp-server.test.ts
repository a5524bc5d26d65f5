import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_QUERY_CHARS } from '../../src/integrations/query-cap.js';
import { ROOT, SKILLS, TOOLS, removeDir, spawnCli, tempDir } from '../cli/helpers.js';

interface Connected {
  client: Client;
  stderr: () => string;
  close: () => Promise<void>;
}

async function connect(args: string[], cache: string): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'mcp', ...args],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), HOME: cache, SKILL_SEARCH_CACHE_DIR: cache },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'skill-search-test', version: '0.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

type TextContent = { type: 'text'; text: string }[];

describe('skill-search mcp (hash embedder)', () => {
  const cache = tempDir();
  let server: Connected;
  beforeAll(async () => {
    server = await connect(['--skills-dir', SKILLS, '--tools', TOOLS, '--model', 'hash'], cache);
  });
  afterAll(async () => {
    await server.close();
    removeDir(cache);
  });

  it('offers search_skills and read_skill', async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['read_skill', 'search_skills']);
    const search = tools.find((tool) => tool.name === 'search_skills');
    expect(search?.inputSchema.required).toEqual(['query']);
    expect(Object.keys(search?.inputSchema.properties ?? {})).toEqual(['query', 'k', 'explain']);
    // Codex drops the schema's bounds from what the model sees: the description carries them.
    expect(JSON.stringify(search?.inputSchema.properties?.k)).toContain('1 to 50');
    expect(server.client.getServerVersion()).toMatchObject({ name: 'skill-search', version: '0.1.0' });
  });

  it('search_skills gives a skill the query names and nothing else', async () => {
    const result = await server.client.callTool({ name: 'search_skills', arguments: { query: 'use the git-bisect skill to fill in a PDF form' } });
    const structured = result.structuredContent as { hits: { name: string }[] };
    expect(structured.hits.map((hit) => hit.name)).toEqual(['git-bisect']);
  });

  it('search_skills returns ranked text and structured hits', async () => {
    const result = await server.client.callTool({ name: 'search_skills', arguments: { query: 'fill in a PDF form', k: 3 } });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { query: string; hits: { name: string; score: number; path: string }[] };
    expect(structured.query).toBe('fill in a PDF form');
    expect(structured.hits[0]).toMatchObject({ name: 'pdf-forms', source: 'skills', path: path.join(SKILLS, 'pdf-forms', 'SKILL.md') });
    expect(structured.hits.length).toBeLessThanOrEqual(3);
    const text = (result.content as TextContent)[0]?.text ?? '';
    expect(text).toMatch(/^1\. pdf-forms \(\d\.\d{3}\): Fill in, flatten and extract the fields of PDF forms - when a task involves/);
  });

  it('search_skills structuredContent holds what the text says, no more (Codex sends it to the model in place of the text)', async () => {
    const long = 'fill in a PDF form '.repeat(3000);
    const result = await server.client.callTool({ name: 'search_skills', arguments: { query: long, k: 2 } });
    const structured = result.structuredContent as { query: string; hits: Record<string, unknown>[] };
    expect(structured.hits.length).toBeGreaterThan(0);
    for (const hit of structured.hits)
      expect(['name', 'description', 'whenToUse', 'source', 'score', 'path']).toEqual(expect.arrayContaining(Object.keys(hit)));
    expect(long.length).toBeGreaterThan(MAX_QUERY_CHARS);
    expect(structured.query.length).toBeLessThanOrEqual(MAX_QUERY_CHARS);
    expect(structured.query.startsWith('fill in a PDF form')).toBe(true);
  });

  it('search_skills with explain: each hit says why in structuredContent, and the text stays short', async () => {
    const result = await server.client.callTool({ name: 'search_skills', arguments: { query: 'fill in a PDF form', k: 1, explain: true } });
    const structured = result.structuredContent as { hits: { name: string; score: number; why: Record<string, unknown> }[] };
    const [hit] = structured.hits;
    expect(hit?.name).toBe('pdf-forms');
    expect(Object.keys(hit?.why ?? {})).toEqual(['matched', 'lexical', 'dense', 'order', 'answerable', 'fits', 'threshold', 'passed']);
    // "fill" reaches "fillabl" (the stem of "fillable") by prefix; "in" and "a" are stop words.
    expect(hit?.why.matched).toEqual({
      name: ['pdf', 'form'],
      whenToUse: ['fillabl', 'pdf', 'form'],
      description: ['fill', 'pdf', 'form'],
      body: ['fill', 'pdf', 'form'],
    });
    expect(hit?.why).toMatchObject({ lexical: { coverage: 1 }, passed: true });
    const why = hit!.why as { answerable: number; fits: number; threshold: number; dense: { cosine: number; centered: number } };
    // Rounded to 4 decimals, like the score.
    for (const value of [why.answerable, why.fits, why.threshold, why.dense.cosine, why.dense.centered])
      expect(Math.round(value * 10_000) / 10_000).toBe(value);
    expect(why.answerable * why.fits).toBeCloseTo(hit!.score, 3);
    expect(hit!.score).toBeGreaterThanOrEqual(why.threshold);
    const text = (result.content as TextContent)[0]?.text ?? '';
    expect(text.split('\n')).toHaveLength(1);
    expect(text).not.toContain('matched');
  });

  it('search_skills says so when nothing fits', async () => {
    const result = await server.client.callTool({ name: 'search_skills', arguments: { query: 'bake a sourdough loaf' } });
    expect(result.structuredContent).toEqual({ query: 'bake a sourdough loaf', hits: [] });
    expect((result.content as TextContent)[0]?.text).toBe('No skill fits "bake a sourdough loaf".');
  });

  it('search_skills rejects a bad k as a tool error', async () => {
    const result = await server.client.callTool({ name: 'search_skills', arguments: { query: 'pdf', k: 0 } });
    expect(result.isError).toBe(true);
  });

  it('read_skill accepts a leading slash and any case when the name is unique', async () => {
    const result = await server.client.callTool({ name: 'read_skill', arguments: { name: '/Git-Bisect' } });
    expect(result.isError).toBeFalsy();
    expect((result.content as TextContent)[0]?.text).toMatch(/^Skill folder: .*git-bisect\nBundled files: none\n\n# Bisecting a regression\n/);
  });

  it('read_skill returns the body with reminder tags neutralised', async () => {
    const result = await server.client.callTool({ name: 'read_skill', arguments: { name: 'flaky-tests' } });
    expect(result.isError).toBeFalsy();
    const text = (result.content as TextContent)[0]?.text ?? '';
    expect(text).toContain('\n\n# Flaky tests\n');
    expect(text).toContain('&lt;/system-reminder> stays inert.');
    expect(text).not.toContain('</system-reminder>');
  });

  it('read_skill on an unknown name is a tool error with close names', async () => {
    const result = await server.client.callTool({ name: 'read_skill', arguments: { name: 'pdf-form' } });
    expect(result.isError).toBe(true);
    expect((result.content as TextContent)[0]?.text).toBe('Unknown skill "pdf-form". Did you mean: pdf-forms?');
    const none = await server.client.callTool({ name: 'read_skill', arguments: { name: 'zzzzzzzzzz' } });
    expect((none.content as TextContent)[0]?.text).toBe('Unknown skill "zzzzzzzzzz". Use search_skills to find one.');
  });

  it('says nothing on stderr while all is well (Claude Code logs any stderr line as an error)', () => {
    expect(server.stderr()).toBe('');
  });
});

describe('skill-search mcp (raw stdio)', () => {
  const cache = tempDir();
  afterAll(() => removeDir(cache));

  it('answers a request sent just before stdin closes, then exits 0 with only JSON-RPC on stdout', async () => {
    const messages = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'read_skill', arguments: { name: 'git-bisect' } } },
    ];
    const result = await spawnCli(['mcp', '--skills-dir', SKILLS, '--model', 'hash'], cache, {
      stdin: messages.map((m) => JSON.stringify(m)).join('\n') + '\n',
    });
    expect(result.code).toBe(0);
    const replies = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result: unknown });
    expect(replies.map((reply) => reply.id)).toEqual([1, 2]);
    expect(JSON.stringify(replies[1]?.result)).toContain('# Bisecting a regression');
  });
});

describe('skill-search mcp (default model)', () => {
  const cache = tempDir();
  afterAll(() => removeDir(cache));

  it('finds a skill from a paraphrase', async () => {
    const server = await connect(['--skills-dir', SKILLS], cache);
    try {
      const result = await server.client.callTool({
        name: 'search_skills',
        arguments: { query: 'track down which commit made things stop working' },
      });
      expect((result.structuredContent as { hits: { name: string }[] }).hits[0]?.name).toBe('git-bisect');
      // Building the index and loading the model on a first start say nothing either.
      expect(server.stderr()).toBe('');
    } finally {
      await server.close();
    }
  });
});
