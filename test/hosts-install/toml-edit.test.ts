import fc from 'fast-check';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { withTrustEntry, withoutTrustEntry } from '../../src/hosts/codex-trust.js';
import { SkillSearchError } from '../../src/errors.js';
import { type TomlTable, valueAt } from '../../src/hosts/toml-lines.js';
import { isOurServer, withServerTable, withoutServerTable } from '../../src/hosts/toml-table.js';

const SERVER = { command: 'skill-search', args: ['mcp'] };
const SERVER_PATH = ['mcp_servers', 'skill-search'];
const TRUST = { key: '/home/u/.codex/hooks.json:user_prompt_submit:0:0', hash: 'sha256:abc' };

// Pieces of config.toml that trip a line editor: headers inside strings and arrays, our own
// names in other forms, inline tables, comments, blank lines.
const PIECES = [
  'model = "gpt-5"',
  '# a comment [mcp_servers.skill-search]',
  '',
  '[tui]',
  '[mcp_servers]',
  '[mcp_servers.other]\ncommand = "o"',
  '[mcp_servers.skill-search]\ncommand = "npx"\nargs = ["skill-search", "mcp"]\nenv = { A = "1" }',
  '[mcp_servers.skill-search]\ncommand = "node"\nargs = ["/old/skill-search.js", "mcp"]',
  'notes = """\n[mcp_servers.skill-search]\ncommand = "x"\n"""',
  "lit = '''\n[hooks.state.\"k\"]\n'''",
  'args = [\n  "a",\n  ["b"],\n]',
  'mcp_servers = { other = { command = "o" } }',
  'hooks = { state = {} }',
  '[hooks]',
  '[hooks.state]',
  `[hooks.state."${TRUST.key}"]\nenabled = false`,
  '[[profiles]]\nname = "p"',
  'x.y = 1',
];

const config = fc
  .tuple(fc.array(fc.constantFrom(...PIECES), { maxLength: 8 }), fc.constantFrom('\n', '\r\n'))
  .map(([pieces, eol]) => (pieces.length === 0 ? '' : `${pieces.join('\n')}\n`.replaceAll('\n', eol)));

function parses(text: string): boolean {
  try {
    parse(text);
    return true;
  } catch {
    return false;
  }
}

describe('config.toml edits', () => {
  it('either refuse with one line or leave a file that parses, and uninstall gives the bytes back', () => {
    fc.assert(
      fc.property(config, (text) => {
        fc.pre(parses(text));
        let installed: string;
        try {
          installed = withTrustEntry(withServerTable(text, SERVER, 'config.toml'), TRUST, 'config.toml');
        } catch (error) {
          expect(error).toBeInstanceOf(SkillSearchError);
          expect((error as Error).message).toMatch(/^skill-search: config\.toml: [^\n]+nothing was changed$/);
          return;
        }
        // A CRLF file gets no bare LF from us.
        if (text.includes('\r\n')) expect(installed.replaceAll('\r\n', '')).not.toContain('\n');
        const parsed = parse(installed) as TomlTable;
        expect(valueAt(parsed, ['hooks', 'state', TRUST.key, 'trusted_hash'])).toBe(TRUST.hash);
        const existing = valueAt(parse(text) as TomlTable, SERVER_PATH);
        const userServer = existing !== undefined && !isOurServer(existing);
        expect(valueAt(parsed, SERVER_PATH)).toEqual(userServer ? existing : SERVER);
        const removed = withoutTrustEntry(withoutServerTable(installed, 'config.toml'), TRUST, 'config.toml');
        if (userServer) expect(valueAt(parse(removed) as TomlTable, SERVER_PATH)).toEqual(existing);
        const hadOurOldTable = text.includes('/old/skill-search.js');
        const hadState = text.includes(`[hooks.state."${TRUST.key}"]`);
        if (!hadOurOldTable && !hadState) expect(removed).toBe(text);
        else expect(parses(removed)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('replaces our old table, not a look-alike header inside a multi-line string', () => {
    const fake = 'notes = """\n[mcp_servers.skill-search]\ncommand = "x"\n"""\n';
    const text = `${fake}\n[mcp_servers.skill-search]\ncommand = "node"\nargs = ["/old/skill-search.js", "mcp"]\n\n[tui]\n`;
    const installed = withServerTable(text, SERVER, 'config.toml');
    expect(installed).toBe(`${fake}\n[mcp_servers.skill-search]\ncommand = "skill-search"\nargs = ["mcp"]\n\n[tui]\n`);
    expect(withoutServerTable(installed, 'config.toml')).toBe(`${fake}\n[tui]\n`);
  });
});
