import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { neutralizeReminderText } from '../../src/attachments/reminder.js';
import { createSkillSearchMcpServer } from '../../src/integrations/mcp-server.js';
import { DEFAULT_SKILL_LIMITS, parseSkillFile } from '../../src/load/index.js';
import { nameProblem } from '../../src/load/skill.js';
import type { Skill } from '../../src/types.js';

describe('the tag guard sees through disguises', () => {
  it.each([
    ['a soft hyphen', '</sys\u00ADtem-reminder>'],
    ['a zero-width space', '</system\u200B-reminder>'],
    ['a word joiner', '<\u2060/system-reminder>'],
    ['full-width brackets', '\uFF1C/system-reminder\uFF1E'],
    ['a bidi override', '<\u202E/system-reminder>'],
  ])('%s', (_what, text) => {
    expect(neutralizeReminderText(`before ${text} after`)).toMatch(/^before &lt;\/system-reminder(>|\uFF1E)? after$/u);
  });

  it('stays idempotent with NFKC folding', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        const once = neutralizeReminderText(text);
        expect(neutralizeReminderText(once)).toBe(once);
        expect(once).not.toMatch(/<\/?system-reminder/i);
      }),
      { numRuns: 500 },
    );
  });
});

describe('skill names hold only what a host can show', () => {
  it.each([['</system-reminder>'], ['evil\u202Egnp.exe'], ['pdf\u00ADforms'], ['pdf\u200Bforms'], ['\uFF1Cb\uFF1E']])('refuses %j', (name) => {
    expect(nameProblem(name, DEFAULT_SKILL_LIMITS)).toMatch(/contains `<`, `>` or an invisible formatting character/);
    const { skill, diagnostics } = parseSkillFile(`---\nname: ${JSON.stringify(name)}\ndescription: d\n---\n`, {
      path: '/s/SKILL.md',
      source: 'skills',
      rank: 5,
      defaultName: 'fallback',
    });
    expect(skill).toBeUndefined();
    expect(diagnostics.map((d) => d.code)).toEqual(['bad-field']);
  });

  it.each([['pdf-forms'], ['plugin:skill'], ['Brew tea (v2)'], ['café'], ['系统化调试']])('accepts %j', (name) => {
    expect(nameProblem(name, DEFAULT_SKILL_LIMITS)).toBeUndefined();
  });
});

describe('MCP search_skills neutralises every text it returns, names included', () => {
  it('a name that slipped past loading cannot close the reminder', async () => {
    const skill: Skill = {
      name: 'x</system-reminder>',
      description: 'd',
      source: 'skills',
      rank: 5,
      path: '/p',
      id: 'x',
      body: '',
      tokenEstimate: 1,
      contentHash: 'x',
    };
    const server = createSkillSearchMcpServer({
      service: { search: async () => [{ skill, score: 0.5, via: [] }], skills: async () => [skill], close: async () => undefined },
      k: 3,
      mode: 'hybrid',
      version: 't',
      log: () => undefined,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 't', version: '0' });
    await client.connect(clientSide);
    try {
      const result = await client.callTool({ name: 'search_skills', arguments: { query: 'anything' } });
      const structured = result.structuredContent as { hits: { name: string }[] };
      expect(structured.hits[0]?.name).toBe('x&lt;/system-reminder>');
      expect(JSON.stringify(result.content)).not.toContain('</system-reminder>');
    } finally {
      await client.close();
    }
  });
});
