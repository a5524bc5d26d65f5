import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexHookHash, codexHookKey, trustStatus, withTrustEntry, withoutTrustEntry } from '../../src/hosts/codex-trust.js';
import { removeDir, tempDir } from '../cli/helpers.js';

// Every hash below was read from the real Codex CLI 0.171.0: `codex app-server`, `hooks/list`,
// `currentHash` of a hooks.json holding the handler (docs/hosts-codex-trust.md).
describe('codexHookHash matches the hash Codex 0.171.0 computes', () => {
  it.each([
    [{ type: 'command', command: 'skill-search hook codex', timeout: 10 }, 'sha256:f92850a0ae8288af68f6a910f47e353a24fea2422dfb6e2a3d8e6a414b6db305'],
    [{ type: 'command', command: 'echo user', timeout: 5 }, 'sha256:cee13b3db042b7de5a34ed130685885e48d17a51f8eefee3980c8787d24b7c15'],
    // No timeout: Codex hashes its default of 600 s.
    [{ type: 'command', command: "node '/opt/my dir/skill-search.js' hook codex" }, 'sha256:55d185cabfdf652c1275d44a9f804689d5f0656404aa36e325b3a44cb66d3910'],
    // Timeout 0 is raised to 1; async and statusMessage are part of the identity; non-ASCII and escapes as serde_json writes them.
    [
      { type: 'command', command: 'echo "é\\t"', timeout: 0, async: true, statusMessage: 'Finding skills…' },
      'sha256:e454aef3266a8efb114e3cb3adcac095a203842f23e4f6480024ae0c8b662c0e',
    ],
  ])('%j', (handler, hash) => {
    expect(codexHookHash(handler)).toBe(hash);
  });

  it('declines a handler with a field whose normalisation it does not know', () => {
    expect(codexHookHash({ type: 'command', command: 'x', commandWindows: 'y' })).toBeUndefined();
    expect(codexHookHash({ type: 'prompt', command: 'x' })).toBeUndefined();
  });
});

let dir: string;
beforeEach(() => {
  dir = tempDir('codex-trust-');
});
afterEach(() => removeDir(dir));

describe('the trust entry in config.toml', () => {
  const KEY = '/tmp/t-install/x/h2/.codex/hooks.json:user_prompt_submit:1:0';
  const HASH = 'sha256:f92850a0ae8288af68f6a910f47e353a24fea2422dfb6e2a3d8e6a414b6db305';
  const BEFORE = '# my codex config\nmodel = "gpt-5"\n\n[mcp_servers.other]\ncommand = "other"\n';

  it('is the table Codex writes itself (its /hooks review, config/batchWrite), and goes away byte for byte', () => {
    const after = withTrustEntry(BEFORE, { key: KEY, hash: HASH }, 'config.toml');
    // What Codex 0.171.0 appended to BEFORE for the same key and hash, less the empty
    // `[hooks.state]` header it also writes (a table that holds nothing of its own).
    expect(after).toBe(`${BEFORE}\n[hooks.state."${KEY}"]\ntrusted_hash = "${HASH}"\n`);
    expect(trustStatus(after, { key: KEY, hash: HASH }, 'config.toml')).toBe('trusted');
    expect(withTrustEntry(after, { key: KEY, hash: HASH }, 'config.toml')).toBe(after);
    expect(withoutTrustEntry(after, { key: KEY, hash: HASH }, 'config.toml')).toBe(BEFORE);
  });

  it('updates a stale hash in place, keeps what else the state holds, and removes only our hash', () => {
    const text = `[hooks.state."${KEY}"]\nenabled = true # mine\ntrusted_hash = "sha256:old"\n\n[tui]\ntheme = "x"\n`;
    expect(trustStatus(text, { key: KEY, hash: HASH }, 'config.toml')).toBe('modified');
    const updated = withTrustEntry(text, { key: KEY, hash: HASH }, 'config.toml');
    expect(updated).toBe(text.replace('sha256:old', HASH));
    expect(withoutTrustEntry(updated, { key: KEY, hash: HASH }, 'config.toml')).toBe(`[hooks.state."${KEY}"]\nenabled = true # mine\n\n[tui]\ntheme = "x"\n`);
    // Someone else's hash for that key is not ours to remove.
    expect(withoutTrustEntry(text, { key: KEY, hash: HASH }, 'config.toml')).toBe(text);
  });

  it('edits the real table and hash line, not look-alikes inside multi-line strings and arrays (LF and CRLF)', () => {
    for (const eol of ['\n', '\r\n']) {
      const text = [
        `notes = """`,
        `[hooks.state."${KEY}"]`,
        `trusted_hash = "sha256:fake"`,
        `"""`,
        `list = [`,
        `  ["a"],`,
        `]`,
        `[hooks.state."${KEY}"]`,
        `lit = '''`,
        `trusted_hash = "sha256:fake2"`,
        `[tui]`,
        `'''`,
        `trusted_hash = "sha256:old"`,
        `[tui]`,
        `theme = "x"`,
        ``,
      ].join(eol);
      const updated = withTrustEntry(text, { key: KEY, hash: HASH }, 'config.toml');
      expect(updated).toBe(text.replace('sha256:old', HASH));
      expect(withoutTrustEntry(updated, { key: KEY, hash: HASH }, 'config.toml')).toBe(text.replace(`trusted_hash = "sha256:old"${eol}`, ''));
    }
  });

  it('refuses, naming the file, where hooks is an inline table', () => {
    expect(() => withTrustEntry('hooks = { state = {} }\n', { key: KEY, hash: HASH }, '/x/config.toml')).toThrow(
      /^skill-search: \/x\/config\.toml: cannot be edited safely here; trust the hook in Codex \(\/hooks\) instead; nothing was changed$/,
    );
  });

  it('keys the hook by the real path of its folder, as Codex does for a symlinked CODEX_HOME', () => {
    mkdirSync(path.join(dir, 'real'));
    symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'));
    const real = realpathSync(path.join(dir, 'real'));
    expect(codexHookKey(path.join(dir, 'link', 'hooks.json'), 2, 0)).toBe(`${real}${path.sep}hooks.json:user_prompt_submit:2:0`);
    // A folder that does not exist yet keys under its nearest existing (real) parent.
    expect(codexHookKey(path.join(dir, 'link', 'new', 'hooks.json'), 0, 0)).toBe(`${real}${path.sep}new${path.sep}hooks.json:user_prompt_submit:0:0`);
  });
});
