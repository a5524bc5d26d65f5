/**
 * What the user's checks say, held against the real hosts: `claude plugin validate` on the
 * plugin folder, and `skill-search doctor` after `install` (and after Codex's trust entry for
 * our hook is removed, when the real Codex indeed no longer runs it).
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ROOT } from '../cli/helpers.js';
import { claudeEnv } from './support/claude.js';
import { codexHookContext, promptCodex } from './support/codex.js';
import { type HostHome, installedHomes } from './support/host-home.js';
import { startOpenAiStub } from './support/openai-stub.js';
import type { RecordingServer } from './support/recording-server.js';
import { MATCHING, MATCHING_SUGGESTION } from './support/skills.js';

const bins = inject('hostBins');

/** Codex's trust entries in config.toml: `[hooks.state."<hooks.json>:<event>:<i>:<j>"]` tables. */
const TRUST_TABLE = /^\[hooks\.state\.[^\n]*\]\n(?:(?!\[)[^\n]*\n?)*/gm;

/** `claude plugin validate`'s output as [the plugin directory's advisory checks, the validation and its result]. */
function splitValidation(stdout: string): [string, string] {
  const end = stdout.indexOf(DIRECTORY_CHECKS_END);
  return end < 0 ? ['', stdout] : [stdout.slice(0, end), stdout.slice(end + DIRECTORY_CHECKS_END.length)];
}
const DIRECTORY_CHECKS_END = 'These plugin directory checks do not change the result below.';

describe.skipIf(bins.claude === undefined || bins.codex === undefined)('the user’s checks against the real hosts', () => {
  let stub: RecordingServer;
  const codexHome = installedHomes('codex');
  beforeAll(async () => {
    stub = await startOpenAiStub();
  });
  afterAll(() => stub.close());

  it('claude plugin validate: the plugin folder passes without a warning (the plugin directory’s own checks ask only for an icon)', async () => {
    const home: HostHome = await codexHome([], { index: false });
    const run = (dir: string) => home.run(bins.claude!, ['plugin', 'validate', dir], claudeEnv(stub));
    // Claude Code 2.1.337 prints the plugin directory's checks first, then the validation's own result.
    const result = await run(path.join(ROOT, 'plugin'));
    expect(result.code).toBe(0);
    const [directory, validation] = splitValidation(result.stdout);
    expect(validation).toContain('✔ Validation passed');
    expect(`${validation}${result.stderr}`).not.toMatch(/warning/i);
    expect([...directory.matchAll(/\(([A-Z]+(?:_[A-Z]+)+)\)/g)].map((match) => match[1])).toEqual(['ICON_MISSING']);

    // A copy with a field Claude Code does not know gets a warning: the check above can fail.
    const copy = path.join(home.home, 'plugin-copy');
    cpSync(path.join(ROOT, 'plugin'), copy, { recursive: true });
    const manifest = path.join(copy, '.claude-plugin', 'plugin.json');
    writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, 'utf8')), colour: 'blue' }));
    expect(splitValidation((await run(copy)).stdout)[1]).toMatch(/warning/i);
  });

  it('doctor: both hosts ok after install; Codex’s hook untrusted once its trust entry is gone, as Codex itself treats it', async () => {
    const home = await codexHome();
    await home.cli(['install', 'claude-code']);
    const healthy = await home.cliResult(['doctor']);
    expect(healthy.code).toBe(0);
    expect(healthy.stdout).toContain('Claude Code (user):\n');
    expect(healthy.stdout).toContain('Codex (user):\n');
    expect(healthy.stdout).toMatch(/^ {2}ok {6}trust: /m);
    expect(healthy.stdout).not.toMatch(/PROBLEM|MISSING|not installed/);

    const config = path.join(home.home, '.codex', 'config.toml');
    const withTrust = readFileSync(config, 'utf8');
    expect(withTrust).toMatch(TRUST_TABLE);
    writeFileSync(config, withTrust.replace(TRUST_TABLE, ''));
    const untrusted = await home.cliResult(['doctor', 'codex']);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stdout).toMatch(/^ {2}PROBLEM trust: /m);
    // Codex agrees: without the entry it runs no hook.
    expect(codexHookContext((await promptCodex(home, bins.codex!, stub, MATCHING)).request, MATCHING)).toBeUndefined();

    // install codex again writes the entry back, and Codex runs the hook.
    await home.cli(['install', 'codex']);
    expect((await home.cliResult(['doctor', 'codex'])).code).toBe(0);
    expect(codexHookContext((await promptCodex(home, bins.codex!, stub, MATCHING)).request, MATCHING)).toContain(MATCHING_SUGGESTION);
  });

  it('doctor: a mistyped skill-search.json is a problem, as it is for the real Codex, whose prompts then get no suggestion', async () => {
    const home = await codexHome();
    const config = path.join(home.home, '.claude', 'skill-search.json');
    mkdirSync(path.dirname(config), { recursive: true });
    writeFileSync(config, '{"exlude": ["legacy-*"]}');
    const broken = await home.cliResult(['doctor', 'codex']);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/^ {2}PROBLEM settings: .*skill-search\.json: "exlude": unknown key \(did you mean "exclude"\?\); /m);
    expect(codexHookContext((await promptCodex(home, bins.codex!, stub, MATCHING)).request, MATCHING)).toBeUndefined();

    writeFileSync(config, '{"exclude": ["legacy-*"]}');
    expect((await home.cliResult(['doctor', 'codex'])).code).toBe(0);
    expect(codexHookContext((await promptCodex(home, bins.codex!, stub, MATCHING)).request, MATCHING)).toContain(MATCHING_SUGGESTION);
  });
});
