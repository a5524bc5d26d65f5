/**
 * The real Codex CLI (pinned, see scripts/hosts/install-hosts.ts) with `skill-search install codex`
 * in a fresh HOME, run with `codex exec` against the Responses stub: what the model receives.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { STUB_REPLY } from './support/anthropic-stub.js';
import { type ResponsesBody, codexHookContext, codexMcpTools, codexSkillsSection, promptCodex } from './support/codex.js';
import { CLI_BIN, type HostHome, installedHomes } from './support/host-home.js';
import { startOpenAiStub } from './support/openai-stub.js';
import type { RecordingServer } from './support/recording-server.js';
import { CSV_PROMPT, CSV_SUGGESTION, MATCHING, MATCHING_SUGGESTION, NAMED_PROMPT, OFF_TOPIC } from './support/skills.js';
import type { SkillFile } from './support/host-home.js';

/** Library skills: one named as Codex's own `skill-creator`, one it does not have. */
const SHADOWED_LIBRARY: readonly SkillFile[] = [
  { name: 'skill-creator', description: 'Create a new agent skill: write its SKILL.md with name and description frontmatter' },
  { name: 'skill-lint', description: 'Lint the SKILL.md frontmatter of an agent skill for missing or malformed fields' },
];
const SHADOWED_PROMPT = 'create a new agent skill, then lint its SKILL.md frontmatter for missing fields';

const bin = inject('hostBins').codex;

/** A tool's output as Codex sends it back to the model. */
function isCallOutput(item: { type?: string }): item is { type: 'function_call_output'; output: string } {
  return item.type === 'function_call_output' && typeof (item as { output?: unknown }).output === 'string';
}

/** Runs hooks Codex has not recorded as trusted: after uninstall, proves no hook is left at all. */
const BYPASS_TRUST = ['--dangerously-bypass-hook-trust'];

/**
 * Codex gives an optional MCP server a second (`mcp_optional_startup_grace_ms`, 1000) from the
 * turn's start, then leaves its tools out of the turn; 0 waits for the server's
 * `startup_timeout_sec`. The MCP tests wait, as a user can set it: they test our server, not how
 * soon a loaded machine starts it (docs/hosts.md, "MCP tools missing under load").
 */
const WAIT_FOR_MCP = ['-c', 'mcp_optional_startup_grace_ms=0'];

describe.skipIf(bin === undefined)('Codex 0.171.0 with skill-search installed', () => {
  let stub: RecordingServer;
  let home: HostHome;
  const freshHome = installedHomes('codex');

  beforeAll(async () => {
    stub = await startOpenAiStub();
    home = await freshHome();
  });
  afterAll(() => stub.close());

  it('install points the hook and the MCP server at this repo’s bin', () => {
    const hooks = JSON.parse(readFileSync(path.join(home.home, '.codex', 'hooks.json'), 'utf8'));
    expect(hooks.hooks.UserPromptSubmit[0].hooks[0].command).toBe(`node ${CLI_BIN} hook codex`);
    expect(readFileSync(path.join(home.home, '.codex', 'config.toml'), 'utf8')).toContain(`args = ["${CLI_BIN}", "mcp"]`);
  });

  it('without any bypass flag, install codex leaves a hook Codex runs: our suggestion reaches the model', async () => {
    const turn = await promptCodex(home, bin!, stub, MATCHING);
    expect(turn.result.code).toBe(0);
    expect(turn.result.stdout.trim()).toBe(STUB_REPLY);
    // Codex 0.171.0 skips a hook it has no trust entry for, and says so only in its own log.
    const context = codexHookContext(turn.request, MATCHING) ?? '(no hook output reached the model)';
    expect(context).toContain('Skills relevant to your task:');
    expect(context).toContain(MATCHING_SUGGESTION);
    expect(context).not.toContain('release-notes');
  });

  it('an off-topic prompt: nothing from the hook reaches the model', async () => {
    const turn = await promptCodex(home, bin!, stub, OFF_TOPIC);
    expect(turn.result.code).toBe(0);
    expect(codexHookContext(turn.request, OFF_TOPIC)).toBeUndefined();
    expect(JSON.stringify(turn.request)).not.toContain('Skills relevant to your task');
  });

  it('one suggestion per session: codex exec resume --last gets no repeat, a new session does', async () => {
    const first = await promptCodex(home, bin!, stub, MATCHING);
    expect(codexHookContext(first.request, MATCHING)).toContain(MATCHING_SUGGESTION);

    // The same prompt again in that session: the model already has the suggestion.
    const again = await promptCodex(home, bin!, stub, MATCHING, [], { resume: true });
    expect(again.result.code).toBe(0);
    expect(again.request.input.filter((item) => item.role === 'assistant').length).toBeGreaterThan(0);
    expect(codexHookContext(again.request, MATCHING)).toBeUndefined();

    // The hook still runs in the resumed session: another topic is suggested, the first is not repeated.
    const other = await promptCodex(home, bin!, stub, CSV_PROMPT, [], { resume: true });
    const otherContext = codexHookContext(other.request, CSV_PROMPT);
    expect(otherContext).toContain(CSV_SUGGESTION);
    expect(otherContext).not.toContain('pdf-tables');

    const fresh = await promptCodex(home, bin!, stub, MATCHING);
    expect(fresh.request.input.filter((item) => item.role === 'assistant')).toEqual([]);
    expect(codexHookContext(fresh.request, MATCHING)).toContain(MATCHING_SUGGESTION);
  });

  it('$<skill> runs a skill Codex lists: the model gets its body and no suggestion of it', async () => {
    const prompt = `use $pdf-tables to ${MATCHING}`;
    const turn = await promptCodex(home, bin!, stub, prompt);
    expect(turn.result.code).toBe(0);
    expect(JSON.stringify(turn.request.input)).toContain('<name>pdf-tables</name>');
    expect(codexHookContext(turn.request, prompt) ?? '').not.toContain('pdf-tables');
  });

  it('a prompt that names a skill: only that skill is suggested', async () => {
    const turn = await promptCodex(home, bin!, stub, NAMED_PROMPT);
    const context = codexHookContext(turn.request, NAMED_PROMPT) ?? '(no hook output reached the model)';
    expect(context).toContain(CSV_SUGGESTION);
    expect(context).not.toContain('pdf-tables');
  });

  it("a library skill named as one of Codex's own (skill-creator) is not suggested beside it", async () => {
    const own = await freshHome();
    own.addSkills('.config/skill-search/library', SHADOWED_LIBRARY);
    await own.cli(['index', '--cwd', own.project]);
    // Codex installs its own skills on its first run.
    await promptCodex(own, bin!, stub, OFF_TOPIC);
    const turn = await promptCodex(own, bin!, stub, SHADOWED_PROMPT);
    expect(turn.result.code).toBe(0);
    // Codex lists its own skill-creator (from its `.system` root), and never ours: the library is no folder of its.
    const section = codexSkillsSection(turn.request) ?? '';
    expect(section).toContain('/.codex/skills/.system`');
    expect(section.match(/^- skill-creator: /gm)).toHaveLength(1);
    const context = codexHookContext(turn.request, SHADOWED_PROMPT) ?? '(no hook output reached the model)';
    expect(context).toContain('- skill-lint: ');
    expect(context).not.toContain('skill-creator');
  });

  it('the model is offered our MCP tools', async () => {
    const turn = await promptCodex(home, bin!, stub, OFF_TOPIC, WAIT_FOR_MCP);
    expect(codexMcpTools(turn.request)).toEqual(expect.arrayContaining(['mcp__skill_search.search_skills', 'mcp__skill_search.read_skill']));
  });

  it("a server slower than Codex's second is left out of the turn, silently; mcp_optional_startup_grace_ms = 0 waits for it", async () => {
    const slow = await freshHome();
    const config = path.join(slow.home, '.codex', 'config.toml');
    const ours = `command = "node"\nargs = ["${CLI_BIN}", "mcp"]`;
    expect(readFileSync(config, 'utf8')).toContain(ours);
    // Our server, started five seconds late.
    writeFileSync(config, readFileSync(config, 'utf8').replace(ours, `command = "sh"\nargs = ["-c", "sleep 5; exec node '${CLI_BIN}' mcp"]`));
    const left = await promptCodex(slow, bin!, stub, OFF_TOPIC);
    expect(left.result.code).toBe(0);
    expect(codexMcpTools(left.request)).toEqual([]);
    expect(left.result.stderr.replaceAll(slow.home, '<home>')).not.toMatch(/mcp/i);
    const waited = await promptCodex(slow, bin!, stub, OFF_TOPIC, WAIT_FOR_MCP);
    expect(codexMcpTools(waited.request)).toEqual(expect.arrayContaining(['mcp__skill_search.search_skills', 'mcp__skill_search.read_skill']));
  });

  it('the model calls search_skills: it gets the hits as JSON (structuredContent), with no scoring internals', async () => {
    const calling = await startOpenAiStub([{ namespace: 'mcp__skill_search', name: 'search_skills', arguments: { query: MATCHING } }]);
    try {
      const turn = await promptCodex(home, bin!, calling, OFF_TOPIC, WAIT_FOR_MCP);
      expect(turn.result.code).toBe(0);
      const outputs = turn.all.flatMap((recorded) => (recorded.body as ResponsesBody | undefined)?.input ?? []).filter(isCallOutput);
      // Codex 0.171.0 sends `Wall time: …\nOutput:\n` and then the tool's structuredContent, not its text.
      const sent = outputs.at(-1)?.output ?? '';
      expect(sent, 'what Codex sent back for the tool call').toContain('{');
      const json = JSON.parse(sent.slice(sent.indexOf('{'))) as { query: string; hits: Record<string, unknown>[] };
      expect(json.query).toBe(MATCHING);
      expect(json.hits.map((hit) => hit.name)).toEqual(['pdf-tables']);
      expect(Object.keys(json.hits[0]!).sort()).toEqual(['description', 'name', 'path', 'score', 'source']);
    } finally {
      await calling.close();
    }
  });

  it('uninstall leaves Codex working, with no hook and no server left', async () => {
    const own = await freshHome();
    await own.cli(['uninstall', 'codex']);
    for (const file of ['hooks.json', 'config.toml']) {
      const text = existsSync(path.join(own.home, '.codex', file)) ? readFileSync(path.join(own.home, '.codex', file), 'utf8') : '';
      expect(text).not.toContain('skill-search');
    }
    const turn = await promptCodex(own, bin!, stub, MATCHING, BYPASS_TRUST);
    expect(turn.result.code).toBe(0);
    expect(turn.result.stdout.trim()).toBe(STUB_REPLY);
    expect(codexHookContext(turn.request, MATCHING)).toBeUndefined();
    expect(codexMcpTools(turn.request)).toEqual([]);
  });
});
