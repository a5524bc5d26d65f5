import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { suggestNames } from '../../src/util/suggest.js';
import { MAX_MCP_NAME_CHARS, MAX_MCP_QUERY_CHARS, createSkillSearchMcpServer } from '../../src/integrations/mcp-server.js';
import { capQuery } from '../../src/integrations/query-cap.js';
import { SKILL_FOLDER_LIMITS } from '../../src/integrations/skill-folder.js';
import type { SkillService } from '../../src/integrations/service.js';
import type { Skill } from '../../src/types.js';

const skill = (name: string): Skill => ({
  name,
  description: `About ${name}`,
  source: 'skills',
  rank: 5,
  path: `/s/${name}/SKILL.md`,
  id: name,
  body: `# ${name}`,
  tokenEstimate: 1,
  contentHash: name,
});

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function connect(service: SkillService): Promise<Client> {
  const server = createSkillSearchMcpServer({ service, k: 3, mode: 'hybrid', version: 'test', log: () => undefined });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'limits', version: '0' });
  await client.connect(clientSide);
  closers.push(() => client.close());
  return client;
}

/** Plain Levenshtein with transpositions, for checking the bounded one. */
function reference(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** What suggestNames promises, computed the slow way. */
function expectedSuggestions(requested: string, names: readonly string[]): string[] {
  const query = requested.toLowerCase();
  if (query === '') return [];
  const limit = Math.min(8, Math.max(2, Math.floor(query.length / 3)));
  return names
    .map((name, index) => {
      const candidate = name.toLowerCase();
      const distance = reference(query, candidate);
      const contains = candidate.includes(query) || (query.length >= 3 && query.includes(candidate));
      return { name, index, keep: distance <= limit || contains, distance: contains ? Math.min(distance, limit) : distance };
    })
    .filter((entry) => entry.keep)
    .sort((a, b) => a.distance - b.distance || a.index - b.index)
    .slice(0, 3)
    .map((entry) => entry.name);
}

describe('read_skill suggestions are bounded', () => {
  it('the banded distance suggests exactly what the full one would', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '-', 'd'), maxLength: 14 });
    fc.assert(
      fc.property(word, fc.array(word, { maxLength: 12 }), (requested, names) => {
        expect(suggestNames(requested, names)).toEqual(expectedSuggestions(requested, names));
      }),
      { numRuns: 400 },
    );
  });

  it('a 4,000-character name against 24,000 skills: containment only, no edit distances', () => {
    const names = Array.from({ length: 24_000 }, (_, i) => `skill-number-${i}-with-a-longish-name`);
    expect(suggestNames('q'.repeat(4000), names)).toEqual([]);
    expect(suggestNames(`${'q'.repeat(4000)}skill-number-7-with-a-longish-name`, names)).toEqual(['skill-number-7-with-a-longish-name']);
  });
});

describe('MCP tool arguments are capped', () => {
  const service: SkillService & { queries: string[] } = {
    queries: [],
    async search(query) {
      this.queries.push(query);
      return [{ skill: skill('pdf-forms'), score: 0.9, via: ['lexical'] }];
    },
    skills: async () => [skill('pdf-forms'), skill('git-bisect')],
    close: async () => undefined,
  };

  it('read_skill refuses a name longer than the schema allows, with a validation error', async () => {
    const client = await connect(service);
    const result = await client.callTool({ name: 'read_skill', arguments: { name: 'x'.repeat(MAX_MCP_NAME_CHARS + 1) } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/too_big|Too big|at most 256|<=256/i);
    const near = await client.callTool({ name: 'read_skill', arguments: { name: 'pdf-form' } });
    expect((near.content as { text: string }[])[0]?.text).toBe('Unknown skill "pdf-form". Did you mean: pdf-forms?');
  });

  it('search_skills refuses a 1 MB query cleanly and searches a long one capped', async () => {
    const client = await connect(service);
    const huge = await client.callTool({ name: 'search_skills', arguments: { query: 'x'.repeat(1_000_000) } });
    expect(huge.isError).toBe(true);
    expect(JSON.stringify(huge.content)).toMatch(/too_big|Too big|at most|<=65536/i);
    expect(service.queries).toEqual([]);
    const long = `${'fill the form '.repeat(4000)}`.slice(0, MAX_MCP_QUERY_CHARS);
    const answered = await client.callTool({ name: 'search_skills', arguments: { query: long } });
    expect(answered.isError).toBeFalsy();
    expect(service.queries).toEqual([capQuery(long)]);
  });
});

describe('read_skill bounds what it returns', () => {
  it("a command's 1 MB body is cut to the bundled-file bound, saying where and which file holds all of it", async () => {
    // 'é' is two bytes: the cut falls inside one unless it keeps to whole characters.
    const big: Skill = { ...skill('huge'), path: '/p/.claude/commands/huge.md', body: `# huge\n${'é'.repeat(512 * 1024)}` };
    const size = Buffer.byteLength(big.body);
    const client = await connect({ search: async () => [], skills: async () => [big, skill('small')], close: async () => undefined });
    const result = (await client.callTool({ name: 'read_skill', arguments: { name: 'huge' } })) as { content: { text: string }[] };
    const text = result.content[0]!.text;
    const note = `\n\n[cut at ${SKILL_FOLDER_LIMITS.maxReadBytes} bytes of its body; the whole skill is in /p/.claude/commands/huge.md]`;
    expect(text.endsWith(note)).toBe(true);
    const kept = text.slice(0, -note.length);
    expect(big.body.startsWith(kept)).toBe(true);
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(SKILL_FOLDER_LIMITS.maxReadBytes);
    expect(Buffer.byteLength(kept)).toBeGreaterThan(SKILL_FOLDER_LIMITS.maxReadBytes - 4);
    const small = (await client.callTool({ name: 'read_skill', arguments: { name: 'small' } })) as { content: { text: string }[] };
    expect(small.content[0]!.text).toContain('# small');
    expect(small.content[0]!.text).not.toContain('[cut at');
    expect(size).toBeGreaterThan(SKILL_FOLDER_LIMITS.maxReadBytes);
  });

  it("names the file's own size, not the body the loader already cut at its file limit", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'skill-search-mcp-huge-'));
    try {
      const file = path.join(dir, 'huge.md');
      writeFileSync(file, `# huge\n${'x'.repeat(2_700_000)}`);
      const loaded: Skill = { ...skill('huge'), path: file, body: `# huge\n${'x'.repeat(1_048_576)}` };
      const client = await connect({ search: async () => [], skills: async () => [loaded], close: async () => undefined });
      const result = (await client.callTool({ name: 'read_skill', arguments: { name: 'huge' } })) as { content: { text: string }[] };
      expect(result.content[0]!.text).toMatch(/\n\n\[cut at \d+ bytes of its body; the whole skill \(2700007 bytes\) is in .*huge\.md\]$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
