import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withHookText, withMcpServerText, withoutHookText, withoutMcpServerText } from '../../src/hosts/json-settings.js';

const HOOK = { command: 'skill-search hook claude-code', timeout: 10 };
const SERVER = { command: 'skill-search', args: ['mcp'] };

// Containers are absent or hold something: uninstall drops a map or list our entry leaves empty
// (install made it, in the usual case), so an empty one the user wrote would not come back.
const userHooks = fc.array(fc.record({ hooks: fc.array(fc.record({ type: fc.constant('command'), command: fc.string() }), { maxLength: 2 }) }), {
  minLength: 1,
  maxLength: 3,
});
const settings = fc.record(
  {
    model: fc.string(),
    env: fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
    hooks: fc.record({ UserPromptSubmit: userHooks, Stop: userHooks }, { requiredKeys: ['Stop'] }),
    mcpServers: fc.dictionary(
      fc.string().filter((key) => key !== 'skill-search' && key !== '__proto__'),
      fc.record({ command: fc.string() }),
      {
        minKeys: 1,
        maxKeys: 2,
      },
    ),
  },
  { requiredKeys: [] },
);
const text = fc
  .tuple(settings, fc.constantFrom(0, 2, 4, '\t'), fc.boolean(), fc.constantFrom('\n', '\r\n'))
  .map(([value, indent, newline, eol]) => `${JSON.stringify(value, null, indent)}${newline ? '\n' : ''}`.replaceAll('\n', eol));

describe('settings.json edits', () => {
  it('add our entry as valid JSON beside the user values, and removing it gives the bytes back', () => {
    fc.assert(
      fc.property(text, (before) => {
        const installed = withMcpServerText(withHookText(before, HOOK, 'settings.json'), SERVER, 'settings.json');
        const value = JSON.parse(installed);
        const original = JSON.parse(before);
        expect(value.hooks.UserPromptSubmit.at(-1)).toEqual({ hooks: [{ type: 'command', ...HOOK }] });
        expect(value.mcpServers['skill-search']).toEqual({ type: 'stdio', ...SERVER });
        expect(value.model).toEqual(original.model);
        expect(value.env).toEqual(original.env);
        expect(withoutMcpServerText(withoutHookText(installed, 'settings.json'), 'settings.json')).toBe(before);
        // A CRLF file gets no bare LF from us.
        if (before.includes('\r\n')) expect(installed.replaceAll('\r\n', '')).not.toContain('\n');
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a duplicate key and a 20-digit integer as written, editing the value JSON.parse keeps', () => {
    const raw = '{"hooks": {"UserPromptSubmit": "old"}, "n": 12345678901234567890, "hooks": {"Stop": []}}';
    const installed = withHookText(raw, HOOK, 'settings.json');
    expect(installed.startsWith('{"hooks": {"UserPromptSubmit": "old"}, "n": 12345678901234567890, "hooks": {"Stop": [], "UserPromptSubmit": [')).toBe(true);
    expect(JSON.parse(installed).hooks.UserPromptSubmit).toHaveLength(1);
    expect(withoutHookText(installed, 'settings.json')).toBe(raw);
  });
});
